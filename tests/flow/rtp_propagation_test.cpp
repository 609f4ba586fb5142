// RTP writes on their way to the cores: at once under deterministic, late
// (in order) under random:<seed>, all landed by a flush.
#include <gtest/gtest.h>

#include "flow/rtp_propagation.hpp"
#include "sim/chip.hpp"

namespace tf = tessel::flow;
namespace sim = tessel::sim;

namespace {
constexpr uint32_t kAddr = 0x10000;
int32_t word(sim::Chip& chip, uint32_t core, uint32_t addr = kAddr) {
  return *reinterpret_cast<volatile int32_t*>(chip.core(core).l1 + addr);
}
} // namespace

TEST(RtpPropagation, DeterministicWritesLandAtOnce) {
  sim::Chip chip(sim::arch_preset("blackhole"));
  tf::RtpPropagation rtp(sim::SchedulerPolicy::parse("deterministic"));
  rtp.write(chip, 0, kAddr, 41);
  EXPECT_EQ(word(chip, 0), 41);
  EXPECT_FALSE(rtp.pending());
}

TEST(RtpPropagation, RandomWritesLandWithinTheirTurnsInTheOrderMade) {
  bool some_late = false;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    sim::Chip chip(sim::arch_preset("blackhole"));
    tf::RtpPropagation rtp(sim::SchedulerPolicy::parse("random:" + std::to_string(seed)));
    rtp.write(chip, 1, kAddr, 1);
    rtp.write(chip, 1, kAddr, 2); // the same word again: the later value must win
    rtp.write(chip, 2, kAddr + 4, 3);
    some_late = some_late || rtp.pending();
    for (uint32_t t = 0; t < tf::RtpPropagation::kMaxTurns && rtp.pending(); ++t)
      rtp.turn(chip);
    EXPECT_FALSE(rtp.pending()) << seed;
    EXPECT_EQ(word(chip, 1), 2) << seed;
    EXPECT_EQ(word(chip, 2, kAddr + 4), 3) << seed;
  }
  EXPECT_TRUE(some_late);
}

TEST(RtpPropagation, AFlushLandsEveryPendingWrite) {
  sim::Chip chip(sim::arch_preset("blackhole"));
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    tf::RtpPropagation rtp(sim::SchedulerPolicy::parse("random:" + std::to_string(seed)));
    rtp.write(chip, 0, kAddr, int32_t(seed));
    rtp.flush(chip);
    EXPECT_FALSE(rtp.pending());
    EXPECT_EQ(word(chip, 0), int32_t(seed));
  }
}
