#include "sim/chip_group.hpp"

#include <exception>
#include <string>
#include <vector>

#include "sim/fabric.hpp"
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

namespace {

// The kind of error e is, for the other ranks to throw the same.
uint32_t failure_kind(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const KernelFault&) {
    return FabricPeers::kKernelFault;
  } catch (const KernelError&) {
    return FabricPeers::kKernelError;
  } catch (const Interrupted&) {
    return FabricPeers::kInterrupted;
  } catch (...) {
    return FabricPeers::kOther;
  }
}

std::string message_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an unknown error";
  }
}

[[noreturn]] void throw_failure(uint32_t kind, const std::string& message) {
  switch (kind) {
  case FabricPeers::kKernelFault: throw KernelFault(message);
  case FabricPeers::kKernelError: throw KernelError(message);
  case FabricPeers::kInterrupted: throw Interrupted(message);
  default: throw Error(message);
  }
}

} // namespace

void run_chips(std::span<const ChipLaunches> runs, Fabric& fabric, FabricPeers& peers) {
  const std::string rank = "rank " + std::to_string(peers.rank()) + ": ";
  WatchSlot& watch = watch_slot();
  GroupRuns group(runs);
  std::exception_ptr failed;
  try {
    for (size_t i = 0; i < runs.size(); ++i) {
      runs[i].chip->begin_group_run(runs[i].launches, watch);
      group.opened(i);
    }
  } catch (...) {
    failed = std::current_exception();
    group.abort_all();
  }
  WatchScope watching(watch, watchdog_timeout_ms_from_env());
  L1WindowThread window_thread;
  for (;;) {
    bool progress = false;
    if (!failed) {
      try {
        if (__builtin_expect(interrupt_requested(), 0))
          throw Interrupted("the run was interrupted (tessel::request_interrupt, Ctrl-C); it was stopped on every "
                            "rank and the devices stay usable");
        for (size_t i = 0; i < runs.size(); ++i) {
          if (runs[i].chip->run_finished()) continue;
          try {
            progress |= runs[i].chip->run_slice(runs[i].launches, kSliceSwitches);
          } catch (...) {
            group.closed(i); // its run aborted itself
            throw;
          }
        }
        if (!progress)
          for (size_t i = 0; i < runs.size(); ++i)
            progress |= !runs[i].chip->run_finished() && runs[i].chip->poll_waiters();
      } catch (...) {
        failed = std::current_exception();
        group.abort_all();
      }
    }
    bool all_done = true;
    for (size_t i = 0; i < runs.size(); ++i)
      all_done &= failed || runs[i].chip->run_finished();
    const std::string failure = failed ? rank + message_of(failed) : std::string();
    const FabricPeers::Round round =
        peers.exchange(fabric, progress, all_done, failure, failed ? failure_kind(failed) : FabricPeers::kNone);
    if (std::string delivered = fabric.take_delivery_failure(); !delivered.empty() && !failed) {
      // A packet from another rank could not land here: this rank fails at the next exchange.
      failed = std::make_exception_ptr(KernelError(delivered));
      group.abort_all();
      continue;
    }
    if (!round.failure.empty()) {
      group.abort_all();
      throw_failure(round.failure_kind, round.failure);
    }
    // Done when every rank is, and no packet crossed in this round (a
    // delivery failure on the receiving rank is reported at the next one).
    if (round.all_finished && !round.any_packets) break;
    if (!round.any_progress) {
      size_t blocked = 0;
      std::string rows;
      for (const ChipLaunches& r : runs)
        rows += r.chip->deadlock_rows(rank + r.chip->label(), blocked);
      const std::string all_rows = peers.gather_text(rows);
      // Every rank's blocked RISCs and running chips, as "blocked,chips;".
      const std::string counts = peers.gather_text(std::to_string(blocked) + "," + std::to_string(runs.size()) + ";");
      size_t total = 0, chips = 0;
      for (size_t at = 0; at < counts.size();) {
        const size_t comma = counts.find(',', at), semicolon = counts.find(';', comma);
        total += std::stoul(counts.substr(at, comma - at));
        chips += std::stoul(counts.substr(comma + 1, semicolon - comma - 1));
        at = semicolon + 1;
      }
      group.abort_all();
      throw DeadlockError("deadlock across " + std::to_string(chips) + " devices on " + std::to_string(peers.size()) +
                          " ranks: no RISC can make progress (" + std::to_string(total) + " blocked):" + all_rows);
    }
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    group.closed(i);
    runs[i].chip->end_group_run(runs[i].launches);
  }
}

} // namespace tessel::sim
