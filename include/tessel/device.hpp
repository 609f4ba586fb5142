// Device: one simulated chip (a worker grid with L1 per core, DRAM banks, a
// NoC) plus its allocators and its command queue.
//
// Ownership: Device::open returns a shared_ptr; Buffers and CommandQueues
// hold the device alive. close() releases the simulated memory early; any
// later use of the device or its buffers throws.
// Thread-safety: one host thread at a time per device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/profiler.hpp"
#include "tessel/timing.hpp"

namespace tessel {

class CommandQueue;
class ProgramCache;
namespace sim {
class Chip;
}
namespace jit {
class KernelCache;
}
namespace runtime {
struct DeviceState;
}

struct DeviceConfig {
  std::string arch = "blackhole";       // "blackhole" or "wormhole_b0"
  uint32_t grid_x = 0, grid_y = 0;      // 0: the arch's full worker grid
  std::string policy = "deterministic"; // or "random:<seed>", "parallel", "parallel:<threads>"
  std::string kernel_cache_dir;         // empty: the default cache
  // The device-memory checker: every NoC transfer must stay inside one live
  // buffer, CB or semaphore. Unset: TESSEL_CHECK_MEMORY (1/0), else on.
  std::optional<bool> check_memory;
  // When NoC transfers land: "eager" (at issue) or "checked" (at their
  // barriers; a kernel that reads a read's destination, or changes a
  // write's source, before waiting is reported; docs/guide.md "NoC modes").
  // Checked runs under the deterministic and random policies only.
  // Unset: TESSEL_NOC, else eager.
  std::optional<std::string> noc;
  // The device profiler (profiler.hpp). Unset: on if TESSEL_PROFILER or
  // TT_METAL_DEVICE_PROFILER is 1, else off.
  std::optional<bool> profiler;
  // The event trace (docs/trace.md): a Chrome/Perfetto trace-event JSON file
  // of what every RISC did, streamed while the device runs and complete when
  // it closes. Devices naming the same file share it, one process each.
  // Unset: TESSEL_TRACE, else none; "": none.
  std::optional<std::string> trace_path;
  // With a trace: keep only the last N events of each RISC and write them
  // when the device closes (0: write every event as it happens; at most
  // kMaxTraceRingEvents). Unset: TESSEL_TRACE_RING, else 0.
  std::optional<uint64_t> trace_ring_events;
  // The cycle estimate (timing.hpp, docs/timing.md): every RISC's clock
  // counts estimated cycles, each run is reported (last_run_timing), and the
  // trace is stamped in estimated time. Unset: TESSEL_TIMING (0 or 1), else off.
  std::optional<bool> timing;
};

inline constexpr uint64_t kMaxTraceRingEvents = 10'000'000;

class Device : public std::enable_shared_from_this<Device> {
public:
  static std::shared_ptr<Device> open(const DeviceConfig& config = {});
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // Releases the simulated memory and drops the compiled programs (the
  // program cache is cleared: its generation changes). The device keeps its
  // generation().
  void close();
  bool is_open() const;
  // A number no other device opened in this process has (a device opened at
  // a destroyed one's address gets a new one): what caches of device state
  // outside the device key on.
  uint64_t generation() const;

  const std::string& arch_name() const;
  CoreCoord grid() const; // worker grid size (x columns, y rows)
  CoreCoord worker_core_from_logical_core(CoreCoord logical) const;
  uint32_t l1_size() const;
  uint32_t l1_alignment() const;
  uint32_t dram_alignment() const; // DRAM read alignment (page stride in a bank)
  uint32_t dram_banks() const;
  uint64_t dram_bank_size() const;
  uint32_t num_cb_indices() const;
  // The per-bank range buffers of a type are allocated from, and its use
  // (every bank of a type holds the same allocations).
  struct MemoryStatistics {
    uint64_t begin = 0, end = 0;     // allocatable [begin, end) in each bank
    uint64_t allocated_bytes = 0;    // per bank
    uint64_t largest_free_bytes = 0; // per bank
    uint64_t lowest_allocated = 0;   // end when nothing is allocated
  };
  MemoryStatistics memory_statistics(BufferType type) const;
  uint32_t clock_mhz() const;
  std::string policy() const;
  void set_policy(const std::string& policy);
  bool check_memory() const;
  std::string noc_mode() const; // "eager" or "checked"

  // The device profiler (profiler.hpp): whether kernels' markers are
  // recorded, and the records of the runs since the last clear, ordered by
  // core (row-major), RISC (BRISC, NCRISC, TRISC0..2), then time. Records
  // stay until cleared; a run that fails adds none.
  bool profiler_enabled() const;
  void set_profiler_enabled(bool on);
  std::vector<ProfilerRecord> profiler_records() const;
  void clear_profiler_records();

  // The event trace's file (absolute), or "" when the device is not traced;
  // and the ring's events per RISC (0: streaming).
  std::string trace_path() const;
  uint64_t trace_ring_events() const;

  // Whether the device estimates time, and the estimate of its last program
  // run (an empty report, runs == 0, before the first; throws
  // ValidationError when the device does not estimate time).
  bool timing_enabled() const;
  TimingReport last_run_timing() const;

  CommandQueue& command_queue();
  // Compiled programs reused by structure (program_cache.hpp): statistics and clear().
  ProgramCache& program_cache();

  // Internals for the runtime layer.
  runtime::DeviceState& state();

private:
  explicit Device(const DeviceConfig& config);
  std::unique_ptr<runtime::DeviceState> state_;
  std::unique_ptr<CommandQueue> queue_;
  std::unique_ptr<ProgramCache> program_cache_; // destroyed first: its programs came from this device
};

} // namespace tessel
