#include "sim/l1_window.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "sim/chip.hpp"
#include "sim/memory.hpp"

namespace tessel::sim {

namespace l1_window_detail {
std::atomic<const uint8_t*> g_mapped_l1{nullptr};
} // namespace l1_window_detail

namespace {

using l1_window_detail::g_mapped_l1;

constexpr uintptr_t kTop = DeviceMemory::kSlotBytes; // the window's reservation ends here

uintptr_t g_floor = 0;     // 0: nothing reserved, the window is off
size_t g_mapped_bytes = 0; // of the current mapping, from g_floor
uint32_t g_threads = 0;    // threads running kernels now
uint64_t g_maps = 0;       // mappings made
std::atomic_flag g_lock;   // guards the four above and the mapping
thread_local uint32_t t_depth = 0;

// A spin lock: the signal handler takes it too (never on a thread that holds it).
struct Locked {
  Locked() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Locked() { g_lock.clear(std::memory_order_release); }
};

uintptr_t min_mappable_address() {
  unsigned long value = 0x10000;
  if (FILE* f = std::fopen("/proc/sys/vm/mmap_min_addr", "r")) {
    if (std::fscanf(f, "%lu", &value) != 1) value = 0x10000;
    std::fclose(f);
  }
  return value;
}

void unmap_locked() {
  if (g_mapped_bytes != 0)
    mmap(reinterpret_cast<void*>(g_floor), g_mapped_bytes, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  g_mapped_bytes = 0;
  g_mapped_l1.store(nullptr, std::memory_order_relaxed);
}

} // namespace

void l1_window_reserve() {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t floor = (std::max<uintptr_t>(min_mappable_address(), page) + page - 1) & ~(page - 1);
  // Page by page, so that a page something else holds only raises the floor;
  // the window maps only over its own reservation.
  for (uintptr_t a = kTop; a > floor;) {
    a -= page;
    void* p = mmap(reinterpret_cast<void*>(a), page, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
    if (p != reinterpret_cast<void*>(a)) {
      if (p != MAP_FAILED) munmap(p, page);
      floor = a + page;
      break;
    }
  }
  g_floor = floor < kTop ? floor : 0;
}

uintptr_t l1_window_floor() { return g_floor; }

uint64_t l1_window_map_count() {
  Locked lock;
  return g_maps;
}

bool l1_window_map(Fiber* f, uintptr_t address, L1WindowRefusal* refusal) {
  *refusal = L1WindowRefusal::None;
  if (address >= kTop) return false;
  DeviceMemory& memory = f->core->chip->memory();
  if (g_floor == 0 || memory.l1_fd() < 0) {
    *refusal = L1WindowRefusal::Unsupported;
    return false;
  }
  if (address < g_floor) {
    *refusal = L1WindowRefusal::BelowFloor;
    return false;
  }
  if (address >= memory.l1_size_bytes()) {
    *refusal = L1WindowRefusal::PastL1;
    return false;
  }
  Locked lock;
  if (g_threads != 1) {
    *refusal = L1WindowRefusal::ManyThreads;
    return false;
  }
  if (g_mapped_l1.load(std::memory_order_relaxed) == f->core->l1) return true; // mapped since the fault
  const size_t bytes = memory.l1_size_bytes() - g_floor;
  void* p = mmap(reinterpret_cast<void*>(g_floor), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 memory.l1_fd(), off_t(memory.l1_file_offset(f->core->index) + g_floor));
  if (p == MAP_FAILED) {
    unmap_locked();
    *refusal = L1WindowRefusal::Unsupported;
    return false;
  }
  g_mapped_bytes = bytes;
  ++g_maps;
  g_mapped_l1.store(f->core->l1, std::memory_order_relaxed);
  return true;
}

void l1_window_detail::release() {
  Locked lock;
  unmap_locked();
}

L1WindowThread::L1WindowThread() {
  if (t_depth++ != 0) return;
  Locked lock;
  if (++g_threads > 1) unmap_locked();
}

L1WindowThread::~L1WindowThread() {
  if (--t_depth != 0) return;
  Locked lock;
  --g_threads;
  unmap_locked();
}

} // namespace tessel::sim
