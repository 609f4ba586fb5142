// aie::mmul and aie::accumulate against a scalar matrix multiply, for the
// shapes tessel's kernel library uses (aie2 and aie2p mm.cc, mv.cc).
#include "aie_api_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace {

template <typename T, unsigned N>
aie::vector<T, N> random_vector(std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  aie::vector<T, N> v;
  for (unsigned i = 0; i < N; ++i) {
    if constexpr (std::is_same_v<T, bfloat16>)
      v[i] = bfloat16(float(d(rng)) / 8.0f);
    else
      v[i] = static_cast<T>(d(rng));
  }
  return v;
}

// Integer shapes: the product sums are exact in int64 and the result keeps
// the low bits of Tout (shift 0, floor, no saturation).
template <unsigned M, unsigned K, unsigned N, typename Tin, typename Tout>
void check_integer_mmul(int lo, int hi) {
  std::mt19937 rng(M * 100 + K * 10 + N);
  using MMUL = aie::mmul<M, K, N, Tin, Tin>;
  auto c0 = random_vector<Tout, MMUL::size_C>(rng, lo, hi);
  MMUL mm(c0);
  aie::vector<Tin, MMUL::size_A> a[3];
  aie::vector<Tin, MMUL::size_B> b[3];
  for (int step = 0; step < 3; ++step) {
    a[step] = random_vector<Tin, MMUL::size_A>(rng, lo, hi);
    b[step] = random_vector<Tin, MMUL::size_B>(rng, lo, hi);
    mm.mac(a[step], b[step]);
  }
  auto got = mm.template to_vector<Tout>();
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      int64_t want = c0[i * N + j];
      for (int step = 0; step < 3; ++step)
        for (unsigned k = 0; k < K; ++k)
          want += int64_t(a[step][i * K + k]) * b[step][k * N + j];
      EXPECT_EQ(got[i * N + j], static_cast<Tout>(want)) << i << "," << j;
    }
}

TEST(AieMmul, Int8Shapes) {
  check_integer_mmul<4, 8, 8, int8_t, int32_t>(-128, 127);
  check_integer_mmul<8, 8, 8, int8_t, int16_t>(-128, 127);
  check_integer_mmul<4, 8, 8, int8_t, int8_t>(-128, 127);
}

TEST(AieMmul, Int16Shapes) {
  check_integer_mmul<4, 4, 4, int16_t, int32_t>(-32768, 32767);
  check_integer_mmul<4, 4, 8, int16_t, int16_t>(-32768, 32767);
  check_integer_mmul<4, 4, 4, int16_t, int16_t>(-300, 300);
}

TEST(AieMmul, Int16AccumulatesIn64BitLanes) {
  using MMUL = aie::mmul<4, 4, 4, int16_t, int16_t>;
  static_assert(std::is_same_v<MMUL::accum_type, aie::accum<acc64, 16>>);
  static_assert(std::is_same_v<aie::mmul<4, 4, 4, int16_t, int16_t, accfloat>::accum_type, aie::accum<acc64, 16>>);
  static_assert(std::is_same_v<aie::mmul<4, 8, 8, int8_t, int8_t>::accum_type, aie::accum<acc32, 32>>);
  MMUL mm;
  auto big = aie::broadcast<int16_t, 16>(-32768);
  for (int i = 0; i < 4; ++i)
    mm.mac(big, big);
  EXPECT_EQ(mm.to_accum().get(0), 4LL * 4 * 1073741824LL); // 4 macs of K = 4 products: 2^34, beyond 32 bits
  aie::set_saturation(aie::saturation_mode::saturate);
  EXPECT_EQ(mm.to_vector<int32_t>()[0], 2147483647);
  aie::set_saturation(aie::saturation_mode::none);
}

// bf16 shapes: products exact in fp32, sums in k order from the previous C.
template <unsigned M, unsigned K, unsigned N, typename Tout>
void check_bf16_mmul() {
  std::mt19937 rng(M * 100 + K * 10 + N);
  using MMUL = aie::mmul<M, K, N, bfloat16, bfloat16, accfloat>;
  auto c0 = random_vector<bfloat16, MMUL::size_C>(rng, -64, 64);
  aie::vector<Tout, MMUL::size_C> c_in;
  for (unsigned i = 0; i < MMUL::size_C; ++i)
    c_in[i] = Tout(float(c0[i]));
  MMUL mm(c_in);
  auto a = random_vector<bfloat16, MMUL::size_A>(rng, -64, 64);
  auto b = random_vector<bfloat16, MMUL::size_B>(rng, -64, 64);
  mm.mac(a, b);
  aie::set_rounding(aie::rounding_mode::conv_even);
  auto got = mm.template to_vector<Tout>();
  aie::set_rounding(aie::rounding_mode::floor);
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      float want = float(c0[i * N + j]);
      for (unsigned k = 0; k < K; ++k)
        want += float(a[i * K + k]) * float(b[k * N + j]);
      EXPECT_EQ(float(got[i * N + j]), float(Tout(want))) << i << "," << j;
    }
}

TEST(AieMmul, Bfloat16Shapes) {
  check_bf16_mmul<4, 8, 4, float>();
  check_bf16_mmul<4, 8, 4, bfloat16>();
  check_bf16_mmul<4, 8, 8, float>();
  check_bf16_mmul<8, 8, 8, bfloat16>();
}

TEST(AieMmul, MulStartsFromZero) {
  aie::mmul<4, 4, 4, int16_t, int16_t> mm(aie::broadcast<int32_t, 16>(100));
  auto ones = aie::broadcast<int16_t, 16>(1);
  mm.mul(ones, ones);
  EXPECT_EQ(mm.to_vector<int32_t>()[5], 4);
}

TEST(AieMmul, TakesAnAccumulatorByAssignmentAsIronsConvKernelsDo) {
  using MMUL = aie::mmul<4, 8, 8, uint8_t, int8_t>;
  aie::accum<acc32, 32> acc(aie::broadcast<int32_t, 32>(-3));
  MMUL m = acc;  // copy-initialised from an accumulator
  m.mac(aie::broadcast<uint8_t, 32>(2), aie::broadcast<int8_t, 64>(5));
  EXPECT_EQ(m.to_vector<int32_t>()[7], -3 + 8 * 2 * 5);
  m = aie::zeros<acc32, 32>();
  EXPECT_EQ(m.to_vector<int32_t>()[7], 0);
}

TEST(AieAccum, ConcatSubtractsAVectorAndNativeLengths) {
  aie::accum<accfloat, 16> a(aie::broadcast<float, 16>(1.5f)), b(aie::broadcast<float, 16>(-2.0f));
  auto both = aie::concat(a, b);
  static_assert(decltype(both)::size() == 32);
  EXPECT_EQ(both.get(3), 1.5f);
  EXPECT_EQ(both.get(20), -2.0f);
  auto d = aie::sub(a, aie::broadcast<float, 16>(0.25f));
  EXPECT_EQ(d.get(0), 1.25f);
  aie::accum<acc32, 16> i(aie::broadcast<int32_t, 16>(10));
  EXPECT_EQ(aie::sub(i, aie::broadcast<int16_t, 16>(-4)).get(15), 14);
  static_assert(aie::native_vector_length_v<int8_t> == 64 && aie::native_vector_length_v<bfloat16> == 32 &&
                aie::native_vector_length_v<float> == 16);
  auto u = aie::broadcast<uint8_t, 32>(200);
  EXPECT_EQ(u.unpack()[0], 200);
  EXPECT_EQ((aie::broadcast<int16_t, 32>(-5).pack()[31]), -5);
}

TEST(AieAccum, ScalarsAddToEveryLaneAndMacSquareAccumulatesSquares) {
  aie::accum<accfloat, 16> f(aie::broadcast<float, 16>(2.0f));
  EXPECT_EQ(aie::add(f, -12582912.0f).get(4), 2.0f - 12582912.0f);
  EXPECT_EQ(aie::sub(f, 0.5f).get(9), 1.5f);
  aie::accum<acc64, 16> i(aie::broadcast<int32_t, 16>(7));
  EXPECT_EQ(aie::add(i, 5).get(0), 12);
  auto v = aie::broadcast<int16_t, 16>(-3);
  EXPECT_EQ(aie::mac_square(i, v).get(15), 7 + 9);
  auto parts = aie::concat(f, f, aie::sub(f, 1.0f), f);
  static_assert(decltype(parts)::size() == 64);
  EXPECT_EQ(parts.get(40), 1.0f);
}

// out[l] = acc[l] + sign * sum_p coeff[(cs + p*CS) mod NC] * data[(ds + l*DSY + p*DSX) mod ND], by hand.
template <unsigned L, unsigned P, int CS, int DSX, int DSY, typename C, unsigned NC, typename D, unsigned ND>
std::vector<int64_t> sliding_reference(const aie::vector<C, NC>& c, unsigned cs, const aie::vector<D, ND>& d,
                                       unsigned ds) {
  auto at = [](int64_t i, int64_t n) { return unsigned(((i % n) + n) % n); };
  std::vector<int64_t> out(L);
  for (unsigned l = 0; l < L; ++l)
    for (unsigned p = 0; p < P; ++p)
      out[l] += int64_t(c[at(int64_t(cs) + int64_t(p) * CS, NC)]) *
                int64_t(d[at(int64_t(ds) + int64_t(l) * DSY + int64_t(p) * DSX, ND)]);
  return out;
}

TEST(AieSlidingMul, MatchesTheComputePatternWithWrappingIndices) {
  std::mt19937 rng(11);
  auto coeff = random_vector<int16_t, 16>(rng, -300, 300);
  auto data = random_vector<int16_t, 32>(rng, -300, 300);
  {  // a FIR: 8 lanes, 4 points, data stepping by 1 along x and y; coeff_start 14 wraps past the end
    using Ops = aie::sliding_mul_ops<8, 4, 1, 1, 1, int16_t, int16_t>;
    auto want = sliding_reference<8, 4, 1, 1, 1>(coeff, 14, data, 3);
    auto got = Ops::mul(coeff, 14, data, 3);
    for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(got.get(l), want[l]) << "lane " << l;
    auto acc = Ops::mac(got, coeff, 14, data, 3);
    EXPECT_EQ(acc.get(5), 2 * want[5]);
    EXPECT_EQ(Ops::negmac(acc, coeff, 14, data, 3).get(5), want[5]);
    EXPECT_EQ(Ops::negmul(coeff, 14, data, 3).get(2), -want[2]);
  }
  {  // the xy form, coefficient step 2 and data step 3 (filter2d's shape); data_start near the end wraps
    using Ops = aie::sliding_mul_xy_ops<16, 3, 2, 3, int16_t, int16_t>;
    auto want = sliding_reference<16, 3, 2, 3, 3>(coeff, 1, data, 30);
    auto got = Ops::mul(coeff, 1, data, 30);
    for (unsigned l = 0; l < 16; ++l) EXPECT_EQ(got.get(l), want[l]) << "lane " << l;
    auto fn = aie::sliding_mul<16, 3, 2, 3, 3>(coeff, 1, data, 30);
    EXPECT_EQ(fn.get(9), want[9]);
  }
  {  // bfloat16 in fp32 lanes (dwconv1d's form): small integers, so every sum is exact
    aie::vector<bfloat16, 16> c;
    aie::vector<bfloat16, 32> d;
    for (unsigned i = 0; i < 16; ++i) c[i] = bfloat16(float(int(i % 5) - 2));
    for (unsigned i = 0; i < 32; ++i) d[i] = bfloat16(float(int(i % 7) - 3));
    auto got = aie::sliding_mul_ops<16, 5, 1, 1, 1, bfloat16, bfloat16>::mul(c, 0, d, 2);
    static_assert(std::is_same_v<decltype(got), aie::accum<accfloat, 16>>);
    for (unsigned l = 0; l < 16; ++l) {
      float want = 0;
      for (unsigned p = 0; p < 5; ++p) want += float(c[p]) * float(d[(2 + l + p) % 32]);
      EXPECT_EQ(got.get(l), want) << "lane " << l;
    }
  }
}

TEST(AieAccumulate, DotProductsOfColumns) {
  // c[i] = acc[i] + sum_j coeff[first + j] * v_j[i], as mv.cc uses it.
  std::mt19937 rng(7);
  auto coeff = random_vector<int16_t, 8>(rng, -1000, 1000);
  auto v0 = random_vector<int16_t, 16>(rng, -1000, 1000), v1 = random_vector<int16_t, 16>(rng, -1000, 1000);
  aie::accum<acc32, 16> acc(random_vector<int32_t, 16>(rng, -5, 5));
  auto out = aie::accumulate<16>(acc, coeff, 2, v0, v1);
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(out.get(i), acc.get(i) + coeff[2] * v0[i] + coeff[3] * v1[i]);
  auto fresh = aie::accumulate<16>(coeff, 0, v0);
  EXPECT_EQ(fresh.get(3), coeff[0] * v0[3]);
}

} // namespace
