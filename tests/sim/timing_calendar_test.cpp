// The contention calendars of the cycle estimate (src/sim/timing.cpp): a
// saturated DRAM bank fills its buckets in order, whatever the order and
// start times of the bookings, bucket for bucket as the model says
// (docs/timing.md, "Contention"); rates that are not whole bytes per cycle
// round exactly.
#include <gtest/gtest.h>

#include "sim/chip.hpp"
#include "sim/timing.hpp"

namespace tessel::test {
namespace {

using sim::Timing;

// Wormhole: a DRAM bank carries 24 B/cycle, so a bucket holds a whole
// number of 2 KiB pages.
constexpr uint64_t kPage = 2048, kBankBytesPerCycle = 24;
constexpr uint64_t kPagesPerBucket = Timing::kBucketCycles * kBankBytesPerCycle / kPage;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Where the model says the k-th page (from 0) booked on an empty bank from
// cycle 0 ends: its bucket's start plus the bucket's bytes so far at 24 B/cycle.
uint64_t expected_end(uint64_t k) {
  return k / kPagesPerBucket * Timing::kBucketCycles + ceil_div((k % kPagesPerBucket + 1) * kPage, kBankBytesPerCycle);
}

TEST(TimingCalendarTest, ASaturatedBankFillsItsBucketsInOrder) {
  sim::Chip chip(sim::arch_preset("wormhole_b0"));
  Timing t(chip, sim::timing_costs(chip.arch()));
  static_assert(Timing::kBucketCycles * kBankBytesPerCycle == kPagesPerBucket * kPage);
  // Every page asks for cycle 0: each must walk past the buckets already full.
  const uint64_t pages = kPagesPerBucket * (Timing::kBuckets - 24);
  for (uint64_t k = 0; k < pages; ++k)
    ASSERT_EQ(t.book_dram_bank(0, 0, kPage), expected_end(k)) << "page " << k;
  // A page starting inside the full stretch lands in the first bucket with room.
  const uint64_t next = pages / kPagesPerBucket * Timing::kBucketCycles;
  EXPECT_EQ(t.book_dram_bank(0, 5000, kPage), next + ceil_div(kPage, kBankBytesPerCycle));
  // Another bank, and the same bank's neighbour port, are untouched by it.
  EXPECT_EQ(t.book_dram_bank(1, 0, kPage), ceil_div(kPage, kBankBytesPerCycle));
  EXPECT_EQ(t.book_core_port(0, 0, 0, kPage), kPage / 32);
}

TEST(TimingCalendarTest, ABucketTheRingReusesIsNoLongerSkippedAsFull) {
  sim::Chip chip(sim::arch_preset("wormhole_b0"));
  Timing t(chip, sim::timing_costs(chip.arch()));
  for (uint64_t k = 0; k < kPagesPerBucket * 10; ++k) // buckets 0..9 full
    t.book_dram_bank(0, 0, kPage);
  // A page a whole ring later takes bucket 3's word over: bucket 3 has no
  // record any more, so a page from cycle 0 walks buckets 0..2 and passes there.
  const uint64_t later = (Timing::kBuckets + 3) * Timing::kBucketCycles;
  EXPECT_EQ(t.book_dram_bank(0, later, kPage), later + ceil_div(kPage, kBankBytesPerCycle));
  EXPECT_EQ(t.book_dram_bank(0, 0, kPage), 3 * Timing::kBucketCycles + ceil_div(kPage, kBankBytesPerCycle));
}

TEST(TimingCalendarTest, APageStartingLateInABucketCannotUseTheBytesBeforeIt) {
  sim::Chip chip(sim::arch_preset("wormhole_b0"));
  Timing t(chip, sim::timing_costs(chip.arch()));
  // 24 cycles before an empty bucket's end only 576 bytes fit: the page
  // spills into the next bucket and ends 1472 bytes into it.
  EXPECT_EQ(t.book_dram_bank(0, Timing::kBucketCycles - 24, kPage),
            Timing::kBucketCycles + ceil_div(kPage - 24 * 24, kBankBytesPerCycle));
  // A bucket does not know where in it its bytes went: a page from cycle 0
  // finds the 576 bytes booked and ends as if they went first.
  EXPECT_EQ(t.book_dram_bank(0, 0, kPage), ceil_div(24 * 24 + kPage, kBankBytesPerCycle));
}

TEST(TimingCalendarTest, AFractionalRateRoundsExactly) {
  // Blackhole: 512 GB/s over 8 banks at 1.35 GHz is 1280/27 B/cycle per bank.
  sim::Chip chip(sim::arch_preset("blackhole"));
  Timing t(chip, sim::timing_costs(chip.arch()));
  EXPECT_EQ(t.book_dram_bank(0, 0, 1280), 27u);
  EXPECT_EQ(t.book_dram_bank(1, 0, 2048), 44u); // 2048 * 27 / 1280 = 43.2
  EXPECT_EQ(t.book_dram_bank(2, 0, 12800), 270u);
}

} // namespace
} // namespace tessel::test
