// The AIE API's integer rounding, saturation and wrap-around, and its
// bfloat16 conversions, against hand-checked values.
#include "aie_api_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

using aie::rounding_mode;
using aie::saturation_mode;

// Restores the core's modes after each test.
class AieModes : public ::testing::Test {
protected:
  void TearDown() override {
    aie::set_rounding(rounding_mode::floor);
    aie::set_saturation(saturation_mode::none);
  }
};

// Values / 4 (shift 2): ties at +-1.5 and +-2.5, non-ties at +-1.25, +-1.75, exact +-2.
const std::vector<int32_t> kQuarterInputs = {6, 10, -6, -10, 5, 7, -5, -7, 8, -8};

struct ModeCase {
  rounding_mode mode;
  std::vector<int32_t> want;
};

const ModeCase kModeCases[] = {
    {rounding_mode::floor, {1, 2, -2, -3, 1, 1, -2, -2, 2, -2}},
    {rounding_mode::ceil, {2, 3, -1, -2, 2, 2, -1, -1, 2, -2}},
    {rounding_mode::symmetric_floor, {1, 2, -1, -2, 1, 1, -1, -1, 2, -2}},
    {rounding_mode::symmetric_ceil, {2, 3, -2, -3, 2, 2, -2, -2, 2, -2}},
    {rounding_mode::positive_inf, {2, 3, -1, -2, 1, 2, -1, -2, 2, -2}},
    {rounding_mode::negative_inf, {1, 2, -2, -3, 1, 2, -1, -2, 2, -2}},
    {rounding_mode::symmetric_inf, {2, 3, -2, -3, 1, 2, -1, -2, 2, -2}},
    {rounding_mode::symmetric_zero, {1, 2, -1, -2, 1, 2, -1, -2, 2, -2}},
    {rounding_mode::conv_even, {2, 2, -2, -2, 1, 2, -1, -2, 2, -2}},
    {rounding_mode::conv_odd, {1, 3, -1, -3, 1, 2, -1, -2, 2, -2}},
};

aie::vector<int32_t, 16> padded(const std::vector<int32_t>& values) {
  aie::vector<int32_t, 16> v;
  for (size_t i = 0; i < values.size(); ++i)
    v[i] = values[i];
  return v;
}

TEST_F(AieModes, ToVectorRoundsEveryModeOnTiesNegativesAndExactValues) {
  for (const ModeCase& c : kModeCases) {
    aie::set_rounding(c.mode);
    aie::accum<acc64, 16> acc(padded(kQuarterInputs));
    aie::vector<int32_t, 16> got = acc.to_vector<int32_t>(2);
    for (size_t i = 0; i < c.want.size(); ++i)
      EXPECT_EQ(got[i], c.want[i]) << "mode " << int(c.mode) << ", " << kQuarterInputs[i] << " / 4";
  }
}

TEST_F(AieModes, SrsIsToVectorWithTheCurrentModes) {
  aie::set_rounding(rounding_mode::conv_even);
  aie::accum<acc64, 16> acc(padded(kQuarterInputs));
  v16int32 got = srs(acc, 2);
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 2);
  EXPECT_EQ(got[3], -2);
  // A shift by 0 keeps the value; a large shift floors negatives to -1.
  EXPECT_EQ(acc.to_vector<int32_t>(0)[3], -10);
  aie::set_rounding(rounding_mode::floor);
  EXPECT_EQ(acc.to_vector<int32_t>(40)[3], -1);
  EXPECT_EQ(acc.to_vector<int32_t>(40)[0], 0);
}

TEST_F(AieModes, SaturationModesOnOverflow) {
  aie::vector<int32_t, 16> v = padded({40000, -40000, 32767, -32768, -32769, 5});
  aie::accum<acc64, 16> acc(v);
  auto none = acc.to_vector<int16_t>();
  EXPECT_EQ(none[0], -25536); // 40000 - 65536: the low 16 bits
  EXPECT_EQ(none[1], 25536);
  EXPECT_EQ(none[4], 32767);
  aie::set_saturation(saturation_mode::saturate);
  auto sat = acc.to_vector<int16_t>();
  EXPECT_EQ(sat[0], 32767);
  EXPECT_EQ(sat[1], -32768);
  EXPECT_EQ(sat[3], -32768);
  EXPECT_EQ(sat[4], -32768);
  EXPECT_EQ(sat[5], 5);
  aie::set_saturation(saturation_mode::symmetric);
  auto sym = acc.to_vector<int16_t>();
  EXPECT_EQ(sym[0], 32767);
  EXPECT_EQ(sym[1], -32767);
  EXPECT_EQ(sym[3], -32767);
  aie::set_saturation(saturation_mode::truncate);
  EXPECT_EQ(acc.to_vector<int16_t>()[0], -25536);
}

TEST_F(AieModes, SaturationToNarrowAndUnsignedTypes) {
  aie::accum<acc32, 16> acc(padded({-5, 300, 127, -129}));
  auto wrapped = acc.to_vector<uint8_t>();
  EXPECT_EQ(wrapped[0], 251);
  EXPECT_EQ(wrapped[1], 44);
  aie::set_saturation(saturation_mode::saturate);
  auto sat = acc.to_vector<uint8_t>();
  EXPECT_EQ(sat[0], 0);
  EXPECT_EQ(sat[1], 255);
  auto sat8 = acc.to_vector<int8_t>();
  EXPECT_EQ(sat8[2], 127);
  EXPECT_EQ(sat8[3], -128);
}

TEST_F(AieModes, RoundingThenSaturation) {
  // 131070 / 4 = 32767.5: conv_even rounds to 32768, which saturates to 32767.
  aie::accum<acc64, 16> acc(padded({131070, -131074}));
  aie::set_rounding(rounding_mode::conv_even);
  EXPECT_EQ(acc.to_vector<int16_t>(2)[0], -32768); // wraps
  aie::set_saturation(saturation_mode::saturate);
  EXPECT_EQ(acc.to_vector<int16_t>(2)[0], 32767);
  EXPECT_EQ(acc.to_vector<int16_t>(2)[1], -32768); // -32768.5 to even is -32768
}

TEST_F(AieModes, Acc32LanesWrapAcc64LanesDoNot) {
  aie::vector<int16_t, 16> big = aie::broadcast<int16_t, 16>(32767);
  aie::accum<acc32, 16> a32 = aie::mul(big, big); // 1073676289
  aie::accum<acc64, 16> a64 = aie::mul<acc64>(big, big);
  for (int i = 0; i < 2; ++i) {
    a32 = aie::mac(a32, big, big);
    a64 = aie::mac(a64, big, big);
  }
  EXPECT_EQ(a32.get(0), 3221028867LL - 4294967296LL);
  EXPECT_EQ(a64.get(0), 3221028867LL);
  EXPECT_EQ(aie::msc(a64, big, big).get(0), 2147352578LL);
}

TEST_F(AieModes, FromVectorShiftsLeft) {
  aie::accum<acc64, 16> acc;
  acc.from_vector(padded({3, -3}), 4);
  EXPECT_EQ(acc.get(0), 48);
  EXPECT_EQ(acc.get(1), -48);
  EXPECT_EQ(acc.to_vector<int32_t>(4)[1], -3);
  EXPECT_EQ(ups_to_v16acc64(padded({7}), 2).get(0), 28);
  acc = padded({5, -6});  // assignment is from_vector with no shift
  EXPECT_EQ(acc.get(0), 5);
  EXPECT_EQ(acc.get(1), -6);
}

TEST_F(AieModes, AKernelStartsRoundingToNearestEvenWithoutSaturation) {
  EXPECT_EQ(aie::get_rounding(), rounding_mode::conv_even);
  EXPECT_EQ(aie::get_saturation(), saturation_mode::none);
}

TEST_F(AieModes, SwapSetsTheModeAndGivesBackTheOneBefore) {
  EXPECT_EQ(aie::swap_rounding(rounding_mode::floor), rounding_mode::conv_even);
  EXPECT_EQ(aie::get_rounding(), rounding_mode::floor);
  EXPECT_EQ(aie::swap_rounding(rounding_mode::conv_even), rounding_mode::floor);
  EXPECT_EQ(aie::swap_saturation(saturation_mode::saturate), saturation_mode::none);
  EXPECT_EQ(aie::swap_saturation(saturation_mode::none), saturation_mode::saturate);
}

uint16_t bits_of(float f) { return bfloat16(f).bits; }
float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST(AieBfloat16, ConversionRoundsToNearestEven) {
  EXPECT_EQ(bits_of(1.0f), 0x3f80);
  EXPECT_EQ(bits_of(float_of(0x3f808000)), 0x3f80); // tie, even below
  EXPECT_EQ(bits_of(float_of(0x3f818000)), 0x3f82); // tie, even above
  EXPECT_EQ(bits_of(float_of(0x3f808001)), 0x3f81); // above the tie
  EXPECT_EQ(bits_of(float_of(0xbf818000)), 0xbf82); // negative tie
  EXPECT_EQ(bits_of(float_of(0x7f7fffff)), 0x7f80); // the largest float rounds to infinity
  EXPECT_EQ(bits_of(float_of(0x7f7f7fff)), 0x7f7f);
  EXPECT_EQ(bits_of(INFINITY), 0x7f80);
  EXPECT_EQ(bits_of(-INFINITY), 0xff80);
  EXPECT_EQ(bits_of(float_of(0x00010000)), 0x0001); // subnormals are kept
  EXPECT_EQ(bits_of(-0.0f), 0x8000);
}

TEST(AieBfloat16, NanStaysAQuietNan) {
  EXPECT_EQ(bits_of(float_of(0x7fc00001)), 0x7fc0);
  EXPECT_EQ(bits_of(float_of(0x7f800001)), 0x7fc0); // signalling NaN: the low bits would make it infinity
  EXPECT_EQ(bits_of(float_of(0xffffffff)), 0xffff);
  EXPECT_TRUE(std::isnan(float(bfloat16::from_bits(0x7fc0))));
}

TEST(AieBfloat16, ToFloatIsExactAndArithmeticIsFloat) {
  EXPECT_EQ(float(bfloat16::from_bits(0x3f81)), 1.0078125f);
  bfloat16 a = 1.5f, b = 2.25f;
  EXPECT_EQ(a + b, 3.75f);
  EXPECT_EQ(a * 3, 4.5f);
  EXPECT_TRUE(a < b);
  bfloat16 c = a;
  c += 1.0f;
  EXPECT_EQ(float(c), 2.5f);
  EXPECT_EQ(std::numeric_limits<bfloat16>::lowest().bits, 0xff7f);
  EXPECT_EQ(std::numeric_limits<bfloat16>::max().bits, 0x7f7f);
}

TEST_F(AieModes, AccfloatToBfloat16FollowsTheRoundingMode) {
  aie::vector<float, 16> v;
  v[0] = float_of(0x3f808000); // 1.00390625: a tie
  v[1] = float_of(0xbf808000); // -1.00390625
  v[2] = float_of(0x3f80c000); // above the tie
  v[3] = float_of(0x7fc00001); // NaN
  v[4] = float_of(0x7f7fffff); // the largest float
  aie::accum<accfloat, 16> acc(v);
  struct {
    rounding_mode mode;
    uint16_t want[5];
  } cases[] = {
      {rounding_mode::floor, {0x3f80, 0xbf81, 0x3f80, 0x7fc0, 0x7f7f}},
      {rounding_mode::ceil, {0x3f81, 0xbf80, 0x3f81, 0x7fc0, 0x7f80}},
      {rounding_mode::symmetric_floor, {0x3f80, 0xbf80, 0x3f80, 0x7fc0, 0x7f7f}},
      {rounding_mode::conv_even, {0x3f80, 0xbf80, 0x3f81, 0x7fc0, 0x7f80}},
      {rounding_mode::conv_odd, {0x3f81, 0xbf81, 0x3f81, 0x7fc0, 0x7f80}},
      {rounding_mode::positive_inf, {0x3f81, 0xbf80, 0x3f81, 0x7fc0, 0x7f80}},
      {rounding_mode::negative_inf, {0x3f80, 0xbf81, 0x3f81, 0x7fc0, 0x7f80}},
  };
  for (const auto& c : cases) {
    aie::set_rounding(c.mode);
    auto got = acc.to_vector<bfloat16>();
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(got[i].bits, c.want[i]) << "mode " << int(c.mode) << " lane " << i;
  }
  aie::set_rounding(rounding_mode::conv_even);
  EXPECT_EQ(to_v16bfloat16(acc)[2].bits, 0x3f81);
}

TEST_F(AieModes, ToFixedAndToFloat) {
  aie::vector<float, 16> f;
  f[0] = 2.5f;
  f[1] = -2.5f;
  f[2] = 1e10f;
  f[3] = 0.0001f;
  aie::set_rounding(rounding_mode::conv_even);
  auto i = aie::to_fixed<int32_t>(f, 0);
  EXPECT_EQ(i[0], 2);
  EXPECT_EQ(i[1], -2);
  EXPECT_EQ(i[2], 2147483647); // saturates
  aie::set_rounding(rounding_mode::ceil);
  EXPECT_EQ(aie::to_fixed<int32_t>(f, 0)[3], 1);
  EXPECT_EQ(aie::to_fixed<int16_t>(f, 2)[0], 10);
  auto back = aie::to_float(padded({10, -3}), 2);
  EXPECT_EQ(back[0], 2.5f);
  EXPECT_EQ(back[1], -0.75f);
}

} // namespace
