#include "base/park.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace tessel::base {

void park(ParkWord& w, uint32_t timeout_us) {
  timespec ts{time_t(timeout_us / 1000000), long(timeout_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w.parked), FUTEX_WAIT_PRIVATE, 1u, &ts, nullptr, 0);
}

void unpark(ParkWord& w) {
  // Pairs with the sleeper's store of 1 before its last check.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (w.parked.load(std::memory_order_relaxed) && w.parked.exchange(0) == 1)
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w.parked), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

} // namespace tessel::base
