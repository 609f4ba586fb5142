// A trace file is a JSON array shared by its writers: whole chunks in order,
// a trailer that makes it strict JSON when the last writer lets go, appends
// for a path this process wrote before, and a clear error for a path that
// cannot be written.
#include "base/trace_file.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/json_reader.hpp"
#include "tessel/error.hpp"

namespace tessel::base {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessel_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<JsonValue> events_of(const std::string& path, JsonArrayRead* read = nullptr) {
  std::vector<JsonValue> events;
  const JsonArrayRead r = read_json_array_elements(path, [&](const JsonValue& v) { events.push_back(v); });
  if (read) *read = r;
  return events;
}

std::string event(uint32_t id) { return "{\"name\":\"e\",\"ph\":\"i\",\"id\":" + std::to_string(id) + "},\n"; }

TEST(TraceFileTest, IsAnArrayWhileOpenAndStrictJsonAfterClose) {
  const std::string path = temp_path("array.json");
  {
    auto f = TraceFile::open(path, "test");
    EXPECT_EQ(f->path(), std::filesystem::weakly_canonical(path).string());
    EXPECT_EQ(f->next_process_id(), 1u);
    EXPECT_EQ(f->next_process_id(), 2u);
    const std::string e = event(1) + event(2);
    f->write(e.data(), e.size());
    // Open: "[", events, no bracket yet; a reader takes it as a trace cut short.
    EXPECT_EQ(read_all(path), "[\n" + e);
    JsonArrayRead r;
    EXPECT_EQ(events_of(path, &r).size(), 2u);
    EXPECT_FALSE(r.closed);
  }
  JsonArrayRead r;
  const auto events = events_of(path, &r);
  EXPECT_TRUE(r.closed);
  ASSERT_EQ(events.size(), 3u); // and the trailer
  EXPECT_EQ(events[2].text_at("name"), "tessel_trace_end");
  // Strict JSON: the whole file is one value.
  const JsonValue whole = parse_json(read_all(path));
  EXPECT_EQ(whole.items.size(), 3u);
  std::filesystem::remove(path);
}

TEST(TraceFileTest, OpensOfOnePathShareAFileAndALaterOneAppends) {
  const std::string path = temp_path("shared.json");
  {
    auto a = TraceFile::open(path, "test");
    auto b = TraceFile::open(path, "test");
    EXPECT_EQ(a.get(), b.get());
    const std::string e = event(1);
    a->write(e.data(), e.size());
    EXPECT_EQ(a->next_process_id(), 1u);
  }
  {
    auto c = TraceFile::open(path, "test"); // this process wrote it: appended, process ids go on
    EXPECT_EQ(c->next_process_id(), 2u);
    const std::string e = event(2);
    c->write(e.data(), e.size());
  }
  const auto events = events_of(path);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].number_at("id"), 1);
  EXPECT_EQ(events[1].number_at("id"), 2);
  EXPECT_EQ(events[2].text_at("name"), "tessel_trace_end");
  EXPECT_EQ(parse_json(read_all(path)).items.size(), 3u);
  std::filesystem::remove(path);
}

TEST(TraceFileTest, ChunksFromTwoThreadsStayWhole) {
  const std::string path = temp_path("threads.json");
  constexpr uint32_t kChunks = 2000, kPerChunk = 20;
  {
    auto f = TraceFile::open(path, "test");
    const auto writer = [&](uint32_t thread) {
      for (uint32_t c = 0; c < kChunks; ++c) {
        std::string chunk;
        for (uint32_t i = 0; i < kPerChunk; ++i)
          chunk += event(thread * 1000000 + c * kPerChunk + i);
        f->write(chunk.data(), chunk.size());
      }
    };
    std::thread t1(writer, 1), t2(writer, 2);
    t1.join();
    t2.join();
  }
  const auto events = events_of(path);
  ASSERT_EQ(events.size(), 2 * kChunks * kPerChunk + 1);
  // Each thread's events are all there, in its own order.
  uint32_t next[3] = {0, 0, 0};
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const uint32_t id = uint32_t(events[i].number_at("id"));
    const uint32_t thread = id / 1000000;
    ASSERT_TRUE(thread == 1 || thread == 2) << id;
    EXPECT_EQ(id % 1000000, next[thread]++);
  }
  EXPECT_EQ(next[1], kChunks * kPerChunk);
  EXPECT_EQ(next[2], kChunks * kPerChunk);
  std::filesystem::remove(path);
}

TEST(TraceFileTest, AnUnwritablePathIsAValidationErrorNamingItsSource) {
  try {
    TraceFile::open("/nonexistent-dir/trace.json", "TESSEL_TRACE");
    FAIL() << "expected a ValidationError";
  } catch (const ValidationError& e) {
    EXPECT_STREQ(e.what(), "TESSEL_TRACE: cannot create the trace file '/nonexistent-dir/trace.json': No such file or "
                           "directory; expected a path in a writable directory");
  }
  try {
    TraceFile::open(std::filesystem::temp_directory_path().string(), "DeviceConfig::trace_path");
    FAIL() << "expected a ValidationError";
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("DeviceConfig::trace_path: cannot write the trace file"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TraceFile::open("", "test"), ValidationError);
}

} // namespace
} // namespace tessel::base
