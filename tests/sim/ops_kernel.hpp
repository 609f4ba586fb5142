// One data-movement kernel, "ops.cpp", that interprets a script given in its
// runtime arguments, so that the simulator and runtime tests share a single
// JIT-compiled binary (a distinct kernel costs a compile; a script is free).
//
// Runtime args: [0] step count, [1] NoC x, [2] NoC y, [3] L1 address of the
// record area (an L1 buffer on one core), then 8 words per step:
// op, a, b, c, d, e, f, g. "record(slot, v)" writes v to record word `slot`
// with an inline NoC write, so tests read results from the record buffer.
//
// Tests find the source line of a call by its marker comment (ops_line()).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/tessel.hpp"

// ThreadSanitizer defers asynchronous signals until the thread calls into
// the runtime: a kernel that calls nothing never gets the watchdog's signal.
#if defined(TESSEL_TSAN)
#define SKIP_UNDER_TSAN() GTEST_SKIP() << "TSan does not deliver the watchdog's signal to a kernel that calls nothing"
#else
#define SKIP_UNDER_TSAN()
#endif

namespace tessel::test {

inline constexpr const char* kOpsName = "ops.cpp";

inline const std::string& ops_source() {
  static const std::string source = R"KERNEL(// ops.cpp: script interpreter for the tessel simulator tests.
#include "api/dataflow/dataflow_api.h"

namespace {

__attribute__((noinline)) uint32_t recurse(uint32_t depth) {
  volatile uint8_t pad[1024];
  pad[0] = uint8_t(depth);
  if (depth == 0) return pad[0];
  return recurse(depth - 1) + pad[0];
}

volatile uint32_t* sem_ptr(uint32_t id) { return reinterpret_cast<volatile uint32_t*>(uintptr_t(get_semaphore(id))); }

uint64_t record_addr(uint32_t slot) {
  return get_noc_addr(get_arg_val<uint32_t>(1), get_arg_val<uint32_t>(2), get_arg_val<uint32_t>(3) + 4 * slot);
}

void record(uint32_t slot, uint32_t value) { noc_inline_dw_write(record_addr(slot), value); }

uint64_t rect(uint32_t packed, uint32_t addr) {
  return get_noc_multicast_addr(packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff, packed >> 24, addr);
}

// Appends tag to the log in record slots 1.. (slot 0 counts the entries).
// Nothing in between blocks, so the read-modify-write is atomic.
void log_tag(uint32_t tag, uint32_t scratch_sem) {
  const uint32_t local = get_semaphore(scratch_sem);
  noc_async_read(record_addr(0), local, 4);
  noc_async_read_barrier();
  const uint32_t n = *reinterpret_cast<volatile uint32_t*>(uintptr_t(local));
  record(1 + n, tag);
  record(0, n + 1);
}

} // namespace

void kernel_main() {
  const uint32_t steps = get_arg_val<uint32_t>(0);
  uint32_t counter = 0;
  uint32_t out_page = 0;
  for (uint32_t s = 0; s < steps; ++s) {
    uint32_t v[8];
    for (uint32_t w = 0; w < 8; ++w) v[w] = get_arg_val<uint32_t>(4 + 8 * s + w);
    const uint32_t a = v[1], b = v[2], c = v[3], d = v[4], e = v[5], f = v[6];
    switch (v[0]) {
    case 0:
      for (uint32_t r = 0; r < c; ++r) cb_reserve_back(a, b); // @reserve
      break;
    case 1:
      for (uint32_t r = 0; r < c; ++r) cb_push_back(a, b); // @push
      break;
    case 2:
      for (uint32_t r = 0; r < c; ++r) cb_wait_front(a, b); // @wait
      break;
    case 3:
      for (uint32_t r = 0; r < c; ++r) cb_pop_front(a, b); // @pop
      break;
    case 4: // produce c blocks of b pages of d bytes; words count up
      for (uint32_t r = 0; r < c; ++r) {
        cb_reserve_back(a, b);
        volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(uintptr_t(get_write_ptr(a)));
        for (uint32_t i = 0; i < b * d / 4; ++i) p[i] = counter++;
        cb_push_back(a, b);
      }
      break;
    case 5: { // consume c blocks of b pages of d bytes: to DRAM buffer e, or check the count-up words
      const InterleavedAddrGen<true> out = {e, d};
      for (uint32_t r = 0; r < c; ++r) {
        cb_wait_front(a, b);
        const uint32_t rd = get_read_ptr(a);
        if (e) {
          for (uint32_t p = 0; p < b; ++p) noc_async_write_page(out_page++, out, rd + p * d);
          noc_async_write_barrier();
        } else {
          volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(uintptr_t(rd));
          for (uint32_t i = 0; i < b * d / 4; ++i) ASSERT(p[i] == counter++);
        }
        cb_pop_front(a, b);
      }
      break;
    }
    case 10:
      noc_async_read(get_noc_addr(a, b, c), d, e); // @read
      noc_async_read_barrier();
      break;
    case 11:
      noc_async_write(d, get_noc_addr(a, b, c), e); // @write
      noc_async_write_barrier();
      break;
    case 12:
      noc_async_read(get_noc_addr_from_bank_id<true>(a, c), d, e); // @read_dram
      noc_async_read_barrier();
      break;
    case 13:
      noc_async_write(d, get_noc_addr_from_bank_id<true>(a, c), e); // @write_dram
      noc_async_write_barrier();
      break;
    case 14:
      if (f)
        noc_async_write_multicast_loopback_src(c, rect(a, b), d, e); // @mcast_loopback
      else
        noc_async_write_multicast(c, rect(a, b), d, e); // @mcast
      noc_async_write_barrier();
      break;
    case 15:
      noc_inline_dw_write(get_noc_addr(a, b, c), d, uint8_t(e)); // @inline
      break;
    case 16:
      noc_semaphore_inc(get_noc_addr(a, b, get_semaphore(c)), d); // @sem_inc
      noc_async_atomic_barrier();
      break;
    case 17:
      if (e)
        noc_semaphore_set_multicast_loopback_src(get_semaphore(c), rect(a, get_semaphore(b)), d);
      else
        noc_semaphore_set_multicast(get_semaphore(c), rect(a, get_semaphore(b)), d); // @sem_set_mcast
      break;
    case 20:
      noc_semaphore_wait(sem_ptr(a), b); // @sem_wait
      break;
    case 21:
      noc_semaphore_wait_min(sem_ptr(a), b); // @sem_wait_min
      break;
    case 22:
      noc_semaphore_set(sem_ptr(a), b);
      break;
    case 23:
      *sem_ptr(a) = b; // a plain store, no API call
      break;
    case 24:
      record(b, *sem_ptr(a));
      break;
    case 25:
      record(b, get_write_ptr(a)); // @get_write_ptr
      break;
    case 26:
      record(b, get_read_ptr(a));
      break;
    case 27:
      record(a, b);
      break;
    case 28:
      record(a, counter);
      break;
    case 30:
      *reinterpret_cast<volatile uint32_t*>(uintptr_t(a)) = b; // @fault_store
      break;
    case 31:
      record(b, recurse(a)); // @recurse
      break;
    case 32:
      record(b, get_arg_val<uint32_t>(a)); // @arg
      break;
    case 33:
      record(b, get_semaphore(a)); // @get_semaphore
      break;
    case 34:
      record(b, get_common_arg_val<uint32_t>(a)); // @common_arg
      break;
    case 35: // make a NoC address of (a, b) without using it; record its top nibble
      record(c, uint32_t(get_noc_addr(a, b, 0) >> 60));
      break;
    case 40: // a=cb, b=rounds, c=tag, d=0 producer / 1 consumer, e=scratch semaphore
      for (uint32_t r = 0; r < b; ++r) {
        if (d == 0) {
          cb_reserve_back(a, 1);
          cb_push_back(a, 1);
        } else {
          cb_wait_front(a, 1);
          cb_pop_front(a, 1);
        }
        log_tag(c, e);
      }
      break;
    default:
      ASSERT(false); // unknown op
    }
  }
}
)KERNEL";
  return source;
}

// 1-based line of the ops source that carries "// @marker".
// The line of `source` that carries the comment "// @marker".
inline uint32_t marker_line(const std::string& source, const std::string& marker) {
  std::istringstream in(source);
  std::string line;
  const std::string tag = "// @" + marker;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    const auto at = line.find(tag);
    if (at != std::string::npos && (at + tag.size() == line.size() || line[at + tag.size()] == ' ')) return n;
  }
  ADD_FAILURE() << "no marker " << tag << " in the kernel source";
  return 0;
}

// "name:N", N the line of `source` marked `// @marker`.
inline std::string marker_site(const char* name, const std::string& source, const std::string& marker) {
  return std::string(name) + ":" + std::to_string(marker_line(source, marker));
}

// "name:N: core (0,0) COMPUTE: ", how a compute kernel's error at that line begins.
inline std::string compute_error_at(const char* name, const std::string& source, const std::string& marker) {
  return marker_site(name, source, marker) + ": core (0,0) COMPUTE: ";
}

inline uint32_t ops_line(const std::string& marker) { return marker_line(ops_source(), marker); }

inline std::string ops_site(const std::string& marker) {
  return std::string(kOpsName) + ":" + std::to_string(ops_line(marker));
}

enum Op : uint32_t {
  kReserve = 0,
  kPush = 1,
  kWait = 2,
  kPop = 3,
  kProduce = 4,
  kConsume = 5,
  kRead = 10,
  kWrite = 11,
  kReadDram = 12,
  kWriteDram = 13,
  kMcast = 14,
  kInline = 15,
  kSemInc = 16,
  kSemSetMcast = 17,
  kSemWait = 20,
  kSemWaitMin = 21,
  kSemSet = 22,
  kSemStore = 23,
  kRecordSem = 24,
  kRecordWrPtr = 25,
  kRecordRdPtr = 26,
  kRecordValue = 27,
  kRecordCounter = 28,
  kFaultStore = 30,
  kRecurse = 31,
  kArg = 32,
  kGetSemaphore = 33,
  kCommonArg = 34,
  kMakeNocAddr = 35,
  kPingPongLog = 40,
};

// NoC rectangle packed for kMcast / kSemSetMcast (corners as given).
inline uint32_t pack_rect(CoreCoord start, CoreCoord end) {
  return start.x | (start.y << 8) | (end.x << 16) | (end.y << 24);
}

class Script {
public:
  Script& op(uint32_t code, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0, uint32_t e = 0,
             uint32_t f = 0, uint32_t g = 0) {
    steps_.insert(steps_.end(), {code, a, b, c, d, e, f, g});
    return *this;
  }
  // The runtime args for a kernel recording into the area at (noc, l1_address).
  std::vector<uint32_t> args(CoreCoord record_noc, uint32_t record_l1_address) const {
    std::vector<uint32_t> v = {uint32_t(steps_.size() / 8), record_noc.x, record_noc.y, record_l1_address};
    v.insert(v.end(), steps_.begin(), steps_.end());
    return v;
  }

private:
  std::vector<uint32_t> steps_;
};

// A 4 KiB L1 buffer that lives on logical core (0,0): kernels record results in it.
struct Recorder {
  std::shared_ptr<Buffer> buffer;
  CoreCoord noc;
  static constexpr uint32_t kBytes = 4096;

  explicit Recorder(const std::shared_ptr<Device>& device)
      : buffer(Buffer::create(device, {kBytes, kBytes, BufferType::L1})),
        noc(device->worker_core_from_logical_core({0, 0})) {
    clear();
  }
  void clear() {
    std::vector<uint32_t> zeros(kBytes / 4, 0);
    buffer->write(zeros.data(), kBytes);
  }
  std::vector<uint32_t> read() const {
    std::vector<uint32_t> v(kBytes / 4);
    buffer->read(v.data(), kBytes);
    return v;
  }
  uint32_t at(uint32_t slot) const { return read().at(slot); }
};

inline KernelHandle add_ops(Program& program, const CoreRangeSet& cores,
                            DataMovementProcessor processor = DataMovementProcessor::RISCV_0) {
  return program.add_kernel_from_source(ops_source(), kOpsName, cores,
                                        DataMovementConfig{processor, processor == DataMovementProcessor::RISCV_0
                                                                          ? NOC::RISCV_0_default
                                                                          : NOC::RISCV_1_default});
}

inline void set_script(Program& program, KernelHandle kernel, const CoreRangeSet& cores, const Script& script,
                       const Recorder& recorder) {
  program.set_runtime_args(kernel, cores, script.args(recorder.noc, recorder.buffer->address()));
}

// The source line of a fault comes from addr2line (binutils).
inline bool have_addr2line() { return std::system("command -v addr2line >/dev/null 2>&1") == 0; }

// One CB index of total_bytes in pages of page_bytes, Float16_b.
inline CircularBufferConfig one_cb_config(uint32_t total_bytes, uint32_t page_bytes, uint8_t index = 0) {
  CircularBufferConfig config(total_bytes, {{index, DataFormat::Float16_b}});
  config.set_page_size(index, page_bytes);
  return config;
}

// Runs a small correct program on `device` (core (0,0), BRISC) and checks its result.
inline void expect_device_works(const std::shared_ptr<Device>& device) {
  Recorder rec(device);
  Program program;
  KernelHandle k = add_ops(program, CoreCoord{0, 0});
  set_script(program, k, CoreCoord{0, 0}, Script().op(kRecordValue, 0, 0x600D).op(kRecordValue, 1, 0xF00D), rec);
  ASSERT_NO_THROW(device->command_queue().enqueue_program(program));
  const auto words = rec.read();
  EXPECT_EQ(words[0], 0x600Du);
  EXPECT_EQ(words[1], 0xF00Du);
}

inline std::shared_ptr<Device> open_device(const std::string& arch = "blackhole", uint32_t gx = 2, uint32_t gy = 2,
                                           const std::string& policy = "deterministic") {
  DeviceConfig config;
  config.arch = arch;
  config.grid_x = gx;
  config.grid_y = gy;
  config.policy = policy;
  return Device::open(config);
}

// Runs `program` expecting an exception of type E; returns its message.
template <class E>
std::string error_of(CommandQueue& queue, Program& program) {
  try {
    queue.enqueue_program(program);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "enqueue_program did not throw";
  return {};
}

// Runs `fn` expecting an exception of type E; returns its message.
template <class E, class F>
std::string error_from(F&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "the call did not throw";
  return {};
}

// A policy as a test-name suffix: "random:1" -> "random_1".
inline std::string policy_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (ch == ':') ch = '_';
  return name;
}

inline std::vector<std::string> policies() {
  return {"deterministic", "random:1", "random:42", "random:20250101", "parallel:2", "parallel:3"};
}

} // namespace tessel::test
