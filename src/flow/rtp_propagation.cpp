#include "flow/rtp_propagation.hpp"

#include <algorithm>

namespace tessel::flow {

RtpPropagation::RtpPropagation(const sim::SchedulerPolicy& policy)
    : late_(policy.kind == sim::SchedulerPolicy::Kind::Random), state_(policy.seed ^ 0x5254505f6c617465ull) {}

uint64_t RtpPropagation::next() { // splitmix64
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void RtpPropagation::land(sim::Chip& chip, const Write& w) {
  sim::Core& core = chip.core(w.core);
  *reinterpret_cast<volatile int32_t*>(core.l1 + w.addr) = w.value;
  chip.wake_memory_waiters(core);
}

void RtpPropagation::write(sim::Chip& chip, uint32_t chip_index, uint32_t addr, int32_t value) {
  Write w{chip_index, addr, value, late_ ? uint32_t(next() % (kMaxTurns + 1)) : 0};
  if (!pending_.empty()) w.turns = std::max(w.turns, pending_.back().turns);
  if (w.turns == 0) {
    land(chip, w);
    return;
  }
  pending_.push_back(w);
}

void RtpPropagation::turn(sim::Chip& chip) {
  for (Write& w : pending_)
    --w.turns;
  while (!pending_.empty() && pending_.front().turns == 0) {
    land(chip, pending_.front());
    pending_.pop_front();
  }
}

void RtpPropagation::flush(sim::Chip& chip) {
  for (const Write& w : pending_)
    land(chip, w);
  pending_.clear();
}

} // namespace tessel::flow
