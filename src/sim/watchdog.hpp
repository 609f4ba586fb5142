// Watchdog: finds a kernel that runs for a long time without calling into the
// simulator (a raw spin loop on L1, which on fibers never yields), and stops
// it with a report instead of hanging the host.
//
// Each host thread that runs fibers has a WatchSlot. The simulator bumps the
// slot's progress counter on every kernel API call and every fiber switch
// (a plain relaxed store: no lock, no fence). A background thread samples the
// counters; when a thread inside Chip::run shows no progress for the timeout,
// it sends that thread kWatchdogSignal. The fault handler turns the signal
// into a fault of the running fiber, reported with its source line.
//
// Invariant: a slot is signalled only while its thread is inside Chip::run,
// and only under the registry lock, which the thread's exit also takes.
#pragma once

#include <signal.h>

#include <atomic>
#include <cstdint>

namespace tessel::sim {

inline constexpr int kWatchdogSignal = SIGUSR2;

struct WatchSlot {
  std::atomic<uint64_t> progress{0};
  std::atomic<uint32_t> running{0};
  std::atomic<uint32_t> timeout_ms{0};
};

// This thread's slot, registered on first use.
WatchSlot& watch_slot();

inline void note_progress(std::atomic<uint64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Marks this thread as running kernels for the guard's lifetime.
class WatchScope {
public:
  // timeout_ms == 0 disables the watchdog for this run.
  WatchScope(WatchSlot& slot, uint32_t timeout_ms);
  ~WatchScope();
  WatchScope(const WatchScope&) = delete;
  WatchScope& operator=(const WatchScope&) = delete;

private:
  WatchSlot& slot_;
};

// TESSEL_WATCHDOG_S (seconds, may be fractional; 0 disables), default 10.
uint32_t watchdog_timeout_ms_from_env();

} // namespace tessel::sim
