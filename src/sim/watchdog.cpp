#include "sim/watchdog.hpp"

#include "base/env.hpp"
#include "sim/progress.hpp"
#include "tessel/interrupt.hpp"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tessel::sim {

namespace {

// W3: how long a stalled thread may go without a looking call before it is
// signalled. Loops of kernel calls reach one within microseconds.
constexpr auto kSignalGrace = std::chrono::milliseconds(100);
// W4: how long past its stop time a thread may go on before it is signalled
// (a thread that switches fibers handles its own stop within microseconds),
// and how often it is signalled again while it goes on (a signal that lands
// in the runtime's own code is dropped: fault.cpp).
constexpr int64_t kStopGraceNs = 20'000'000;
constexpr auto kStopRepeat = std::chrono::milliseconds(25);

struct Entry {
  WatchSlot* slot;
  pthread_t thread;
  uint64_t last_progress = 0;
  std::chrono::steady_clock::time_point last_change;
  std::chrono::steady_clock::time_point signal_at;      // while stalled
  uint64_t interrupt_samples = 0;                       // samples that saw an interrupt request while running
  std::chrono::steady_clock::time_point stop_signal_at; // W4: not before this
};

// An interrupt request normally stops a run at its next fiber switch; a run
// still going this many samples later has a fiber that does not switch, and is
// signalled (W3) to stop it, and again every kInterruptSamples samples.
constexpr uint64_t kInterruptSamples = 2;

// Both live until the process has ended: the watchdog thread is detached and
// may still sample while the process runs its exit handlers and destroys
// statics (a grid left spinning after a GridTimeout keeps its slot running).
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<Entry>& registry() {
  static auto* r = new std::vector<Entry>;
  return *r;
}

void watchdog_loop() {
  using Clock = std::chrono::steady_clock;
  std::vector<const WatchSlot*> running;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::lock_guard lock(registry_mutex());
    const auto now = Clock::now();
    const bool interrupted = interrupt_requested();
    running.clear();
    for (const Entry& e : registry())
      if (e.slot->running.load(std::memory_order_relaxed)) running.push_back(e.slot);
    const int64_t now_ns = steady_ns();
    sample_progress(running, now_ns);
    for (Entry& e : registry()) {
      if (interrupted && e.slot->running.load(std::memory_order_relaxed) &&
          e.slot->interruptible.load(std::memory_order_relaxed)) {
        if (++e.interrupt_samples % kInterruptSamples == 0) pthread_kill(e.thread, kWatchdogSignal);
      } else {
        e.interrupt_samples = 0;
      }
      const int64_t stop_at = e.slot->stop_at_ns.load(std::memory_order_relaxed);
      if (stop_at != 0 && e.slot->running.load(std::memory_order_relaxed) && now_ns - stop_at >= kStopGraceNs &&
          now >= e.stop_signal_at) {
        e.slot->stopping.store(1, std::memory_order_relaxed); // W4
        pthread_kill(e.thread, kWatchdogSignal);
        e.stop_signal_at = now + kStopRepeat;
      }
      const uint64_t p = e.slot->progress();
      const uint32_t timeout = e.slot->timeout_ms.load(std::memory_order_relaxed);
      if (p != e.last_progress || !e.slot->running.load(std::memory_order_relaxed) || timeout == 0) {
        e.last_progress = p;
        e.last_change = now;
        continue;
      }
      if (now - e.last_change < std::chrono::milliseconds(timeout)) continue;
      if (e.slot->stalled() != p + 1) {
        e.slot->mark_stalled(p); // W1
        e.signal_at = now + kSignalGrace;
      } else if (now >= e.signal_at) {
        pthread_kill(e.thread, kWatchdogSignal);                // W3
        e.signal_at = now + std::chrono::milliseconds(timeout); // still stuck: again after another timeout
      }
    }
  }
}

void start_watchdog_thread() {
  static std::once_flag once;
  std::call_once(once, [] { std::thread(watchdog_loop).detach(); });
}

// Owns this thread's slot; unregisters it when the thread exits.
struct ThreadSlot {
  std::unique_ptr<WatchSlot> slot = std::make_unique<WatchSlot>();
  ThreadSlot() {
    std::lock_guard lock(registry_mutex());
    registry().push_back({slot.get(), pthread_self(), 0, std::chrono::steady_clock::now()});
  }
  ~ThreadSlot() {
    std::lock_guard lock(registry_mutex());
    auto& r = registry();
    for (size_t i = 0; i < r.size(); ++i)
      if (r[i].slot == slot.get()) {
        r[i] = r.back();
        r.pop_back();
        break;
      }
  }
};

} // namespace

WatchSlot& watch_slot() {
  thread_local ThreadSlot t;
  return *t.slot;
}

WatchScope::WatchScope(WatchSlot& slot, uint32_t timeout_ms, bool progress) : slot_(slot) {
  start_watchdog_thread(); // also for interrupt requests when the timeout is off
  slot_.timeout_ms.store(timeout_ms, std::memory_order_relaxed);
  slot_.pages.store(0, std::memory_order_relaxed);
  slot_.run_start_ns.store(steady_ns(), std::memory_order_relaxed);
  slot_.shows_progress.store(progress && progress_wanted() ? 1 : 0, std::memory_order_relaxed);
  slot_.stop_at_ns.store(0, std::memory_order_relaxed);
  slot_.stopping.store(0, std::memory_order_relaxed);
  slot_.interruptible.store(1, std::memory_order_relaxed);
  note_progress(slot_);
  slot_.running.store(1, std::memory_order_release);
}

WatchScope::~WatchScope() {
  slot_.running.store(0, std::memory_order_release);
  slot_.stop_at_ns.store(0, std::memory_order_relaxed);
  if (progress_line_shown()) {
    std::lock_guard lock(registry_mutex());
    const auto& r = registry();
    if (std::none_of(r.begin(), r.end(), [](const Entry& e) { return e.slot->running.load(); })) end_progress_line();
  }
}

uint32_t watchdog_timeout_ms_from_env() {
  const double s = base::env_seconds("TESSEL_WATCHDOG_S", 10.0);
  if (s > 0 && s < 0.001) return 1; // a positive limit never turns the watchdog off
  return s >= 4.0e6 ? 4000000000u : uint32_t(s * 1000.0);
}

} // namespace tessel::sim
