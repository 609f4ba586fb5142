// The host's reading of the events' 16-bit sequence field (spec: the gap rules).
#include <gtest/gtest.h>

#include "tessel/dispatch/run.hpp"

using tessel::dispatch::read_sequence;

TEST(ReadSequence, ForwardWithinTheField) {
  EXPECT_EQ(read_sequence(0, 0), 0u);
  EXPECT_EQ(read_sequence(10, 11), 11u);
  EXPECT_EQ(read_sequence(65535, 0), 65536u); // wraps
  EXPECT_EQ(read_sequence(100000, (100000 + 5) & 0xFFFF), 100005u);
}

// k commands of other sources between two host commands put the second k + 1 after the first.
TEST(ReadSequence, OtherSourcesUpTo32767Between) {
  EXPECT_EQ(read_sequence(1000, (1000 + 32767) & 0xFFFF), 1000u + 32767);
  EXPECT_EQ(read_sequence(1000, (1000 + 32768) & 0xFFFF), 1000u + 32768); // 32,767 between: still exact
  EXPECT_FALSE(read_sequence(1000, (1000 + 32769) & 0xFFFF).has_value()); // 32,768 between: the gap
  EXPECT_FALSE(read_sequence(1000, (1000 + 40000) & 0xFFFF).has_value());
}

TEST(ReadSequence, AQueuedCommandLagsUpTo2048) {
  EXPECT_EQ(read_sequence(5000, 5000 - 1), 4999u);
  EXPECT_EQ(read_sequence(5000, 5000 - 2048), 5000u - 2048);
  EXPECT_FALSE(read_sequence(5000, 5000 - 2049).has_value());
  EXPECT_EQ(read_sequence(70000, (70000 - 2048) & 0xFFFF), 70000u - 2048); // across a wrap
  EXPECT_FALSE(read_sequence(10, (65536 + 10 - 20) & 0xFFFF).has_value()); // no number below 0
}
