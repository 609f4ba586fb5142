// Run: a persistent program loaded on a session's card (spec: Run).
//
// Commands. submit() checks the handler and group and queues the command on
// the host; wait(), wait_any() and drain() store queued commands into the
// card's command ring in batches (every line, one fence, then
// settle_microseconds) and read events until the handles they wait for have
// theirs. Handles are 1, 2, ... in submit order.
//
// The rules the host keeps (spec: Rules the host keeps):
//  - it stores a command only while the events it has not read plus the
//    commands it stored without an event fit the event ring;
//  - it writes its read count with every batch and while it waits;
//  - every wait has a timeout (WaitTimeout leaves the run loaded);
//  - EXIT goes to every core after everything in flight completed (stop()).
// Thread-safety: one host thread at a time; the card runs on its own thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/result.hpp"
#include "tessel/dispatch/x280.hpp"

namespace tessel::dispatch {

struct Group {
  uint32_t first = 0, count = 0; // count 0: every core (from first 0)
};

struct SubmitFlags {
  bool exclusive = false;
  bool result = false;
  bool queued = false; // the group's first is chosen by the kernel; count is the size
};

// One core's trace entry for one command: wall-clock words in 50 MHz ticks.
struct TraceEntry {
  uint32_t core = 0;
  uint32_t taken = 0, written = 0, sent = 0, passes = 0;
};

class Run {
public:
  struct Impl;
  explicit Run(std::unique_ptr<Impl> impl);
  ~Run();
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // handler: 0 (NOP) or a program handler (1..239). Throws ValidationError for
  // a handler the program does not have, a group outside the grid, more than
  // ten args, queued with exclusive, or a stopped run.
  uint64_t submit(uint32_t handler, Group group, std::span<const uint32_t> args = {}, SubmitFlags flags = {});
  // n commands at once (firsts/counts of size 1 or n; args row-major n x m,
  // m <= 10), all checked before any is queued. Returns the first handle.
  uint64_t submit_many(uint32_t handler, std::span<const uint32_t> firsts, std::span<const uint32_t> counts,
                       std::span<const uint32_t> args, uint32_t args_per_command, SubmitFlags flags = {}, size_t n = 0);
  // The same with a handler per command (handlers of size 1 or n).
  uint64_t submit_many(std::span<const uint32_t> handlers, std::span<const uint32_t> firsts,
                       std::span<const uint32_t> counts, std::span<const uint32_t> args, uint32_t args_per_command,
                       SubmitFlags flags = {}, size_t n = 0);

  // Waits until every handle has its event; returns them in order and forgets
  // the handles. Throws WaitTimeout, CommandRejected, CommandTimeout, KernelFailed.
  std::vector<Event> wait(std::span<const uint64_t> handles, double timeout_s = 10.0);
  // Waits for one of the handles; returns its event (the lowest handle if several).
  Event wait_any(std::span<const uint64_t> handles, double timeout_s = 10.0);
  // Waits for every submitted command; returns how many events it waited for.
  uint64_t drain(double timeout_s = 10.0);

  std::optional<Event> event(uint64_t handle) const;
  // Throws DispatchError when the handle's event came but its sequence could
  // not be read (32,768 or more commands of other sources between), as wait
  // and drain do.
  std::optional<uint64_t> sequence(uint64_t handle) const;
  // The command's group; a queued command's first core is unknown (first_known false) until its done event.
  struct GroupOf {
    bool first_known = true;
    uint32_t first = 0, count = 0;
  };
  std::optional<GroupOf> group(uint64_t handle) const;
  void forget(std::span<const uint64_t> handles);

  // Drains, sends EXIT to every core, waits for the kernels to return, reads
  // back. Returns the result block; throws KernelFailed unless it is clean.
  ResultBlock stop(double timeout_s = 10.0);
  // The failure path: stops the grid from the host, then the dispatcher.
  ResultBlock abort();
  bool stopped() const;

  const ResultBlock& result() const;
  // After the stop: each core's state words (KM_STATE_WORDS per core, core order).
  std::vector<uint32_t> state_words() const;
  // After the stop: each core's broadcast words (KM_BCAST_WORDS per core, core order).
  std::vector<uint32_t> broadcast_words() const;
  // After the stop: each core's port words (KM_PORTS x KM_PORT_WORDS per core, core order).
  std::vector<uint32_t> port_words() const;
  // After the stop: the trace entries of one handle (the cores that ran it).
  std::vector<TraceEntry> trace(uint64_t handle) const;
  uint32_t traced() const; // sequence numbers traced per core

  // Engines (engines.hpp; spec: Engines). upload writes a stream's or
  // graph's bytes as whole lines at the first free place of the upload
  // region (ValidationError, before anything is written, when they do not
  // fit); graph gives a Graph upload its binding names.
  std::shared_ptr<Upload> upload(const std::vector<uint8_t>& bytes, const std::string& kind,
                                 std::shared_ptr<const Graph> graph = nullptr);
  // Frees an upload's lines; a kept graph is dropped first (CANCEL and its cancelled event).
  void release(const std::shared_ptr<Upload>& upload, double timeout_s = 10.0);
  // KM_HANDLER_RUN and a PING behind it; returns when the PING is answered.
  // bindings: up to 16 words (Graph::binding_values gives them by name);
  // kept rewrites the header's keep bit first. EngineRejected, EngineTimeout.
  std::shared_ptr<EngineHandle> start(const std::shared_ptr<Upload>& upload, const std::vector<uint32_t>& bindings = {},
                                      std::optional<bool> kept = std::nullopt, double timeout_s = 10.0);
  // Runs the kept graph with req again (KM_HANDLER_RUN, a2 = 2).
  std::shared_ptr<EngineHandle> restart(uint32_t req, const std::vector<uint32_t>& bindings = {},
                                        double timeout_s = 10.0);
  // KM_HANDLER_CANCEL (nothing for an engine that has ended); the engine ends
  // with its cancelled event. For an unknown handle it learns the RUN's answer.
  void cancel(const std::shared_ptr<EngineHandle>& handle, double timeout_s = 10.0);
  // Its end event; EngineError for an error event, EngineTimeout, KernelFailed.
  EngineEvent wait_engine(const std::shared_ptr<EngineHandle>& handle, double timeout_s = 10.0);
  // The same stream or graph run from the host, its commands through the host ring.
  HostfedResult run_hostfed(const std::vector<uint8_t>& bytes, const std::vector<uint32_t>& bindings = {},
                            double timeout_s = 10.0);
  std::vector<std::shared_ptr<Upload>> uploads() const; // not released
  uint32_t upload_region_bytes() const;

  // X280 threads (x280.hpp; spec: thread_result, run.thread.read). Waits for
  // each thread's end (stopping one still running when timeout_s passes) and
  // returns their results in declaration order; the same results later.
  std::vector<X280ThreadResult> thread_result(double timeout_s = 10.0);
  // After the stop: a region's bytes as the thread on `cluster` left them.
  std::vector<uint8_t> thread_read(uint32_t cluster, const std::string& region) const;

  uint64_t submitted() const;       // the last handle
  const KernelSizes& sizes() const; // the program's kernels against the session's kernel buffer
  double submit_s() const;
  double wait_s() const;
  double native_s() const;

  Impl& impl() { return *impl_; }

private:
  uint64_t submit_one(uint32_t handler, Group group, std::span<const uint32_t> args, SubmitFlags flags);
  std::unique_ptr<Impl> impl_;
};

// The host's reading of a 16-bit sequence field (spec: sequence numbering):
// `previous` is the sequence of the host's previous command. Exact while
// fewer than 32,768 commands of other sources came between (a difference
// of at most 32,768); a lag of up to
// 2,048 (a queued command) reads backwards. Anything else is a gap the host
// cannot read: nullopt.
std::optional<uint64_t> read_sequence(uint64_t previous, uint32_t low16);

} // namespace tessel::dispatch
