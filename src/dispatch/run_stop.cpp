// The end of a persistent run: stop (drain, EXIT, the kernels' return, the
// read-back) under one deadline, and abort, its failure path (run.hpp states
// the rules).
#include "tessel/dispatch/run.hpp"

#include <algorithm>

#include "dispatch/run_state.hpp"
#include "dispatch/session_state.hpp"
#include "runtime/device_state.hpp"
#include "tessel/dispatch/errors.hpp"

namespace tessel::dispatch {

namespace {
using Clock = std::chrono::steady_clock;

// What is left of a deadline, in seconds, and at least `least`.
double left_of(Clock::time_point deadline, double least = 0.0) {
  return std::max(least, std::chrono::duration<double>(deadline - Clock::now()).count());
}
// A passed deadline leaves an abort the least it can wait for the grid (1 ms).
constexpr double kLeastGridStopS = 0.001;
} // namespace

ResultBlock Run::stop(double timeout_s) {
  Impl& r = *impl_;
  if (r.stopped) return r.result;
  const auto deadline = after(timeout_s);
  std::optional<std::string> drain_error;
  // X280 threads still running are stopped and their ends waited for: their
  // commands come before EXIT.
  if (!r.threads.empty()) r.wait_threads(left_of(deadline), true);
  if (!r.card_finished()) {
    // Every engine still running (or unknown) is cancelled and its end waited for.
    try {
      for (const std::shared_ptr<EngineHandle>& h : std::vector(r.engines)) {
        try {
          cancel(h, left_of(deadline));
          if (!h->end) wait_engine(h, left_of(deadline));
        } catch (const EngineError&) {    // its cancelled (or another) error event: it ended
        } catch (const EngineRejected&) { // an unknown RUN that was rejected: it never ran
        }
      }
    } catch (const WaitTimeout& e) {
      r.abort(left_of(deadline, kLeastGridStopS));
      throw EngineTimeout(std::string("Run.stop: ") + e.what() + "; the run was aborted", nullptr);
    }
  }
  if (!r.card_finished()) {
    try {
      r.drain(left_of(deadline), false);
    } catch (const WaitTimeout& e) {
      drain_error = e.what();
    } catch (const KernelFailed&) {
      throw;
    }
  }
  if (drain_error) {
    r.abort(left_of(deadline, kLeastGridStopS));
    throw WaitTimeout(std::string("Run.stop: ") + *drain_error + "; the run was aborted", {});
  }
  if (!r.card_finished() && !r.exit_sent) {
    CommandLine exit{};
    exit.handler_flags = KM_HANDLER_EXIT;
    r.queue.push_back(exit);
    r.exit_sent = true;
  }
  const bool finished = r.wait_until([&] { return r.card_finished(); }, deadline);
  if (!finished) {
    r.abort(left_of(deadline, kLeastGridStopS));
    throw WaitTimeout("Run.stop: the kernels did not return within " + std::to_string(timeout_s) +
                          " s of EXIT; the run was aborted",
                      {});
  }
  r.join_card();
  r.read_back();
  r.session->log("kernel finished: " + std::to_string(r.result.commands) + " commands, state " +
                 std::to_string(r.result.state) + ", error " + r.result.error_name);
  r.session->log("read back: " + std::to_string(r.cores) + " cores' state words");
  if (r.result.state != KM_STATE_DONE || r.result.error != KM_ERROR_NONE || !r.failure.empty())
    throw KernelFailed("Run.stop: the kernel did not finish cleanly (error " + r.result.error_name + ")" +
                           (r.result.message.empty() ? "" : ": " + r.result.message),
                       r.result);
  return r.result;
}

ResultBlock Run::abort() { return impl_->abort(0.0); }

ResultBlock Run::Impl::abort(double grid_stop_s) {
  Impl& r = *this;
  if (r.stopped) return r.result;
  if (grid_stop_s > 0)
    r.memory->stop_within_ticks.store(std::max<uint64_t>(1, uint64_t(grid_stop_s * KM_TIMER_MHZ * 1e6)),
                                      std::memory_order_release);
  r.dispatcher->host_aborting();
  r.memory->stop.store(1, std::memory_order_seq_cst);
  unpark(r.memory->card_park);
  const double wait_s = r.session->config.grid_timeout_s + 2.0;
  const auto deadline = after(wait_s);
  while (!r.card_finished() && Clock::now() < deadline) {
    r.memory->host_park.parked.store(1);
    if (!r.card_finished()) park(r.memory->host_park, 10000);
    r.memory->host_park.parked.store(0);
  }
  if (!r.card_finished()) {
    // A kernel that never reaches a scheduling point (a spin with the
    // watchdog off): nothing can stop its thread. It is left running, and
    // the session keeps the device open (spec: GridTimeout).
    r.card_lost = true;
    r.card.detach();
    if (auto& grid = r.session->device->state().persistent) grid->lost = true;
    r.stopped = true;
    r.session->log("grid timeout: the grid's kernels did not return within " + std::to_string(wait_s) +
                   " s; the device stays open until the process exits");
    throw GridTimeout("Run.abort: the grid's kernels did not return within " + std::to_string(wait_s) +
                      " s (grid_timeout + 2 s): a kernel that never reaches a kernel API call, with the watchdog off "
                      "(TESSEL_WATCHDOG_S=0)? The device stays open until the process exits");
  }
  r.read_events();
  r.join_card();
  r.read_back();
  r.log_kernel_state();
  r.session->log("run aborted: " + std::to_string(r.result.abandoned.size()) + " commands abandoned");
  return r.result;
}

} // namespace tessel::dispatch
