// The host's side of a run's X280 threads (x280_thread.hpp): their results
// and their regions.
#include "dispatch/run_state.hpp"
#include "dispatch/session_state.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/run.hpp"

namespace tessel::dispatch {

std::vector<X280ThreadResult> Run::Impl::wait_threads(double timeout_s, bool stop) {
  using Clock = std::chrono::steady_clock;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  if (stop)
    for (auto& t : threads)
      t->request_stop();
  std::vector<X280ThreadResult> out;
  for (size_t i = 0; i < threads.size(); ++i) {
    if (!thread_results[i]) {
      // Stopping: the thread has the grace of a stop request to return, then it is killed.
      const double left = stop ? 0.0 : std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count());
      thread_results[i] = threads[i]->wait(left);
      const X280ThreadResult& r = *thread_results[i];
      session->log("X280 thread on cluster " + std::to_string(r.cluster) + " ended: " + r.status + ", value " +
                   std::to_string(r.value) + ", " + std::to_string(r.commands) + " commands" +
                   (r.error.empty() ? "" : ": " + r.error));
    }
    out.push_back(*thread_results[i]);
  }
  return out;
}

std::vector<X280ThreadResult> Run::thread_result(double timeout_s) {
  Impl& r = *impl_;
  if (r.threads.empty())
    throw ValidationError(r.options.thread == "host"
                              ? "Run.thread_result: the program's threads run on the host (thread=\"host\"): their "
                                "host_fallback gives the result"
                              : "Run.thread_result: the program has no X280 thread");
  return r.wait_threads(timeout_s, false);
}

const X280Thread& thread_on(const Run::Impl& r, uint32_t cluster, const char* what) {
  for (const auto& t : r.threads)
    if (t->cluster() == cluster) return *t;
  throw ValidationError(std::string(what) + ": no X280 thread runs on cluster " + std::to_string(cluster));
}

std::vector<uint8_t> Run::thread_read(uint32_t cluster, const std::string& region) const {
  const Impl& r = *impl_;
  if (!r.stopped) throw ValidationError("run.thread.read: regions are read after run.stop()");
  return thread_on(r, cluster, "run.thread.read").read_region(region);
}

} // namespace tessel::dispatch
