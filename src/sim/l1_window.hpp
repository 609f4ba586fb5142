// The low L1 window: an L1 offset used as a pointer reaches the running
// core's L1.
//
// Kernels get real pointers into their core's L1 from get_write_ptr and the
// like (memory.hpp), but Metalium kernels also cast L1 addresses the host
// hands them (an L1 buffer's address(), an offset computed from one) to
// pointers and read or write through them, as on silicon, where an L1 address
// is a pointer. Those offsets are the same on every core, so no one mapping
// can serve all cores. The low addresses [floor, 2 MiB) are kept reserved
// (PROT_NONE) and, when a kernel's access faults there, the window maps the
// running core's L1 over them (the L1 is a shared-memory file, so the window
// aliases the core's own bytes) and the access runs again. When the thread
// next runs a fiber of another core the window is unmapped, so that core's
// first access faults and maps its own L1: a core never sees another's bytes.
//
// Only while one thread runs kernels: page tables are per process, so under
// the parallel policy (or two devices running at once) the window is not
// mapped and the access is reported (l1_window_refusal says why). The floor
// is vm.mmap_min_addr (64 KiB): offsets below it, and past the core's L1,
// are reported too.
//
// Costs nothing to kernels that never use an offset as a pointer: a switch
// reads one atomic flag. One that does pays a fault and a mapping per switch
// to its core.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessel::sim {

struct Fiber;

// Why an access at a low address was not mapped (for the crash report).
enum class L1WindowRefusal : uint8_t {
  None,
  BelowFloor,  // under vm.mmap_min_addr: nothing can be mapped there
  PastL1,      // beyond the core's L1 size: no L1 there on silicon either
  ManyThreads, // another thread runs kernels at the same time
  Unsupported, // no shared-memory L1 or no low reservation on this host
};

// Reserves [floor, 2 MiB) (called once, when the fault handler is installed).
void l1_window_reserve();

// The lowest address the window can map.
uintptr_t l1_window_floor();

// How many times the window was mapped in this process (for tests).
uint64_t l1_window_map_count();

// From the fault handler (SIGSEGV at `address` while `f` runs): maps f's
// core's L1 over the window and returns true (the access runs again), or
// returns false and leaves `*refusal` set.
bool l1_window_map(Fiber* f, uintptr_t address, L1WindowRefusal* refusal);

namespace l1_window_detail {
extern std::atomic<const uint8_t*> g_mapped_l1; // the core whose L1 is mapped, or null
void release();
} // namespace l1_window_detail

// Before a thread runs a fiber of the core whose L1 is `l1`.
inline void l1_window_before_switch(const uint8_t* l1) {
  const uint8_t* mapped = l1_window_detail::g_mapped_l1.load(std::memory_order_relaxed);
  if (__builtin_expect(mapped != nullptr && mapped != l1, 0)) l1_window_detail::release();
}

// For its lifetime, the calling thread counts as one that runs kernels; a
// second one unmaps the window, and the last one out leaves it unmapped.
class L1WindowThread {
public:
  L1WindowThread();
  ~L1WindowThread();
  L1WindowThread(const L1WindowThread&) = delete;
  L1WindowThread& operator=(const L1WindowThread&) = delete;
};

} // namespace tessel::sim
