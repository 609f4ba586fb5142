// Runtime-parameter writes that reach their core late (docs/sequences.md,
// "The runtime-parameter window"). Internal to flow.
//
// The spec: a sequence's RTP writes propagate late, so a worker may read a
// parameter before the write reaches it; a WorkerRuntimeBarrier set after
// the write, and waited for before the read, orders the two. The model:
//  - under `random:<seed>` a write lands a seeded number of card turns
//    later (0 to kMaxTurns; a turn is one poll or idle of the card agent),
//    in the order the sequence made them;
//  - under `deterministic` and `parallel` it lands at once (a deterministic
//    run shows the value written; random seeds show the window);
//  - a barrier set, and the end of a call, land every pending write first:
//    a worker that waited for the barrier reads the new values, and the
//    next call starts from the values written.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/chip.hpp"

namespace tessel::flow {

class RtpPropagation {
public:
  static constexpr uint32_t kMaxTurns = 3;
  explicit RtpPropagation(const sim::SchedulerPolicy& policy);
  // The word at `addr` of core `chip_index`'s L1 becomes `value`, now or later.
  void write(sim::Chip& chip, uint32_t chip_index, uint32_t addr, int32_t value);
  void turn(sim::Chip& chip);  // one card turn: the writes due land
  void flush(sim::Chip& chip); // every pending write lands, in order
  bool pending() const { return !pending_.empty(); }

private:
  struct Write {
    uint32_t core, addr;
    int32_t value;
    uint32_t turns; // left before it lands; never fewer than the write before it
  };
  static void land(sim::Chip& chip, const Write& w);
  uint64_t next();
  std::deque<Write> pending_;
  bool late_ = false;
  uint64_t state_ = 0;
};

} // namespace tessel::flow
