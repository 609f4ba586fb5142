#include "sim/chip_group.hpp"

#include <vector>

#include "sim/fault.hpp"
#include "sim/l1_window.hpp"
#include "sim/watchdog.hpp"
#include "tessel/error.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::sim {

namespace {

// The chips whose runs have begun and not ended: stopped together when one fails.
class GroupRuns {
public:
  explicit GroupRuns(std::span<const ChipLaunches> runs) : runs_(runs), open_(runs.size(), false) {}
  ~GroupRuns() { abort_all(); }
  void opened(size_t i) { open_[i] = true; }
  void closed(size_t i) { open_[i] = false; }
  void abort_all() noexcept {
    for (size_t i = 0; i < runs_.size(); ++i)
      if (open_[i]) {
        open_[i] = false;
        runs_[i].chip->abort_group_run(runs_[i].launches);
      }
  }

private:
  std::span<const ChipLaunches> runs_;
  std::vector<bool> open_;
};

[[noreturn]] void throw_group_deadlock(std::span<const ChipLaunches> runs) {
  size_t blocked = 0;
  std::string rows;
  for (const ChipLaunches& r : runs)
    rows += r.chip->deadlock_rows(r.chip->label(), blocked);
  throw DeadlockError("deadlock across " + std::to_string(runs.size()) + " devices: no RISC can make progress (" +
                      std::to_string(blocked) + " blocked):" + rows);
}

} // namespace

void run_chips(std::span<const ChipLaunches> runs) {
  if (runs.empty()) return;
  if (runs.size() == 1) return runs[0].chip->run(runs[0].launches);
  WatchSlot& watch = watch_slot();
  GroupRuns group(runs);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].chip->begin_group_run(runs[i].launches, watch);
    group.opened(i);
  }
  WatchScope watching(watch, watchdog_timeout_ms_from_env());
  L1WindowThread window_thread;
  for (;;) {
    if (__builtin_expect(interrupt_requested(), 0)) {
      group.abort_all();
      throw Interrupted("the run of " + std::to_string(runs.size()) +
                        " devices was interrupted (tessel::request_interrupt, Ctrl-C); it was stopped and the "
                        "devices stay usable");
    }
    bool ran = false, finished = true;
    for (size_t i = 0; i < runs.size(); ++i) {
      Chip& chip = *runs[i].chip;
      if (chip.run_finished()) continue;
      try {
        ran |= chip.run_slice(runs[i].launches, kSliceSwitches);
      } catch (...) {
        group.closed(i); // its run aborted itself
        group.abort_all();
        throw;
      }
      finished &= chip.run_finished();
    }
    if (finished) break;
    if (ran) continue;
    bool woke = false;
    for (const ChipLaunches& r : runs)
      woke |= !r.chip->run_finished() && r.chip->poll_waiters();
    if (woke) continue;
    try {
      throw_group_deadlock(runs);
    } catch (...) {
      group.abort_all();
      throw;
    }
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    group.closed(i);
    runs[i].chip->end_group_run(runs[i].launches);
  }
}

} // namespace tessel::sim
