// Tile layout and tile data formats (src/sim/formats.cpp): exact bit layouts,
// rounding rules, round trips with stated bounds, and every validation error.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "tessel/error.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

float from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t to_bits(float value) { return std::bit_cast<uint32_t>(value); }

template <class F>
std::string validation_message(F&& call) {
  try {
    call();
  } catch (const ValidationError& e) {
    return e.what();
  }
  return "<no ValidationError>";
}

// Row and column of tile-order index i in a matrix that is tile_cols tiles wide.
std::pair<uint32_t, uint32_t> position_of(size_t i, uint32_t tile_cols) {
  const size_t tile = i / kTileHW, in_tile = i % kTileHW;
  const uint32_t face = uint32_t(in_tile / kFaceHW), in_face = uint32_t(in_tile % kFaceHW);
  const uint32_t row = uint32_t(tile / tile_cols) * 32 + (face / 2) * 16 + in_face / 16;
  const uint32_t col = uint32_t(tile % tile_cols) * 32 + (face % 2) * 16 + in_face % 16;
  return {row, col};
}

// Random tilized values whose magnitudes spread over 2^-20 .. 2^20, with the
// spread differing between exponent groups.
std::vector<float> random_tiles(uint32_t tiles, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> group_exp(-20, 20), spread(0, 12);
  std::vector<float> values(size_t(tiles) * kTileHW);
  for (size_t g = 0; g < values.size() / kBfpGroupSize; ++g) {
    const int base = group_exp(rng), width = spread(rng);
    std::uniform_int_distribution<int> offset(-width, 0);
    for (size_t i = 0; i < kBfpGroupSize; ++i)
      values[g * kBfpGroupSize + i] = std::ldexp(normal(rng), base + offset(rng));
  }
  return values;
}

// ---- bfloat16 ----

TEST(Formats, Bf16RoundsToNearestTiesToEven) {
  EXPECT_EQ(float_to_bf16(from_bits(0x3F808000)), 0x3F80); // tie, 0x3F80 even: down
  EXPECT_EQ(float_to_bf16(from_bits(0x3F818000)), 0x3F82); // tie, 0x3F81 odd: up
  EXPECT_EQ(float_to_bf16(from_bits(0x3F808001)), 0x3F81); // above the tie
  EXPECT_EQ(float_to_bf16(from_bits(0x3F807FFF)), 0x3F80); // below the tie
  EXPECT_EQ(float_to_bf16(from_bits(0xBF818000)), 0xBF82); // sign does not change the rule
  EXPECT_EQ(float_to_bf16(from_bits(0x3FFF8000)), 0x4000); // carry into the exponent
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_bf16(0.0f), 0x0000);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
}

TEST(Formats, Bf16InfinityAndNaN) {
  EXPECT_EQ(float_to_bf16(kInf), 0x7F80);
  EXPECT_EQ(float_to_bf16(-kInf), 0xFF80);
  EXPECT_EQ(float_to_bf16(from_bits(0x7F7F0000)), 0x7F7F); // largest bf16 stays
  EXPECT_EQ(float_to_bf16(from_bits(0x7F7F8000)), 0x7F80); // tie above it rounds to even: infinity
  EXPECT_EQ(float_to_bf16(from_bits(0x7F7FFFFF)), 0x7F80); // largest float rounds to infinity
  EXPECT_EQ(float_to_bf16(from_bits(0xFF7FFFFF)), 0xFF80); // and its negative to -infinity
  EXPECT_EQ(float_to_bf16(from_bits(0x7FC00000)), 0x7FC0); // quiet NaN kept
  EXPECT_EQ(float_to_bf16(from_bits(0x7F800001)), 0x7FC0); // signalling NaN (payload below bf16) made quiet
  EXPECT_EQ(float_to_bf16(from_bits(0x7FBFFFFF)), 0x7FFF); // never rounded up into the sign bit
  EXPECT_EQ(float_to_bf16(from_bits(0xFF812345)), 0xFFC1); // sign and top payload kept
  EXPECT_EQ(float_to_bf16(from_bits(0xFFFFFFFF)), 0xFFFF);
  EXPECT_TRUE(std::isnan(bf16_to_float(0x7FC0)));
  EXPECT_EQ(bf16_to_float(0xFF80), -kInf);
}

TEST(Formats, Bf16FlushesDenormalsToSignedZero) {
  EXPECT_EQ(float_to_bf16(from_bits(0x00000001)), 0x0000);
  EXPECT_EQ(float_to_bf16(from_bits(0x007FFFFF)), 0x0000); // would round to the smallest normal
  EXPECT_EQ(float_to_bf16(from_bits(0x807FFFFF)), 0x8000);
  EXPECT_EQ(float_to_bf16(from_bits(0x00800000)), 0x0080); // smallest normal stays
  // Decoding is exact, denormal patterns included.
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));
  EXPECT_EQ(to_bits(bf16_to_float(0x8000)), 0x80000000u);
}

TEST(Formats, Bf16EveryPatternRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = uint16_t(b);
    const float value = bf16_to_float(bits);
    ASSERT_EQ(to_bits(value), b << 16);
    uint16_t expected = bits;
    if ((b & 0x7F80) == 0) expected = uint16_t(b & 0x8000);                       // denormal: flushed
    if ((b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0) expected = uint16_t(b | 0x40); // NaN: quiet
    ASSERT_EQ(float_to_bf16(value), expected) << "bf16 pattern 0x" << std::hex << b;
  }
}

// ---- Tile sizes ----

TEST(Formats, PackedTileSizesMatchTileSize) {
  const std::vector<float> two_tiles(2 * kTileHW, 1.0f);
  const std::pair<DataFormat, uint32_t> cases[] = {{DataFormat::Float32, 4096}, {DataFormat::Float16_b, 2048},
                                                   {DataFormat::Bfp8_b, 1088},  {DataFormat::Bfp4_b, 576},
                                                   {DataFormat::Int32, 4096},   {DataFormat::UInt32, 4096},
                                                   {DataFormat::UInt16, 2048},  {DataFormat::UInt8, 1024}};
  for (auto [format, bytes] : cases) {
    EXPECT_EQ(tile_size(format), bytes) << to_string(format);
    EXPECT_EQ(pack_tiles(two_tiles, format).size(), 2u * bytes) << to_string(format);
    EXPECT_TRUE(is_packable(format));
  }
  EXPECT_FALSE(is_packable(DataFormat::Float16));
  EXPECT_FALSE(is_packable(DataFormat::Bfp8));
  EXPECT_FALSE(is_packable(DataFormat::Invalid));
  EXPECT_TRUE(pack_tiles(std::span<const float>(), DataFormat::Bfp8_b).empty());
}

// ---- Bfp8_b ----

// A hand-worked tile: each value's shared exponent and 7-bit magnitude worked
// out by hand from value = magnitude * 2^(shared - 133).
struct HandWorkedBfp8 {
  std::vector<float> input = std::vector<float>(kTileHW, 0.0f);
  HandWorkedBfp8() {
    // Group 0: shared exponent 127 (values in [1, 2)), so magnitude = x * 64.
    const float group0[16] = {
        1.0f,         // 64                                   -> 0x40
        1.5f,         // 96                                   -> 0x60
        -0.75f,       // 48, negative                         -> 0xB0
        0.5f,         // 32                                   -> 0x20
        0.0f,         //                                      -> 0x00
        -0.0f,        // zero is stored without its sign      -> 0x00
        127.0f / 64,  // 127, the largest magnitude           -> 0x7F
        255.0f / 128, // 127.5: tie to even is 128, carries out of 7 bits, clamps -> 0x7F
        3.0f / 128,   // 1.5: tie, up to even 2               -> 0x02
        5.0f / 128,   // 2.5: tie, down to even 2             -> 0x02
        -1.0f / 128,  // 0.5: tie, down to 0, sign dropped    -> 0x00
        std::ldexp(1.0f, -7) + std::ldexp(1.0f, -16), // 0.5 + 2^-10: above the tie -> 0x01
        1e-40f,                                       // float denormal: counts as zero       -> 0x00
        0.1f,                                         // 6.4000001                            -> 0x06
        -1.0f,                                        //                                      -> 0xC0
        (2.5f + std::ldexp(1.0f, -12)) / 64,          // 2.5 + 2^-12: bits below the tie break it -> 0x03
    };
    std::copy(std::begin(group0), std::end(group0), input.begin());
    // Group 1 stays all zero: shared exponent 0.
    // Group 2: shared exponent 137 (1024 = 2^10), magnitude = x / 16.
    input[32] = 1024.0f;  // 64   -> 0x40
    input[33] = 3.0f;     // 0.1875 -> 0x00
    input[34] = 48.0f;    // 3    -> 0x03
    input[35] = -1000.0f; // 62.5: tie to even 62, negative -> 0xBE
    input[36] = 2047.0f;  // 127.9375 -> 128 -> clamps to 0x7F
    // Group 16 (face 1, row 0): smallest normals, shared exponent 1.
    input[256] = std::ldexp(1.0f, -126);                        // 64 -> 0x40
    input[257] = -std::ldexp(1.0f, -127);                       // denormal -> 0x00
    input[258] = std::ldexp(1.5f, -126);                        // 96 -> 0x60
    input[259] = std::ldexp(1.0f + std::ldexp(1.0f, -7), -126); // 64.5: tie to even 64 -> 0x40
    // Group 17: shared exponent 6.
    input[272] = std::ldexp(1.0f, -121); // 64 -> 0x40
    input[273] = std::ldexp(1.0f, -126); // 2 -> 0x02
    // Group 63 (face 3, row 15): a NaN or infinity makes the shared exponent 255.
    input[1008] = from_bits(0x7FC00000); // quiet NaN           -> 0x60
    input[1009] = -kInf;                 //                     -> 0xC0
    input[1010] = 1.0f;                  // 2^-127 of an LSB    -> 0x00
    input[1011] = std::ldexp(1.0f, 127); // 32                  -> 0x20
    input[1012] = kInf;                  //                     -> 0x40
    input[1013] = from_bits(0x7F800001); // signalling NaN      -> 0x60
    input[1014] = from_bits(0xFFC00000); // negative NaN        -> 0xE0
  }
};

TEST(Formats, Bfp8HandWorkedTileBytes) {
  const HandWorkedBfp8 tile;
  const std::vector<uint8_t> packed = pack_tiles(tile.input, DataFormat::Bfp8_b);
  ASSERT_EQ(packed.size(), 1088u);

  std::vector<uint8_t> exponents(64, 0);
  exponents[0] = 0x7F;
  exponents[2] = 0x89;
  exponents[16] = 0x01;
  exponents[17] = 0x06;
  exponents[63] = 0xFF;
  EXPECT_EQ(std::vector<uint8_t>(packed.begin(), packed.begin() + 64), exponents);

  const std::vector<uint8_t> group0(packed.begin() + 64, packed.begin() + 80);
  EXPECT_EQ(group0, (std::vector<uint8_t>{0x40, 0x60, 0xB0, 0x20, 0x00, 0x00, 0x7F, 0x7F, 0x02, 0x02, 0x00, 0x01, 0x00,
                                          0x06, 0xC0, 0x03}));
  for (int i = 16; i < 32; ++i)
    EXPECT_EQ(packed[64 + i], 0x00) << "value " << i;
  EXPECT_EQ(packed[64 + 32], 0x40);
  EXPECT_EQ(packed[64 + 33], 0x00);
  EXPECT_EQ(packed[64 + 34], 0x03);
  EXPECT_EQ(packed[64 + 35], 0xBE);
  EXPECT_EQ(packed[64 + 36], 0x7F);
  EXPECT_EQ(packed[64 + 256], 0x40);
  EXPECT_EQ(packed[64 + 257], 0x00);
  EXPECT_EQ(packed[64 + 258], 0x60);
  EXPECT_EQ(packed[64 + 259], 0x40);
  EXPECT_EQ(packed[64 + 272], 0x40);
  EXPECT_EQ(packed[64 + 273], 0x02);
  const std::vector<uint8_t> group63(packed.begin() + 64 + 1008, packed.begin() + 64 + 1015);
  EXPECT_EQ(group63, (std::vector<uint8_t>{0x60, 0xC0, 0x00, 0x20, 0x40, 0x60, 0xE0}));
  EXPECT_EQ(packed[1087], 0x00);
}

TEST(Formats, Bfp8HandWorkedTileValues) {
  const HandWorkedBfp8 tile;
  const std::vector<float> out = unpack_tiles(pack_tiles(tile.input, DataFormat::Bfp8_b), DataFormat::Bfp8_b);
  ASSERT_EQ(out.size(), kTileHW);
  const float group0[16] = {1.0f,      1.5f,      -0.75f, 0.5f,      0.0f, 0.0f,      127.0f / 64, 127.0f / 64,
                            2.0f / 64, 2.0f / 64, 0.0f,   1.0f / 64, 0.0f, 6.0f / 64, -1.0f,       3.0f / 64};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(to_bits(out[i]), to_bits(group0[i])) << "value " << i;
  EXPECT_EQ(out[32], 1024.0f);
  EXPECT_EQ(out[33], 0.0f);
  EXPECT_EQ(out[34], 48.0f);
  EXPECT_EQ(out[35], -992.0f);
  EXPECT_EQ(out[36], 2032.0f);
  EXPECT_EQ(out[256], std::ldexp(1.0f, -126));
  EXPECT_EQ(to_bits(out[257]), 0u);
  EXPECT_EQ(out[258], std::ldexp(1.5f, -126));
  EXPECT_EQ(out[259], std::ldexp(1.0f, -126));
  EXPECT_EQ(out[272], std::ldexp(1.0f, -121));
  EXPECT_EQ(out[273], std::ldexp(1.0f, -126));
  EXPECT_EQ(to_bits(out[1008]), 0x7FC00000u);
  EXPECT_EQ(out[1009], -kInf);
  EXPECT_EQ(out[1010], 0.0f);
  EXPECT_EQ(out[1011], std::ldexp(1.0f, 127));
  EXPECT_EQ(out[1012], kInf);
  EXPECT_EQ(to_bits(out[1013]), 0x7FC00000u);
  EXPECT_EQ(to_bits(out[1014]), 0xFFC00000u);
}

TEST(Formats, Bfp8DecodesRawBytesAsTheUnpackerDoes) {
  std::vector<uint8_t> packed(1088, 0);
  packed[0] = 0; // shared exponent 0: magnitude * 2^-133, a float denormal
  packed[64 + 0] = 1;
  packed[64 + 1] = 0x80; // sign without magnitude: -infinity (never packed)
  packed[1] = 255;
  packed[64 + 16] = 0x41; // exponent 255, magnitude >= 64 with fraction bits: NaN
  packed[64 + 17] = 0x3F; // exponent 255, magnitude < 64: finite, 63 * 2^122
  packed[64 + 18] = 0xC0; // exponent 255, magnitude 64, negative: -infinity
  const std::vector<float> out = unpack_tiles(packed, DataFormat::Bfp8_b);
  EXPECT_EQ(out[0], std::ldexp(1.0f, -133));
  EXPECT_EQ(out[1], -kInf);
  EXPECT_EQ(to_bits(out[16]), 0x7F820000u);
  EXPECT_EQ(out[17], std::ldexp(63.0f, 122));
  EXPECT_EQ(out[18], -kInf);
}

// Reference for one Bfp value: magnitude = round-half-even(|x| * 2^(127 + W - 1 - shared)) in
// double (exact), clamped; the quantised value is magnitude * 2^(shared - 127 - (W - 1)).
float bfp_reference(float x, uint32_t shared, int bits) {
  if (std::fpclassify(x) != FP_NORMAL) return 0.0f;
  const double scaled = std::ldexp(double(std::fabs(x)), 127 + bits - 1 - int(shared));
  const double mag = std::min(std::nearbyint(scaled), double((1 << bits) - 1));
  return float(std::copysign(std::ldexp(mag, int(shared) - 127 - (bits - 1)), mag == 0 ? 1.0 : x));
}

void expect_bfp_matches_reference(DataFormat format, int bits) {
  const uint32_t tiles = 32;
  const std::vector<float> input = random_tiles(tiles, 7 + bits);
  const std::vector<float> out = unpack_tiles(pack_tiles(input, format), format);
  ASSERT_EQ(out.size(), input.size());
  size_t clamped = 0;
  for (size_t g = 0; g < input.size() / kBfpGroupSize; ++g) {
    uint32_t shared = 0;
    for (size_t i = 0; i < kBfpGroupSize; ++i)
      shared = std::max(shared, (to_bits(input[g * 16 + i]) >> 23) & 0xFF);
    const double lsb = std::ldexp(1.0, int(shared) - 127 - (bits - 1));
    const double max_mag = double((1 << bits) - 1);
    for (size_t i = g * kBfpGroupSize; i < (g + 1) * kBfpGroupSize; ++i) {
      ASSERT_EQ(to_bits(out[i]), to_bits(bfp_reference(input[i], shared, bits)))
          << to_string(format) << " value " << i << " = " << input[i];
      // Error bound: half an LSB of the group, or under one LSB where rounding carried out and clamped.
      const double error = std::fabs(double(out[i]) - double(input[i]));
      if (std::fabs(input[i]) / lsb > max_mag + 0.5) {
        ++clamped;
        ASSERT_LT(error, lsb) << "value " << i;
      } else {
        ASSERT_LE(error, lsb / 2) << "value " << i;
      }
    }
  }
  EXPECT_GT(clamped, 0u); // the random data does exercise the clamp
}

TEST(Formats, Bfp8MatchesReferenceOnRandomData) { expect_bfp_matches_reference(DataFormat::Bfp8_b, 7); }
TEST(Formats, Bfp4MatchesReferenceOnRandomData) { expect_bfp_matches_reference(DataFormat::Bfp4_b, 3); }

// ---- Bfp4_b ----

TEST(Formats, Bfp4HandWorkedTile) {
  std::vector<float> input(kTileHW, 0.0f);
  // Shared exponent 127, so magnitude = x * 4.
  const float group0[11] = {1.0f,    // 4
                            1.5f,    // 6
                            -0.75f,  // 3, negative: 0xB
                            0.5f,    // 2
                            1.75f,   // 7
                            1.875f,  // 7.5: tie to even 8, clamps to 7
                            0.375f,  // 1.5: tie up to 2
                            0.625f,  // 2.5: tie down to 2
                            -0.125f, // 0.5: tie down to 0, sign dropped
                            0.25f,   // 1
                            -1.25f}; // 5, negative: 0xD
  std::copy(std::begin(group0), std::end(group0), input.begin());
  input[1008] = from_bits(0x7FC00000); // NaN: 6 (0b110)
  input[1009] = -kInf;                 // 0xC
  const std::vector<uint8_t> packed = pack_tiles(input, DataFormat::Bfp4_b);
  ASSERT_EQ(packed.size(), 576u);
  EXPECT_EQ(packed[0], 0x7F);
  EXPECT_EQ(packed[1], 0x00);
  EXPECT_EQ(packed[63], 0xFF);
  // Low nibble first: byte 64 + j holds values 2j (bits 3:0) and 2j + 1 (bits 7:4).
  const std::vector<uint8_t> data(packed.begin() + 64, packed.begin() + 72);
  EXPECT_EQ(data, (std::vector<uint8_t>{0x64, 0x2B, 0x77, 0x22, 0x10, 0x0D, 0x00, 0x00}));
  EXPECT_EQ(packed[64 + 504], 0xC6);

  const std::vector<float> out = unpack_tiles(packed, DataFormat::Bfp4_b);
  const float expected[11] = {1.0f, 1.5f, -0.75f, 0.5f, 1.75f, 1.75f, 0.5f, 0.5f, 0.0f, 0.25f, -1.25f};
  for (int i = 0; i < 11; ++i)
    EXPECT_EQ(to_bits(out[i]), to_bits(expected[i])) << "value " << i;
  EXPECT_EQ(to_bits(out[1008]), 0x7FC00000u);
  EXPECT_EQ(out[1009], -kInf);
}

// ---- Round trips ----

TEST(Formats, Float32RoundTripIsBitExact) {
  std::vector<float> input = random_tiles(3, 11);
  input[0] = -0.0f;
  input[1] = from_bits(0x00000001);
  input[2] = from_bits(0x7F800123); // NaN payload
  input[3] = -kInf;
  const std::vector<uint8_t> packed = pack_tiles(input, DataFormat::Float32);
  ASSERT_EQ(std::memcmp(packed.data(), input.data(), packed.size()), 0);
  const std::vector<float> out = unpack_tiles(packed, DataFormat::Float32);
  ASSERT_EQ(std::memcmp(out.data(), input.data(), out.size() * sizeof(float)), 0);
}

TEST(Formats, Float16bRoundTripWithinHalfAnUlp) {
  const std::vector<float> input = random_tiles(3, 12);
  const std::vector<uint8_t> packed = pack_tiles(input, DataFormat::Float16_b);
  const std::vector<float> out = unpack_tiles(packed, DataFormat::Float16_b);
  for (size_t i = 0; i < input.size(); ++i) {
    const uint16_t bits = uint16_t(packed[2 * i] | (packed[2 * i + 1] << 8)); // little-endian
    ASSERT_EQ(bits, float_to_bf16(input[i])) << "value " << i;
    ASSERT_EQ(to_bits(out[i]), uint32_t(bits) << 16);
    // bf16 keeps 8 significant bits: error <= 2^(exponent - 8).
    int exponent = 0;
    std::frexp(input[i], &exponent); // input = m * 2^exponent, 0.5 <= |m| < 1
    ASSERT_LE(std::fabs(double(out[i]) - input[i]), std::ldexp(1.0, exponent - 1 - 8)) << "value " << i;
  }
  // Values with 8 significant bits are exact.
  std::vector<float> exact(kTileHW);
  for (uint32_t i = 0; i < kTileHW; ++i)
    exact[i] = float(int(i % 256) - 128) * 0.25f;
  EXPECT_EQ(unpack_tiles(pack_tiles(exact, DataFormat::Float16_b), DataFormat::Float16_b), exact);
}

TEST(Formats, BfpRoundTripIsExactForRepresentableValues) {
  // Every group holds magnitudes 0..15 * 2^-3 and 64: exact in Bfp8_b.
  std::vector<float> input(2 * kTileHW);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = (i % 16 == 0) ? 8.0f : float(int(i % 16) - 8) * 0.125f * ((i / 16) % 2 ? -1.0f : 1.0f);
  EXPECT_EQ(unpack_tiles(pack_tiles(input, DataFormat::Bfp8_b), DataFormat::Bfp8_b), input);
  // Bfp4_b holds 0..7 * 2^(shared - 129): groups of {4, -3, 2, 0.5 ...}.
  std::vector<float> small(kTileHW);
  for (size_t i = 0; i < small.size(); ++i)
    small[i] = float(int(i % 8) - 3) * ((i / 16) % 3 ? 0.5f : 1.0f);
  EXPECT_EQ(unpack_tiles(pack_tiles(small, DataFormat::Bfp4_b), DataFormat::Bfp4_b), small);
}

TEST(Formats, IntegerRoundTripsAreExactInRange) {
  std::vector<float> values(2 * kTileHW);
  const std::pair<DataFormat, std::pair<double, double>> cases[] = {{DataFormat::Int32, {-16777216.0, 16777216.0}},
                                                                    {DataFormat::UInt32, {0.0, 16777216.0}},
                                                                    {DataFormat::UInt16, {0.0, 65535.0}},
                                                                    {DataFormat::UInt8, {0.0, 255.0}}};
  std::mt19937 rng(5);
  for (auto [format, range] : cases) {
    std::uniform_int_distribution<int64_t> dist(int64_t(range.first), int64_t(range.second));
    for (float& v : values)
      v = float(dist(rng));
    values[0] = float(range.first);
    values[1] = float(range.second);
    EXPECT_EQ(unpack_tiles(pack_tiles(values, format), format), values) << to_string(format);
  }
}

TEST(Formats, IntegersRoundHalfToEvenAndSaturate) {
  auto packed_values = [](DataFormat format, std::vector<float> in) {
    in.resize(kTileHW, 0.0f);
    return unpack_tiles(pack_tiles(in, format), format);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  {
    const auto out = packed_values(DataFormat::Int32, {2.5f, 3.5f, -2.5f, -0.5f, 0.7f, 1e10f, -1e10f, nan, kInf, -kInf,
                                                       2147483648.0f, -2147483648.0f});
    const std::vector<float> expected = {
        2, 4, -2, 0, 1, 2147483647.0f, -2147483648.0f, 0, 2147483647.0f, -2147483648.0f, 2147483647.0f, -2147483648.0f};
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 12), expected);
    // Bytes: two's complement, little-endian.
    const auto bytes = pack_tiles(std::vector<float>(kTileHW, -2.0f), DataFormat::Int32);
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4), (std::vector<uint8_t>{0xFE, 0xFF, 0xFF, 0xFF}));
    int32_t max_value = 0;
    const auto max_bytes = pack_tiles(std::vector<float>(kTileHW, 1e10f), DataFormat::Int32);
    std::memcpy(&max_value, max_bytes.data(), 4);
    EXPECT_EQ(max_value, std::numeric_limits<int32_t>::max());
  }
  {
    const auto bytes = pack_tiles(std::vector<float>(kTileHW, 1e10f), DataFormat::UInt32);
    uint32_t value = 0;
    std::memcpy(&value, bytes.data(), 4);
    EXPECT_EQ(value, std::numeric_limits<uint32_t>::max());
    const auto out = packed_values(DataFormat::UInt32, {-1.0f, 4294967040.0f, 4294967296.0f, 0.5f, 1.5f, nan});
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 6),
              (std::vector<float>{0, 4294967040.0f, 4294967296.0f, 0, 2, 0}));
  }
  {
    const auto out = packed_values(DataFormat::UInt16, {65535.4f, 65535.5f, 70000.0f, -3.0f, 100.5f, 101.5f});
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 6), (std::vector<float>{65535, 65535, 65535, 0, 100, 102}));
  }
  {
    const auto bytes = pack_tiles(
        [&] {
          std::vector<float> in(kTileHW, 0.0f);
          const float head[8] = {-3.0f, 0.5f, 1.5f, 254.5f, 255.4f, 255.5f, 300.0f, nan};
          std::copy(std::begin(head), std::end(head), in.begin());
          return in;
        }(),
        DataFormat::UInt8);
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 8),
              (std::vector<uint8_t>{0, 0, 2, 254, 255, 255, 255, 0}));
  }
}

TEST(Formats, SpanOverloadsFillCallerMemory) {
  const std::vector<float> input = random_tiles(2, 13);
  std::vector<uint8_t> packed(2 * 1088);
  pack_tiles(input, DataFormat::Bfp8_b, packed);
  EXPECT_EQ(packed, pack_tiles(input, DataFormat::Bfp8_b));
  std::vector<float> out(2 * kTileHW);
  unpack_tiles(packed, DataFormat::Bfp8_b, out);
  EXPECT_EQ(out, unpack_tiles(packed, DataFormat::Bfp8_b));
}

// ---- Validation ----

TEST(Formats, ValidationErrors) {
  const std::vector<float> tile(kTileHW, 1.0f);
  const std::vector<uint8_t> bytes(1088, 0);
  const std::string supported = "expected one of Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, UInt32, UInt16, UInt8";
  EXPECT_EQ(validation_message([&] { pack_tiles(tile, DataFormat::Float16); }),
            "pack_tiles: data format Float16 is not supported; " + supported);
  EXPECT_EQ(validation_message([&] { pack_tiles(tile, DataFormat::Invalid); }),
            "pack_tiles: data format Invalid is not supported; " + supported);
  EXPECT_EQ(validation_message([&] { pack_tiles(tile, DataFormat(42)); }),
            "pack_tiles: data format DataFormat(42) is not supported; " + supported);
  EXPECT_EQ(validation_message([&] { unpack_tiles(bytes, DataFormat::Bfp8); }),
            "unpack_tiles: data format Bfp8 is not supported; " + supported);
  EXPECT_EQ(validation_message([&] { pack_tiles(std::vector<float>(1000), DataFormat::Bfp8_b); }),
            "pack_tiles: got 1000 values, not a whole number of 32x32 tiles; expected a multiple of 1024");
  EXPECT_EQ(validation_message([&] { unpack_tiles(std::vector<uint8_t>(1000), DataFormat::Bfp8_b); }),
            "unpack_tiles: got 1000 bytes, not a whole number of Bfp8_b tiles; expected a multiple of 1088");
  EXPECT_EQ(validation_message([&] { unpack_tiles(std::vector<uint8_t>(4095), DataFormat::Int32); }),
            "unpack_tiles: got 4095 bytes, not a whole number of Int32 tiles; expected a multiple of 4096");

  std::vector<uint8_t> small_out(100, 0xAB);
  EXPECT_EQ(validation_message([&] { pack_tiles(std::vector<float>(2 * kTileHW), DataFormat::Bfp8_b, small_out); }),
            "pack_tiles: the output holds 100 bytes; expected 2176 (2 tiles of Bfp8_b)");
  std::vector<float> small_floats(100, 7.0f);
  EXPECT_EQ(validation_message([&] { unpack_tiles(bytes, DataFormat::Bfp8_b, small_floats); }),
            "unpack_tiles: the output holds 100 values; expected 1024 (1 tile)");
  // A failed call leaves the caller's output as it was.
  std::vector<uint8_t> right_size(1088, 0xAB);
  EXPECT_THROW(pack_tiles(tile, DataFormat::Float16, right_size), ValidationError);
  EXPECT_EQ(right_size, std::vector<uint8_t>(1088, 0xAB));
  EXPECT_EQ(small_out, std::vector<uint8_t>(100, 0xAB));
  EXPECT_EQ(small_floats, std::vector<float>(100, 7.0f));
}

// ---- Tile layout ----

TEST(Tile, FaceOrder) {
  std::vector<float> matrix(32 * 32);
  for (uint32_t i = 0; i < matrix.size(); ++i)
    matrix[i] = float(i); // value = row * 32 + col
  const std::vector<float> tiles = tilize(matrix, 32, 32);
  ASSERT_EQ(tiles.size(), kTileHW);
  EXPECT_EQ(tiles[0], 0.0f);               // (0, 0): face 0 starts the tile
  EXPECT_EQ(tiles[15], 15.0f);             // (0, 15): end of face 0's first row
  EXPECT_EQ(tiles[16], 32.0f);             // (1, 0): face rows are 16 wide
  EXPECT_EQ(tiles[255], 15.0f * 32 + 15);  // (15, 15): end of face 0
  EXPECT_EQ(tiles[256], 16.0f);            // (0, 16): face 1 is top-right
  EXPECT_EQ(tiles[512], 16.0f * 32);       // (16, 0): face 2 is bottom-left
  EXPECT_EQ(tiles[768], 16.0f * 32 + 16);  // (16, 16): face 3 is bottom-right
  EXPECT_EQ(tiles[1023], 31.0f * 32 + 31); // (31, 31)
  for (size_t i = 0; i < tiles.size(); ++i) {
    const auto [row, col] = position_of(i, 1);
    ASSERT_EQ(tiles[i], float(row * 32 + col)) << "tile index " << i;
  }
}

TEST(Tile, TilesAreInRowMajorTileOrder) {
  const uint32_t rows = 64, cols = 96;
  std::vector<float> matrix(rows * cols);
  for (uint32_t i = 0; i < matrix.size(); ++i)
    matrix[i] = float(i);
  const std::vector<float> tiles = tilize(matrix, rows, cols);
  ASSERT_EQ(tiles.size(), 6 * kTileHW);
  EXPECT_EQ(tiles[1 * kTileHW], float(0 * cols + 32));        // tile 1 = tile row 0, tile column 1
  EXPECT_EQ(tiles[3 * kTileHW], float(32 * cols + 0));        // tile 3 = tile row 1, tile column 0
  EXPECT_EQ(tiles[5 * kTileHW + 768], float(48 * cols + 80)); // tile 5 face 3
  EXPECT_EQ(untilize(tiles, rows, cols), matrix);
}

TEST(Tile, RoundTripWithPadding) {
  const uint32_t rows = 33, cols = 70; // pads to 64 x 96: 2 x 3 tiles
  std::vector<float> matrix(rows * cols);
  for (uint32_t i = 0; i < matrix.size(); ++i)
    matrix[i] = float(i + 1);
  EXPECT_EQ(tilized_size(rows, cols), 6u * kTileHW);
  const std::vector<float> tiles = tilize(matrix, rows, cols);
  ASSERT_EQ(tiles.size(), 6 * kTileHW);
  size_t padding = 0;
  for (size_t i = 0; i < tiles.size(); ++i) {
    const auto [row, col] = position_of(i, 3);
    if (row < rows && col < cols) {
      ASSERT_EQ(tiles[i], matrix[row * cols + col]) << "row " << row << " col " << col;
    } else {
      ++padding;
      ASSERT_EQ(tiles[i], 0.0f) << "padding at row " << row << " col " << col;
    }
  }
  EXPECT_EQ(padding, 64u * 96 - 33 * 70);
  EXPECT_EQ(tiles[3 * kTileHW + 16], 0.0f);         // (33, 0): the first padded row
  EXPECT_EQ(tiles[3 * kTileHW], matrix[32 * cols]); // (32, 0): the last real row
  EXPECT_EQ(tiles[2 * kTileHW + 5], matrix[69]);    // (0, 69): the last real column
  EXPECT_EQ(tiles[2 * kTileHW + 6], 0.0f);          // (0, 70)
  EXPECT_EQ(untilize(tiles, rows, cols), matrix);
}

TEST(Tile, IntegerOverloadsRoundTrip) {
  const uint32_t rows = 33, cols = 70;
  std::vector<uint16_t> u16(rows * cols);
  std::vector<uint32_t> u32(rows * cols);
  std::vector<int32_t> i32(rows * cols);
  std::vector<uint8_t> u8(rows * cols);
  for (uint32_t i = 0; i < rows * cols; ++i) {
    u16[i] = uint16_t(i * 7);
    u32[i] = i * 100003u;
    i32[i] = -int32_t(i) * 3;
    u8[i] = uint8_t(i);
  }
  const std::vector<uint16_t> t16 = tilize(u16, rows, cols);
  EXPECT_EQ(t16.size(), 6 * kTileHW);
  EXPECT_EQ(t16[256], u16[16]); // (0, 16) starts face 1
  EXPECT_EQ(untilize(t16, rows, cols), u16);
  EXPECT_EQ(untilize(tilize(u32, rows, cols), rows, cols), u32);
  EXPECT_EQ(untilize(tilize(i32, rows, cols), rows, cols), i32);
  EXPECT_EQ(untilize(tilize(u8, rows, cols), rows, cols), u8);
  // The bf16 overload composes with the bit conversions.
  std::vector<float> matrix(rows * cols);
  for (uint32_t i = 0; i < rows * cols; ++i)
    matrix[i] = float(i) * 0.5f;
  std::vector<uint16_t> bf16(rows * cols);
  for (uint32_t i = 0; i < rows * cols; ++i)
    bf16[i] = float_to_bf16(matrix[i]);
  const std::vector<float> via_float = tilize(matrix, rows, cols);
  const std::vector<uint16_t> via_bf16 = tilize(bf16, rows, cols);
  for (size_t i = 0; i < via_float.size(); ++i)
    ASSERT_EQ(via_bf16[i], float_to_bf16(via_float[i]));
}

TEST(Tile, EmptyMatrix) {
  EXPECT_TRUE(tilize(std::span<const float>(), 0, 5).empty());
  EXPECT_TRUE(untilize(std::span<const float>(), 7, 0).empty());
  EXPECT_EQ(tilized_size(0, 5), 0u);
}

TEST(Tile, ValidationErrors) {
  EXPECT_EQ(validation_message([] { tilize(std::vector<float>(100), 33, 70); }),
            "tilize: 100 values given for a 33 x 70 matrix; expected 2310");
  EXPECT_EQ(validation_message([] { tilize(std::vector<uint16_t>(2311), 33, 70); }),
            "tilize: 2311 values given for a 33 x 70 matrix; expected 2310");
  EXPECT_EQ(validation_message([] { untilize(std::vector<float>(2310), 33, 70); }),
            "untilize: 2310 values given for a 33 x 70 matrix; expected 6144 (2 x 3 tiles of 1024)");
  EXPECT_EQ(validation_message([] { untilize(std::vector<uint8_t>(1), 1, 1); }),
            "untilize: 1 values given for a 1 x 1 matrix; expected 1024 (1 x 1 tiles of 1024)");
}

} // namespace
} // namespace tessel::test
