// An X280 thread (spec: program.thread): a program's C/C++ code on an X280
// work cluster (1..3), beside the dispatcher on cluster 0, that may submit
// commands to the grid. The thread's API is tessel/x280.h.
//
// The host's side of one thread: build() compiles its sources into one
// shared object (cached on disk) and lays out the memory it shares with the
// host (x280_shared.hpp); start() spawns tessel-x280-runner, which runs the
// thread in a process of its own, so that whatever the thread does (crash,
// exit, abort, hang) becomes its X280ThreadResult and never a host failure.
// The card thread moves the thread's commands: take() one, send it to the
// grid, complete() it with its result word.
//
// Ownership and lifetime: the X280Thread owns the child process, the shared
// block and the pipes. Destroying it kills a child still running and reaps
// it; nothing of the thread outlives it.
//
// Thread-safety: take(), complete() and finished() belong to one thread (the
// card's); wait() and read_region() to another (the host's). request_stop()
// may be called from either. Calls of the two sides may run at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessel/dispatch/x280.hpp"

namespace tessel::dispatch {

// One command a thread submitted, as the card takes it.
struct X280Command {
  uint32_t handler, flags, first, count, arg_count;
  uint32_t args[10]; // KM_ARGS_MAX
  uint32_t ticket;   // what complete() names
};

class X280Thread {
public:
  // Output kept per thread; the rest is counted in a note at its end.
  static constexpr size_t kOutputBytes = 64 * 1024;
  // x280::log lines kept per thread.
  static constexpr size_t kLogLines = 10000;
  // How long a thread has to return after a stop request before it is killed.
  static constexpr double kStopGrace_s = 0.25;

  // Validates the spec (cluster 1..3, sources that exist and are C or C++,
  // regions that are among all_regions, prefetch, deadline), compiles the
  // sources (or finds them in the cache under kernel_cache_root(cache_dir))
  // and lays out the shared block. Nothing is started. Throws
  // tessel::ValidationError for a bad spec, tessel::ProgramError for a
  // compile error (with the compiler's output: file and line) or a missing
  // runner.
  static std::unique_ptr<X280Thread> build(const X280ThreadSpec& spec, const std::vector<X280Region>& all_regions,
                                           const std::string& cache_dir = {});
  ~X280Thread();
  X280Thread(const X280Thread&) = delete;
  X280Thread& operator=(const X280Thread&) = delete;

  // Spawns the runner; the deadline counts from here. Once only. Throws
  // tessel::Error when the runner cannot be started.
  void start();

  // Card side. The next command the thread submitted, without blocking.
  bool take(X280Command& out);
  // The command `ticket` (one take() returned) finished with `result`.
  // Throws tessel::Error for a ticket not taken or completed already.
  void complete(uint32_t ticket, uint32_t result);
  // Whether the thread has ended, without blocking. Also enforces the
  // deadline: at it the stop flag, kStopGrace_s later a kill.
  bool finished();

  // Either side. Sets the stop flag: x280::wait returns false, submit 0.
  void request_stop();

  // Host side. Waits for the end; when timeout_s passes first, stops the
  // thread (status "stopped"). Returns the same result when called again.
  X280ThreadResult wait(double timeout_s);
  // The region's bytes as the thread left them (read after the end for a
  // consistent value). Throws tessel::ValidationError for a region the
  // thread did not declare.
  std::vector<uint8_t> read_region(const std::string& name) const;

  uint32_t cluster() const;
  // Whether build() ran the compiler (false: the cache had the object).
  bool compiled() const;
  // The cached shared object.
  const std::string& object_path() const;

  struct Impl;

private:
  explicit X280Thread(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The runner's path: $TESSEL_X280_RUNNER, else the build tree's
// tessel-x280-runner.
std::string x280_runner_path();

} // namespace tessel::dispatch
