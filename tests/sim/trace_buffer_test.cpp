// A RISC's trace buffer: streaming writes whole events in order, with
// nothing lost at a chunk's edge; a ring keeps exactly a suffix of what was
// committed (the newest events) as events of every size wrap its store; and
// buffers of two threads share one file without tearing an event.
#include "sim/trace_buffer.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/json_reader.hpp"
#include "base/trace_file.hpp"

namespace tessel::sim {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessel_" + std::to_string(getpid()) + "_" + name)).string();
}

// One event with id `id` and `pad` bytes of text: its size is about pad + 40.
size_t put(TraceBuffer& b, uint64_t id, size_t pad) {
  const std::string e =
      "{\"name\":\"e\",\"id\":" + std::to_string(id) + ",\"args\":{\"t\":\"" + std::string(pad, 'x') + "\"}},\n";
  std::memcpy(b.reserve(), e.data(), e.size());
  b.commit(e.size());
  return e.size();
}

std::vector<uint64_t> ids_in(const std::string& path) {
  std::vector<uint64_t> ids;
  base::read_json_array_elements(path, [&](const base::JsonValue& v) {
    if (v.find("id")) ids.push_back(uint64_t(v.number_at("id")));
  });
  return ids;
}

TEST(TraceBufferTest, StreamsEveryEventInOrder) {
  const std::string path = temp_path("stream.json");
  const uint64_t n = 20000; // about 20 chunks
  {
    auto file = base::TraceFile::open(path, "test");
    TraceBuffer b(file.get(), 0);
    std::mt19937 rng(7);
    for (uint64_t i = 0; i < n; ++i)
      put(b, i, rng() % 64);
    EXPECT_GT(file->bytes_written(), 10 * TraceBuffer::kChunkBytes); // full chunks went out on the way
    b.flush();
    EXPECT_EQ(b.events(), n);
  }
  const auto ids = ids_in(path);
  ASSERT_EQ(ids.size(), n);
  for (uint64_t i = 0; i < n; ++i)
    ASSERT_EQ(ids[i], i);
  std::filesystem::remove(path);
}

TEST(TraceBufferTest, ARingKeepsTheNewestEventsAsItsStoreWraps) {
  for (uint64_t ring : {1ull, 7ull, 300ull, 1000ull}) {
    const std::string path = temp_path("ring" + std::to_string(ring) + ".json");
    const uint64_t n = 5000;
    uint64_t kept = 0;
    {
      auto file = base::TraceFile::open(path, "test");
      TraceBuffer b(file.get(), ring);
      std::mt19937 rng{uint32_t(ring)};
      for (uint64_t i = 0; i < n; ++i) {
        // Mostly small events, now and then one of nearly kMaxEventBytes.
        const size_t pad = rng() % 97 == 0 ? kMaxEventBytes - 100 : rng() % 180;
        put(b, i, pad);
        ASSERT_LE(b.kept(), ring);
      }
      EXPECT_EQ(file->bytes_written(), 2u); // nothing but "[\n" until the end
      kept = b.kept();
      EXPECT_EQ(b.dropped(), n - kept);
      b.write_ring();
    }
    const auto ids = ids_in(path);
    ASSERT_EQ(ids.size(), kept) << ring;
    ASSERT_GE(kept, 1u);
    // Exactly the newest `kept`, oldest first.
    for (size_t i = 0; i < ids.size(); ++i)
      ASSERT_EQ(ids[i], n - kept + i) << "ring " << ring;
    // Small events only lose their room to a long one now and then.
    if (ring >= 300) {
      EXPECT_GE(kept, ring / 2) << ring;
    }
    std::filesystem::remove(path);
  }
}

TEST(TraceBufferTest, ARingOfSmallEventsKeepsExactlyItsSize) {
  const std::string path = temp_path("ring_exact.json");
  {
    auto file = base::TraceFile::open(path, "test");
    TraceBuffer b(file.get(), 2000); // grows from 256 slots to 2000
    for (uint64_t i = 0; i < 10000; ++i)
      put(b, i, 100);
    EXPECT_EQ(b.kept(), 2000u);
    b.write_ring();
  }
  const auto ids = ids_in(path);
  ASSERT_EQ(ids.size(), 2000u);
  EXPECT_EQ(ids.front(), 8000u);
  EXPECT_EQ(ids.back(), 9999u);
  std::filesystem::remove(path);
}

TEST(TraceBufferTest, TwoThreadsStreamIntoOneFile) {
  const std::string path = temp_path("two_threads.json");
  const uint64_t n = 30000;
  {
    auto file = base::TraceFile::open(path, "test");
    const auto record = [&](uint64_t base) {
      TraceBuffer b(file.get(), 0);
      for (uint64_t i = 0; i < n; ++i)
        put(b, base + i, i % 40);
      b.flush();
    };
    std::thread a(record, 0), c(record, 1000000);
    a.join();
    c.join();
  }
  const auto ids = ids_in(path);
  ASSERT_EQ(ids.size(), 2 * n);
  uint64_t next[2] = {0, 0};
  for (uint64_t id : ids) {
    const int t = id >= 1000000;
    ASSERT_EQ(id - (t ? 1000000 : 0), next[t]++);
  }
  std::filesystem::remove(path);
}

} // namespace
} // namespace tessel::sim
