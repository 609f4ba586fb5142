// The AIE API's element-wise operations, lane movements, loads and stores,
// against scalar references.
#include "aie_api_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

template <typename T, unsigned N>
aie::vector<T, N> iota(int start = 0, int step = 1) {
  aie::vector<T, N> v;
  for (unsigned i = 0; i < N; ++i)
    v[i] = static_cast<T>(start + int(i) * step);
  return v;
}

TEST(AieElementwise, IntegerArithmeticWrapsAtTheElementWidth) {
  auto a = iota<int16_t, 32>(32760), b = aie::broadcast<int16_t, 32>(10);
  auto sum = aie::add(a, b), diff = aie::sub(b, a);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(sum[i], int16_t(uint16_t(32760 + i + 10)));
    EXPECT_EQ(diff[i], int16_t(uint16_t(10 - int16_t(32760 + i))));
  }
  EXPECT_EQ(aie::add(a, int16_t(1))[0], 32761);
  EXPECT_EQ(aie::sub(int16_t(0), a)[0], -32760);
  auto m = aie::broadcast<int8_t, 64>(-128);
  EXPECT_EQ(aie::neg(m)[0], -128);
  EXPECT_EQ(aie::abs(m)[0], -128);
  EXPECT_EQ(aie::abs(iota<int32_t, 16>(-3))[0], 3);
}

TEST(AieElementwise, MaxMinAndReductions) {
  auto a = iota<int32_t, 16>(-8, 3), b = aie::broadcast<int32_t, 16>(5);
  auto mx = aie::max(a, b), mn = aie::min(a, b);
  for (unsigned i = 0; i < 16; ++i) {
    int x = -8 + 3 * int(i);
    EXPECT_EQ(mx[i], std::max(x, 5));
    EXPECT_EQ(mn[i], std::min(x, 5));
  }
  EXPECT_EQ(aie::reduce_max(a), 37);
  EXPECT_EQ(aie::reduce_min(a), -8);
  EXPECT_EQ(aie::reduce_add(a), 16 * -8 + 3 * 120);
  auto big = aie::broadcast<int32_t, 16>(std::numeric_limits<int32_t>::max());
  EXPECT_EQ(aie::reduce_add(big), -16); // 16 * (2^31 - 1) modulo 2^32
  auto bf = aie::broadcast<bfloat16, 32>(0.5f);
  bf[7] = -3.0f;
  EXPECT_EQ(float(aie::reduce_add(bf)), 31 * 0.5f - 3.0f);
  EXPECT_EQ(float(aie::reduce_min(bf)), -3.0f);
  EXPECT_EQ(float(aie::reduce_max(aie::max(bf, bfloat16(0.25f)))), 0.5f);
}

TEST(AieElementwise, Bfloat16ArithmeticRoundsByTheCurrentMode) {
  aie::vector<bfloat16, 16> a = aie::broadcast<bfloat16, 16>(1.0f);
  aie::vector<bfloat16, 16> b = aie::broadcast<bfloat16, 16>(bfloat16::from_bits(0x3b80)); // 2^-8: half a ulp of 1
  aie::set_rounding(aie::rounding_mode::conv_even);
  EXPECT_EQ(aie::add(a, b)[0].bits, 0x3f80);
  aie::set_rounding(aie::rounding_mode::ceil);
  EXPECT_EQ(aie::add(a, b)[0].bits, 0x3f81);
  aie::set_rounding(aie::rounding_mode::floor);
  aie::vector<bfloat16, 16> p = aie::mul(a, b); // through accfloat
  EXPECT_EQ(p[0].bits, 0x3b80);
}

TEST(AieElementwise, BitOperationsAndShifts) {
  auto a = iota<uint8_t, 64>(0), b = aie::broadcast<uint8_t, 64>(0x0f);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(aie::bit_and(a, b)[i], uint8_t(i & 0x0f));
    EXPECT_EQ(aie::bit_or(a, b)[i], uint8_t(i | 0x0f));
    EXPECT_EQ(aie::bit_xor(a, b)[i], uint8_t(i ^ 0x0f));
    EXPECT_EQ(aie::bit_not(a)[i], uint8_t(~i));
  }
  auto s = iota<int32_t, 16>(-4);
  EXPECT_EQ(aie::downshift(s, 1)[0], -2);
  EXPECT_EQ(aie::upshift(s, 2)[1], -12);
}

TEST(AieElementwise, PackSaturatesByTheModeAndUnpackExtendsBySign) {
  auto wide = iota<int16_t, 32>(-200);  // -200 .. -169, then 300 as the last
  wide[31] = 300;
  aie::set_saturation(aie::saturation_mode::saturate);
  auto packed = aie::pack(wide);
  static_assert(std::is_same_v<decltype(packed), aie::vector<int8, 32>>);
  EXPECT_EQ(packed[0], -128);
  EXPECT_EQ(packed[31], 127);
  aie::set_saturation(aie::saturation_mode::none);
  EXPECT_EQ(aie::pack(wide)[0], int8_t(-200));  // wraps: the low 8 bits
  EXPECT_EQ(aie::pack(wide)[31], int8_t(300 & 0xff));
  auto u = aie::broadcast<uint16_t, 32>(70000 & 0xffff);
  aie::set_saturation(aie::saturation_mode::saturate);
  EXPECT_EQ(aie::pack(u)[5], 255);
  aie::set_saturation(aie::saturation_mode::none);
  auto s8 = iota<int8_t, 32>(-16);
  auto s16 = aie::unpack(s8);
  static_assert(std::is_same_v<decltype(s16), aie::vector<int16, 32>>);
  auto u16 = aie::unpack(aie::vector_cast<uint8>(s8));
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(s16[i], int16_t(int(i) - 16));
    EXPECT_EQ(u16[i], uint16_t(uint8_t(int(i) - 16)));
  }
  // The intrinsics' names for the bit operations (IRON's vision kernels use bor).
  auto a = iota<uint8_t, 64>(0), m = aie::broadcast<uint8_t, 64>(0xf0);
  EXPECT_EQ(bor(a, m)[3], 0xf3);
  EXPECT_EQ(band(a, m)[0x35], 0x30);
  EXPECT_EQ(bxor(a, m)[0xff - 0xc0], uint8_t(0x3f ^ 0xf0));
  EXPECT_EQ(bneg(a)[1], 0xfe);
}

TEST(AieElementwise, ClampScalarSelectScalarConversionsAndWideVectors) {
  auto v = iota<int16_t, 32>(-16);
  auto c = aie::clamp(v, int16_t(-3), int16_t(4));
  EXPECT_EQ(c[0], -3);
  EXPECT_EQ(c[15], -1);
  EXPECT_EQ(c[31], 4);
  auto bf = aie::clamp(aie::broadcast<bfloat16, 32>(bfloat16(9.5f)), bfloat16(-1.0f), bfloat16(2.0f));
  EXPECT_EQ(float(bf[3]), 2.0f);
  auto m = aie::lt(v, int16_t(0));
  auto s = aie::select(int16_t(7), int16_t(-7), m);  // -7 where v < 0
  EXPECT_EQ(s[0], -7);
  EXPECT_EQ(s[16], 7);
  EXPECT_EQ(aie::max(bfloat16(1.5f), bfloat16(-2.0f)), bfloat16(1.5f));
  EXPECT_EQ(aie::min(3, -4), -4);
  EXPECT_EQ(aie::to_float<float>(int32_t(48)), 48.0f);
  EXPECT_EQ(aie::to_float<float>(int32_t(48), 4), 3.0f);
  EXPECT_EQ(aie::to_fixed<int32_t>(2.5f, 1), 5);
  aie::vector<float, 64> wide = aie::broadcast<float, 64>(0.25f);  // 2048 bits: several registers
  EXPECT_EQ(aie::reduce_add(wide), 16.0f);
  // The intrinsics' names: undef_*, broadcast_one_to_*, extract_* (part idx of a wider register).
  EXPECT_EQ(undef_v16int32()[3], 0);
  EXPECT_EQ(float(broadcast_one_to_v32bfloat16()[31]), 1.0f);
  auto lo_hi = iota<int32_t, 32>(0);
  EXPECT_EQ(extract_v16int32(lo_hi, 1)[0], 16);
  EXPECT_EQ(extract_v8int32(lo_hi, 3)[7], 31);
  set_sat();  // the intrinsics' names for the saturation mode
  EXPECT_EQ(aie::get_saturation(), aie::saturation_mode::saturate);
  clr_sat();
  EXPECT_EQ(aie::get_saturation(), aie::saturation_mode::none);
}

TEST(AieElementwise, ComparisonsMasksAndSelect) {
  auto a = iota<int32_t, 16>(-8), z = aie::zeros<int32_t, 16>();
  auto neg = aie::lt(a, z);
  EXPECT_EQ(neg.count(), 8u);
  EXPECT_TRUE(neg.test(0));
  EXPECT_FALSE(neg.test(8));
  EXPECT_EQ(aie::le(a, 0).count(), 9u);
  EXPECT_EQ(aie::gt(a, 0).count(), 7u);
  EXPECT_EQ(aie::ge(a, 0).count(), 8u);
  EXPECT_EQ(aie::eq(a, 0).count(), 1u);
  EXPECT_EQ(aie::neq(a, 0).count(), 15u);
  EXPECT_TRUE((neg | aie::ge(a, 0)).full());
  EXPECT_TRUE((neg & aie::ge(a, 0)).empty());
  EXPECT_EQ((~neg).count(), 8u);
  auto relu = aie::select(a, z, neg); // b where the mask is set
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(relu[i], std::max(-8 + int(i), 0));
  EXPECT_EQ(aie::mask<16>::from_uint32(0x8001).count(), 2u);
  EXPECT_EQ(aie::mask<16>::from_uint32(0x8001).to_uint32(), 0x8001u);
}

TEST(AieElementwise, OperatorsSpellTheOperations) {
  using namespace aie::operators;
  auto a = iota<int32_t, 16>(-8), b = aie::broadcast<int32_t, 16>(3);
  EXPECT_EQ((a + b)[0], -5);
  EXPECT_EQ((a - 1)[0], -9);
  EXPECT_EQ((-a)[0], 8);
  EXPECT_EQ((a & b)[1], -7 & 3);
  EXPECT_EQ((a | b)[1], -7 | 3);
  EXPECT_EQ((a ^ b)[1], -7 ^ 3);
  EXPECT_EQ((~a)[0], 7);
  EXPECT_EQ((a << 1)[0], -16);
  EXPECT_EQ((a >> 1)[0], -4);
  EXPECT_EQ((a < b).count(), 11u);
  EXPECT_EQ((a <= 3).count(), 12u);
  EXPECT_EQ((a > b).count(), 4u);
  EXPECT_EQ((a >= 3).count(), 5u);
  EXPECT_EQ((a == 3).count(), 1u);
  EXPECT_EQ((a != b).count(), 15u);
}

TEST(AieLanes, ShufflesFillAndRotate) {
  auto v = iota<int32_t, 16>(0), f = iota<int32_t, 16>(100);
  auto up = aie::shuffle_up(v, 3), down = aie::shuffle_down(v, 3);
  EXPECT_EQ(up[0], 0);
  EXPECT_EQ(up[3], 0);
  EXPECT_EQ(up[15], 12);
  EXPECT_EQ(down[0], 3);
  EXPECT_EQ(down[12], 15);
  EXPECT_EQ(down[13], 0);
  EXPECT_EQ(aie::shuffle_up_fill(v, f, 2)[0], 114);
  EXPECT_EQ(aie::shuffle_down_fill(v, f, 2)[15], 101);
  EXPECT_EQ(aie::shuffle_up_rotate(v, 1)[0], 15);
  EXPECT_EQ(aie::shuffle_down_rotate(v, 1)[15], 0);
  auto w = iota<int32_t, 16>(5);  // 5 .. 20: the edges repeat
  auto rep_up = aie::shuffle_up_replicate(w, 3), rep_down = aie::shuffle_down_replicate(w, 3);
  EXPECT_EQ(rep_up[0], 5);
  EXPECT_EQ(rep_up[2], 5);
  EXPECT_EQ(rep_up[3], 5);
  EXPECT_EQ(rep_up[4], 6);
  EXPECT_EQ(rep_down[12], 20);
  EXPECT_EQ(rep_down[15], 20);
  EXPECT_EQ(rep_down[11], 19);
  EXPECT_EQ(aie::reverse(v)[0], 15);
}

TEST(AieLanes, FilterInterleaveTransposeConcat) {
  auto v = iota<int16_t, 16>(0);
  auto even = aie::filter_even(v), odd = aie::filter_odd(v);
  auto even2 = aie::filter_even(v, 2);
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(even[i], int16_t(2 * i));
    EXPECT_EQ(odd[i], int16_t(2 * i + 1));
    EXPECT_EQ(even2[i], int16_t((i / 2) * 4 + i % 2)); // 0 1 4 5 8 9 ...
  }
  auto w = iota<int16_t, 16>(100);
  auto [lo, hi] = aie::interleave_zip(v, w, 1);
  EXPECT_EQ(lo[0], 0);
  EXPECT_EQ(lo[1], 100);
  EXPECT_EQ(hi[0], 8);
  EXPECT_EQ(hi[15], 115);
  auto [a, b] = aie::interleave_unzip(lo, hi, 1);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(a[i], v[i]);
    EXPECT_EQ(b[i], w[i]);
  }
  auto t = aie::transpose(v, 2, 8); // 2 x 8 row-major to 8 x 2
  for (unsigned r = 0; r < 2; ++r)
    for (unsigned c = 0; c < 8; ++c)
      EXPECT_EQ(t[c * 2 + r], v[r * 8 + c]);
  auto cat = aie::concat(v, w);
  EXPECT_EQ(cat.size(), 32u);
  EXPECT_EQ(cat[16], 100);
}

TEST(AieLanes, ExtractInsertGrowCastPush) {
  auto v = iota<int32_t, 16>(0);
  auto part = v.extract<8>(1);
  EXPECT_EQ(part[0], 8);
  aie::vector<int32_t, 16> w;
  w.insert(1, part);
  EXPECT_EQ(w[8], 8);
  EXPECT_EQ(w[0], 0);
  auto g = part.grow<16>(1);
  EXPECT_EQ(g[15], 15);
  auto bytes = v.cast_to<uint8_t>();
  EXPECT_EQ(bytes.size(), 64u);
  EXPECT_EQ(bytes[4], 1);
  v.push(-1);
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(v[15], 14);
  EXPECT_EQ(extract_elem(v, 2), 1);
  v16int32 s = shift_bytes(iota<int32_t, 16>(0), iota<int32_t, 16>(16), 8);
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[15], 17);
}

TEST(AieLanes, IndexMisuseFailsAtTheCallSite) {
  auto v = iota<int32_t, 16>(0);
  unsigned line = 0;
  try {
    line = __LINE__ + 1;
    (void)v.get(16);
    FAIL() << "no failure";
  } catch (const AieFailure& e) {
    EXPECT_STREQ(e.what(), "aie::vector::get: index 16 is beyond the 16 it holds (expected 0 to 15)");
    EXPECT_NE(e.file.find("aie_api_ops_test.cpp"), std::string::npos);
    EXPECT_EQ(e.line, line);
  }
  EXPECT_THROW((void)aie::transpose(v, 3, 5), AieFailure);
  EXPECT_THROW((void)aie::filter_even(v, 3), AieFailure);
}

TEST(AieMemory, LoadsAndStoresRoundTrip) {
  alignas(32) int16_t in[64], out[64] = {};
  for (int i = 0; i < 64; ++i)
    in[i] = int16_t(i * 3);
  aie::store_v(out, aie::load_v<32>(in));
  aie::store_unaligned_v(out + 33, aie::load_unaligned_v<16>(in + 1));
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], in[i]);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out[33 + i], in[1 + i]);
  auto it = aie::begin_vector<16>(out);
  aie::vector<int16_t, 16> first = *it;
  EXPECT_EQ(first[1], 3);
  ++it;
  *it = aie::broadcast<int16_t, 16>(7);
  EXPECT_EQ(out[16], 7);
  // The default size is a 512-bit vector.
  EXPECT_EQ(aie::load_v(in).size(), 32u);
}

TEST(AieMemory, AnUnalignedLoadOrStoreFailsNamingTheRule) {
  alignas(32) int32_t buf[48] = {};
  unsigned line = 0;
  try {
    line = __LINE__ + 1;
    (void)aie::load_v<16>(buf + 4); // 16 bytes in: a 64-byte vector needs 32-byte alignment
    FAIL() << "no failure";
  } catch (const AieFailure& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("aie::load_v of 16 x int32: address 0x", 0), 0u) << m;
    EXPECT_NE(m.find(" is not aligned to 32 bytes (the AIE aligns vector accesses to the vector's size, at most 32 "
                     "bytes; use aie::load_unaligned_v for element-aligned data)"),
              std::string::npos)
        << m;
    EXPECT_EQ(e.line, line);
  }
  // A 128-bit vector needs 16-byte alignment only.
  EXPECT_NO_THROW((void)aie::load_v<4>(buf + 4));
  EXPECT_THROW((void)aie::load_v<4>(buf + 2), AieFailure);
  try {
    aie::store_v(buf + 1, aie::zeros<int32_t, 8>());
    FAIL() << "no failure";
  } catch (const AieFailure& e) {
    EXPECT_NE(std::string(e.what()).find("aie::store_v of 8 x int32"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("use aie::store_unaligned_v"), std::string::npos);
  }
}

TEST(AieMath, ElementaryFunctionsWithinOneBfloat16Ulp) {
  aie::set_rounding(aie::rounding_mode::conv_even);
  aie::vector<bfloat16, 16> x;
  for (int i = 0; i < 16; ++i)
    x[i] = bfloat16(-4.0f + 0.5f * float(i));
  auto e = aie::exp(x), e2 = aie::exp2(x);
  auto pos = aie::add(aie::abs(x), bfloat16(0.5f));
  auto inv = aie::inv(pos), isq = aie::invsqrt(pos), sq = aie::sqrt(pos);
  for (int i = 0; i < 16; ++i) {
    double xi = float(x[i]), pi = float(pos[i]);
    auto ulp = [](double v) { return std::ldexp(1.0, std::ilogb(v) - 7); };
    EXPECT_LE(std::fabs(float(e[i]) - std::exp(xi)), ulp(std::exp(xi)) / 2 + 1e-30) << xi;
    EXPECT_LE(std::fabs(float(e2[i]) - std::exp2(xi)), ulp(std::exp2(xi)) / 2 + 1e-30) << xi;
    EXPECT_LE(std::fabs(float(inv[i]) - 1 / pi), ulp(1 / pi) / 2) << pi;
    EXPECT_LE(std::fabs(float(isq[i]) - 1 / std::sqrt(pi)), ulp(1 / std::sqrt(pi)) / 2) << pi;
    EXPECT_LE(std::fabs(float(sq[i]) - std::sqrt(pi)), ulp(std::sqrt(pi)) / 2) << pi;
  }
  // tanh<bfloat16> of a float vector (IRON's aie2p gelu and silu): within half a bfloat16 ulp, plus fp32 error.
  aie::vector<float, 16> xf;
  for (int i = 0; i < 16; ++i)
    xf[i] = -3.0f + 0.37f * float(i);
  auto t = aie::tanh<bfloat16>(xf);
  static_assert(std::is_same_v<decltype(t), aie::vector<bfloat16, 16>>);
  for (int i = 0; i < 16; ++i) {
    double want = std::tanh(double(xf[i]));
    EXPECT_LE(std::fabs(float(t[i]) - want), std::ldexp(1.0, std::ilogb(want) - 8) + 1e-6) << xf[i];
  }
  EXPECT_EQ(aie::tanh(xf)[0], std::tanh(-3.0f));
  aie::set_rounding(aie::rounding_mode::floor);
}

TEST(AieIntrinsics, RegisterTypesBroadcastsAndPointerIdiom) {
  alignas(32) int32_t data[32];
  for (int i = 0; i < 32; ++i)
    data[i] = i;
  v16int32 z = broadcast_to_v16int32(0);
  v16int32 sum = z;
  for (int i = 0; i < 32; i += 16)
    sum = add(sum, *(v16int32*)(data + i)); // the aie:: add, found by ADL
  EXPECT_EQ(sum[0], 16);
  EXPECT_EQ(sum[15], 46);
  static_assert(sizeof(v16int32) == 64 && sizeof(v32bfloat16) == 64 && sizeof(v64uint8) == 64);
  v32bfloat16 zb = broadcast_zero_bfloat16();
  EXPECT_EQ(max(zb, zb)[0].bits, 0);
  aie::accum<acc32, 32> acc(iota<int16_t, 32>(-3));
  EXPECT_EQ(srs_to_v32int16(acc, 1)[0], -2); // -3 / 2, floored
  event0();
  event1();
}

} // namespace

TEST(AieIntrinsics, TwoRegisterShuffleTransposesTheMatrixItsModeNames) {
  v64uint8 a, b;
  for (unsigned i = 0; i < 64; ++i) {
    a[i] = uint8_t(i);
    b[i] = uint8_t(100 + i);
  }
  // T8_2x64: a and b are the two rows; the transpose interleaves their bytes.
  const v64uint8 lo = ::shuffle(a, b, T8_2x64_lo), hi = ::shuffle(a, b, T8_2x64_hi);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(lo[2 * i], i);
    EXPECT_EQ(lo[2 * i + 1], 100 + i);
    EXPECT_EQ(hi[2 * i], 32 + i);
    EXPECT_EQ(hi[2 * i + 1], 132 + i);
  }
  // T8_64x2 takes the interleave apart again.
  const v64uint8 back_a = ::shuffle(lo, hi, T8_64x2_lo), back_b = ::shuffle(lo, hi, T8_64x2_hi);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(back_a[i], a[i]);
    EXPECT_EQ(back_b[i], b[i]);
  }
  // T16_16x4: 16-bit elements, 16 rows of 4; element (r, c) = r * 4 + c lands at c * 16 + r.
  v32uint16 x, y;
  for (unsigned i = 0; i < 32; ++i) {
    x[i] = uint16_t(i);
    y[i] = uint16_t(32 + i);
  }
  const v32uint16 t_lo = ::shuffle(x, y, T16_16x4_lo), t_hi = ::shuffle(x, y, T16_16x4_hi);
  for (unsigned c = 0; c < 4; ++c)
    for (unsigned r = 0; r < 16; ++r) {
      const unsigned at = c * 16 + r;
      EXPECT_EQ((at < 32 ? t_lo[at] : t_hi[at - 32]), r * 4 + c) << "row " << r << " column " << c;
    }
}

TEST(AieMemory, RestrictIteratorsWalkWholeVectors) {
  alignas(64) int32_t in[32], out[32] = {};
  for (int i = 0; i < 32; ++i)
    in[i] = i * 3;
  auto src = aie::cbegin_restrict_vector<16>(in);
  auto dst = aie::begin_restrict_vector<16>(out);
  *dst++ = *src++;
  *dst++ = aie::add(*src++, aie::broadcast<int32_t, 16>(1));
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], i * 3 + (i >= 16 ? 1 : 0));
}

TEST(AieElementwise, BroadcastTakesTheScalarsTypeAndZerosOfATagAreAnAccumulator) {
  const bfloat16 half(0.5f);
  const auto v = aie::broadcast(half); // the type of its argument, the native size
  static_assert(std::is_same_v<std::remove_const_t<decltype(v)>, aie::vector<bfloat16, 32>>);
  EXPECT_EQ(float(v[31]), 0.5f);
  const auto w = aie::broadcast<int16_t, 16>(7); // converted to the type asked for
  static_assert(std::is_same_v<std::remove_const_t<decltype(w)>, aie::vector<int16_t, 16>>);
  EXPECT_EQ(w[15], 7);
  auto acc = aie::zeros<accfloat, 16>();
  static_assert(std::is_same_v<decltype(acc), aie::accum<accfloat, 16>>);
  acc = aie::add(acc, aie::broadcast<bfloat16, 16>(2.0f));
  EXPECT_EQ(acc.to_vector<float>()[3], 2.0f);
  const auto sq = aie::mul_square(aie::broadcast<int16_t, 16>(-300)); // in an accumulator, as mul gives it
  EXPECT_EQ(sq.to_vector<int32_t>()[0], 90000);
}
