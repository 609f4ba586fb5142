// An engine: one stream or graph from an upload (tessel/engine_abi.h), run
// step by step against a sink that sends its commands and posts its events.
// The card's dispatcher is one sink; the host's run_hostfed is the other, so
// both execute the same instructions and nodes with the same registers.
//
// Lifetime: start() resets it with its bindings; step() runs it until it
// must wait (for a command's completion, a free slot, event room); the sink
// calls complete() when one of its commands completes. An engine ends only
// with none of its commands in flight: an error or a cancel stops it sending
// and it posts its error event once the last one has completed.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tessel/engine_abi.h"
#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

struct EngineCommand {
  uint32_t handler = 0, flags = 0; // KM_FLAG_* (never KM_ENGINE_GROUP_REGS)
  uint32_t first = 0, count = 0;   // queued: count only
  uint32_t arg_count = 0;
  uint32_t args[KM_ARGS_MAX] = {};
  uint32_t node = 0;  // the graph's node, or the stream's pc of the SUBMIT or ENQUEUE
  uint32_t token = 0; // the engine's, handed back in complete()
};

class EngineSink {
public:
  virtual ~EngineSink() = default;
  // false: not now (no slot, an exclusive command's group busy); the engine asks again at its next step.
  virtual bool submit(const EngineCommand& command) = 0;
  // false: no event room now. kind is KM_EVENT_ENGINE_*.
  virtual bool post(uint32_t kind, uint32_t auxiliary, uint32_t value) = 0;
  virtual uint64_t now_us() = 0;
  virtual uint32_t ticks() = 0; // the card clock's low 32 bits (TICKS)
};

class Engine {
public:
  // Reads the header of an upload of `words` words (the region past its
  // offset); a bad one leaves the engine ready to end with
  // KM_STREAM_ERROR_HEADER (or another load error) at its first step.
  Engine(const uint32_t* words, uint32_t available_words, uint32_t cores);

  static uint32_t req_of(const uint32_t* words, uint32_t available_words);
  static uint32_t kind_of(const uint32_t* words, uint32_t available_words);

  // Resets the registers to the bindings (the rest zero) and starts.
  void start(const uint32_t* bindings, uint32_t count, uint64_t now_us);
  // Runs until it must wait; at most `budget` stream instructions. True if anything changed.
  bool step(EngineSink& sink, uint32_t budget = 4096);
  void complete(uint32_t token, uint32_t result);
  void cancel(); // ends with KM_STREAM_ERROR_CANCELLED once nothing is in flight

  bool running() const { return state_ != State::Idle; }
  uint32_t kind() const { return kind_; }
  uint32_t req() const { return req_; }
  bool keep() const { return keep_; }
  bool loaded() const { return load_error_ == KM_STREAM_ERROR_NONE; } // the upload read cleanly
  // A kept graph whose upload read cleanly stays loaded after its end (KM_EVENT_KEPT).
  bool kept_after_end() const { return kind_ == KM_ENGINE_GRAPH && keep_ && loaded(); }
  uint32_t runs() const { return runs_; }
  const uint32_t* registers() const { return regs_.data(); }
  // After the end: KM_STREAM_ERROR_* (NONE for a clean end) and the pc or node (~0u: none).
  uint32_t error() const { return error_; }
  uint32_t error_at() const { return error_at_; }

private:
  enum class State { Idle, Running, Ending };
  struct Node {
    uint32_t type = 0, handler = 0, flags = 0, first = 0, count = 0, result = KM_NODE_NONE;
    uint32_t deps_count = 0, arg_count = 0, ops_first = 0, ops_count = 0;
    uint8_t deps[KM_GRAPH_DEPS_MAX] = {};
    uint8_t args[KM_ARGS_MAX] = {};
  };
  enum class NodeState : uint8_t { Pending, Sent, Done };

  void load(const uint32_t* words, uint32_t available_words);
  void fail(uint32_t reason, uint32_t at);
  bool finish(EngineSink& sink); // posts the end or error event once nothing is in flight
  bool step_stream(EngineSink& sink, uint32_t budget);
  bool step_graph(EngineSink& sink);
  bool run_ops(const Node& n, uint32_t node);
  bool deadline_passed(EngineSink& sink) const;

  uint32_t cores_;
  uint32_t kind_ = 0, req_ = 0, bytes_ = 0, deadline_us_ = 0, max_ = 0;
  bool keep_ = false;
  uint32_t load_error_ = KM_STREAM_ERROR_NONE, load_error_at_ = ~0u;
  State state_ = State::Idle;
  uint64_t start_us_ = 0;
  std::array<uint32_t, KM_ENGINE_REGISTERS + 1> regs_{}; // + `again` (graphs)
  uint32_t error_ = KM_STREAM_ERROR_NONE, error_at_ = ~0u;
  uint32_t inflight_ = 0;
  uint32_t runs_ = 0;
  bool halted_ = false; // a clean end is due (HALT, or a graph's last round)
  uint32_t end_value_ = 0;

  // Stream: the code in place, the pc, steps taken, in-flight entries.
  const uint32_t* code_ = nullptr;
  uint32_t code_words_ = 0;
  uint32_t pc_ = 0;
  uint64_t steps_ = 0;
  uint32_t waiting_token_ = ~0u; // a SUBMIT waits for this entry
  bool waiting_all_ = false;     // WAIT
  struct Entry {
    bool used = false;
    uint32_t result = KM_NODE_NONE;
  };
  std::array<Entry, KM_ENGINE_INFLIGHT> entries_{};
  // Stream: the event of an EVENT that found no room (posted before going on).
  bool event_pending_ = false;
  uint32_t event_value_ = 0;

  // Graph: nodes, operations, this round's node states.
  std::vector<Node> nodes_;
  std::vector<uint32_t> ops_; // two words each
  std::vector<NodeState> node_state_;
  uint32_t nodes_done_ = 0;
  bool round_pending_ = false; // a `round` event found no room
};

// The ALU of streams and cpu nodes: false for an unknown operation.
bool engine_alu(uint32_t op, uint32_t a, uint32_t b, uint32_t& out);

} // namespace tessel::dispatch
