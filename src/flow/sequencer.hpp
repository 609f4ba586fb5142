// The card side of a loaded design: the agent (sim::CardAgent) that runs the
// recorded sequence between the grid's fibers, and what it shares with the
// host thread. Internal to flow.
//
// Host <-> card protocol (CallLine)
//  - The host fills `buffers` and `parameters`, then publishes
//    `requested += 1` (release) and unparks the card.
//  - The card runs the stream; when the call ends (quiescent, or failed) it
//    writes `result`, publishes `answered = requested` (release) and unparks
//    the host. Between the two the host touches nothing the card uses, and
//    while the card waits for a call (parked in idle(), every fiber
//    blocked) the host may read and write device memory.
//  - `stop` (host) ends the grid at the card's next look (RunStopped).
//
// Sequence state (per call): pc, registers, loop counts, task slots and
// instances; descriptors per shim tile (taken at Push, given at Free); RTP
// writes not landed yet (rtp_propagation.hpp; all land before the answer).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "base/park.hpp"
#include "flow/layout.hpp"
#include "flow/rtp_propagation.hpp"
#include "sim/card_agent.hpp"
#include "tessel/flow/loaded_design.hpp"
#include "tessel/iron_abi.h"

namespace tessel::sim {
class Chip;
}

namespace tessel::flow {

enum class CallFailure : uint8_t { None, Deadlock, Flow, Kernel };

struct CallResult {
  CallFailure failure = CallFailure::None;
  std::string message;
  std::exception_ptr kernel_error; // set when the grid's run threw
  CallStats stats;
};

// Checks either side spins for before it parks (base::spin_or_park).
inline constexpr uint32_t kSpinChecks = 1u << 16;

struct CallLine {
  std::vector<uint8_t*> host_data; // the call's host buffers, which the shims reach directly
  std::vector<int64_t> parameters;
  CallResult result;
  alignas(64) std::atomic<uint32_t> requested{0};
  alignas(64) std::atomic<uint32_t> answered{0};
  alignas(64) std::atomic<uint32_t> stop{0};
  alignas(64) std::atomic<uint32_t> finished{0}; // the card thread's run ended
  base::ParkWord card_park, host_park;
};

// One task instance (a Push), for the end-of-call check and reports.
struct TaskInstance {
  uint32_t channel = 0;
  uint32_t number = 0; // the channel's task count before it (done > number: finished)
  uint32_t line = 0;
  bool wait = false, freed = false;
  uint32_t descriptor = 0; // its id on its shim tile
  uint32_t free_line = 0;  // where it was freed
};

class Sequencer final : public sim::CardAgent {
public:
  Sequencer(sim::Chip& chip, const DesignSpec& spec, const Layout& layout, CallLine& line);
  bool idle(sim::Chip& chip) override;
  void poll(sim::Chip& chip) override;
  const void* kernel_table() const override { return nullptr; }

  // Reports (reports.cpp).
  std::string deadlock_report() const;
  std::string leftovers() const; // empty when the grid is quiescent

private:
  enum class State : uint8_t { Waiting, Running, Done }; // Running: at pc_, which may be blocked
  void start_call();
  // Runs ops until one blocks or the stream ends; true if any op ran.
  bool advance();
  bool run_op(const Op& op); // false: blocked (pc unchanged)
  int64_t eval(const Expr& e) const;
  void answer(CallFailure failure, std::string message);
  [[noreturn]] void flow_error(const Op& op, const std::string& message);
  iron_channel& channel(uint32_t c) const;
  void ring(uint32_t core) const; // the doorbell of a layout core, and its waiters
  std::string op_text(const Op& op) const;
  std::string at_line(uint32_t line) const;

  sim::Chip& chip_;
  const DesignSpec& spec_;
  const Layout& layout_;
  CallLine& line_;
  State state_ = State::Waiting;
  uint32_t served_ = 0; // calls answered
  size_t pc_ = 0;
  std::vector<int64_t> registers_;
  std::vector<int64_t> loop_counts_; // per op (LoopBegin)
  std::vector<int32_t> slots_;       // task instance per slot, -1: none
  std::vector<TaskInstance> tasks_;
  // Per shim column: descriptor ids free (a stack: the last freed is taken
  // first), and the task instance that last held each id (-1: none).
  std::vector<std::vector<uint32_t>> free_ids_;
  std::vector<std::vector<int32_t>> id_holder_;
  std::vector<uint64_t> moved_at_start_; // per channel
  CallStats stats_;
  RtpPropagation rtp_; // RTP writes on their way to the cores
};

} // namespace tessel::flow
