// Tile data formats (include/tessel/data_format.hpp, include/tessel/tile.hpp)
// and the simulator's per-tile conversions (sim/formats.hpp). The rounding
// rules are stated in tile.hpp and in docs/numerics.md. This lives in the sim
// layer because the compute engine unpacks and packs CB tiles with it; the
// runtime and host code reach it through the public headers.
//
// Speed: every conversion works a tile (or a 16-value exponent group) at a
// time through fixed-size local arrays, with branch-free per-value code the
// compiler vectorises; nothing is allocated per value or per tile. The Bfp
// packer rounds in float arithmetic: |x| * 2^k is exact (k is chosen so the
// product is at most 2^W), and (y + 2^23) - 2^23 rounds y in [0, 2^23) to
// an integer with ties to even under the default rounding mode.
#include "sim/formats.hpp"
#include "sim/simd.hpp"

#include "tessel/tile.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "tessel/error.hpp"

namespace tessel {
namespace {

constexpr uint32_t kExpMask = 0x7f800000u;
constexpr uint32_t kAbsMask = 0x7fffffffu;

uint32_t ceil_div(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) + b - 1) / b); }

// ---- bfloat16 ----

inline uint16_t to_bf16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (bits >> 16) | 0x0040u;
  const uint32_t signed_zero = (bits >> 16) & 0x8000u;
  uint32_t out = (bits & kAbsMask) > kExpMask ? quiet_nan : rounded;
  out = (bits & kExpMask) == 0 ? signed_zero : out;
  return uint16_t(out);
}

inline float from_bf16(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

// ---- Block floating point ----

// 2^e as a float for e in [-149, 127] (denormal below -126).
inline float pow2(int e) {
  if (e >= -126) return std::bit_cast<float>(uint32_t(e + 127) << 23);
  return std::bit_cast<float>(1u << (e + 149));
}

// Packs one tile. kBits = W, the magnitude width (7 for Bfp8_b, 3 for Bfp4_b).
template <int kBits>
TESSEL_TILE_LOOP void pack_bfp_tile(const float* in, uint8_t* out) {
  constexpr uint32_t kMaxMag = (1u << kBits) - 1;
  constexpr uint32_t kInfMag = 1u << (kBits - 1);
  constexpr uint32_t kNanMag = kInfMag | (1u << (kBits - 2));
  uint8_t* exponents = out;
  uint8_t* data = out + kBfpExponentBytes;
  for (uint32_t group = 0; group < kBfpExponentBytes; ++group) {
    uint32_t bits[kBfpGroupSize];
    std::memcpy(bits, in + group * kBfpGroupSize, sizeof bits);
    uint32_t shared = 0;
    for (uint32_t i = 0; i < kBfpGroupSize; ++i)
      shared = std::max(shared, (bits[i] & kExpMask) >> 23);
    exponents[group] = uint8_t(shared);

    // magnitude = |x| * 2^scale_exp; the scale is split in two when 2^scale_exp
    // is beyond float range (shared exponent < W - 1), each factor exact.
    const int scale_exp = 127 + (kBits - 1) - int(shared);
    const float pre = scale_exp > 127 ? 0x1p64f : 1.0f;
    const float post = pow2(scale_exp > 127 ? scale_exp - 64 : scale_exp);
    uint8_t codes[kBfpGroupSize];
    for (uint32_t i = 0; i < kBfpGroupSize; ++i) {
      const uint32_t b = bits[i];
      const uint32_t exp = b & kExpMask;
      // Denormals count as zero; inf/NaN (only in a group with shared exponent 255) are fixed up below.
      const uint32_t abs_bits = (exp == 0 || exp == kExpMask) ? 0u : (b & kAbsMask);
      const float scaled = std::bit_cast<float>(abs_bits) * pre * post;
      float rounded = (scaled + 0x1p23f) - 0x1p23f;
      rounded = rounded < float(kMaxMag) ? rounded : float(kMaxMag);
      const uint32_t mag = uint32_t(int32_t(rounded));
      const uint32_t sign = mag != 0 ? (b >> 31) : 0u;
      codes[i] = uint8_t((sign << kBits) | mag);
    }
    if (shared == 255) {
      for (uint32_t i = 0; i < kBfpGroupSize; ++i) {
        const uint32_t b = bits[i];
        if ((b & kExpMask) != kExpMask) continue;
        const uint32_t mag = (b & 0x007fffffu) != 0 ? kNanMag : kInfMag;
        codes[i] = uint8_t(((b >> 31) << kBits) | mag);
      }
    }
    if constexpr (kBits == 7) {
      std::memcpy(data + group * kBfpGroupSize, codes, sizeof codes);
    } else {
      uint8_t* dst = data + group * (kBfpGroupSize / 2);
      for (uint32_t j = 0; j < kBfpGroupSize / 2; ++j)
        dst[j] = uint8_t(codes[2 * j] | (codes[2 * j + 1] << 4));
    }
  }
}

template <int kBits>
TESSEL_TILE_LOOP void unpack_bfp_tile(const uint8_t* in, float* out) {
  constexpr uint32_t kMagMask = (1u << kBits) - 1;
  constexpr uint32_t kSignOnly = 1u << kBits;
  constexpr uint32_t kInfMag = 1u << (kBits - 1);
  const uint8_t* exponents = in;
  const uint8_t* data = in + kBfpExponentBytes;
  for (uint32_t group = 0; group < kBfpExponentBytes; ++group) {
    uint8_t codes[kBfpGroupSize];
    if constexpr (kBits == 7) {
      std::memcpy(codes, data + group * kBfpGroupSize, sizeof codes);
    } else {
      const uint8_t* src = data + group * (kBfpGroupSize / 2);
      for (uint32_t j = 0; j < kBfpGroupSize / 2; ++j) {
        codes[2 * j] = uint8_t(src[j] & 0xfu);
        codes[2 * j + 1] = uint8_t(src[j] >> 4);
      }
    }
    const uint32_t shared = exponents[group];
    // magnitude * 2^(shared - 127 - (W - 1)) is exact: at least 2^-133, a float denormal at worst.
    const float scale = pow2(int(shared) - 127 - (kBits - 1));
    uint32_t bits[kBfpGroupSize];
    for (uint32_t i = 0; i < kBfpGroupSize; ++i) {
      const uint32_t code = codes[i];
      const float magnitude = float(int32_t(code & kMagMask)) * scale;
      const uint32_t sign_only_mask = 0u - uint32_t(code == kSignOnly); // all ones for -infinity
      bits[i] = std::bit_cast<uint32_t>(magnitude) | ((code >> kBits) << 31) | (sign_only_mask & 0xff800000u);
    }
    if (shared == 255) {
      for (uint32_t i = 0; i < kBfpGroupSize; ++i) {
        const uint32_t mag = codes[i] & kMagMask;
        if (mag < kInfMag) continue;
        const uint32_t fraction = mag & (kInfMag - 1);
        bits[i] = ((uint32_t(codes[i]) >> kBits) << 31) | kExpMask | (fraction << (23 - (kBits - 1)));
      }
    }
    std::memcpy(out + group * kBfpGroupSize, bits, sizeof bits);
  }
}

// ---- Integers ----

// Round to nearest integer, ties to even; NaN and values already integral pass through.
inline float round_even(float x) {
  const float a = std::fabs(x);
  const float r = a < 0x1p23f ? (a + 0x1p23f) - 0x1p23f : a;
  return std::copysign(r, x);
}

template <class T>
T saturate(float x) {
  const float r = round_even(x);
  if (!(r == r)) return 0;
  constexpr float kLow = float(std::numeric_limits<T>::min());
  // One past the largest value, exactly representable (a power of two).
  constexpr float kHighExclusive = float(std::numeric_limits<T>::max() / 2 + 1) * 2.0f;
  if (r >= kHighExclusive) return std::numeric_limits<T>::max();
  if (r <= kLow) return std::numeric_limits<T>::min();
  return T(r);
}

template <class T>
void pack_int_tile(const float* in, uint8_t* out) {
  T values[kTileHW];
  for (uint32_t i = 0; i < kTileHW; ++i)
    values[i] = saturate<T>(in[i]);
  std::memcpy(out, values, sizeof values);
}

template <class T>
void unpack_int_tile(const uint8_t* in, float* out) {
  T values[kTileHW];
  std::memcpy(values, in, sizeof values);
  for (uint32_t i = 0; i < kTileHW; ++i)
    out[i] = float(values[i]);
}

TESSEL_TILE_LOOP void pack_bf16_tile(const float* in, uint8_t* out) {
  uint16_t values[kTileHW];
  for (uint32_t i = 0; i < kTileHW; ++i)
    values[i] = to_bf16(in[i]);
  std::memcpy(out, values, sizeof values);
}

// Reads the values in place (no staging copy: unpack sits on every FPU op's
// path).
using bf16_alias = uint16_t __attribute__((may_alias));
TESSEL_TILE_LOOP void unpack_bf16_tile(const uint8_t* __restrict in, float* __restrict out) {
  auto values = reinterpret_cast<const bf16_alias*>(in);
  for (uint32_t i = 0; i < kTileHW; ++i)
    out[i] = from_bf16(values[i]);
}

// ---- Validation ----

void check_packable(const char* call, DataFormat format) {
  if (!is_packable(format))
    throw ValidationError(std::string(call) + ": data format " + to_string(format) +
                          " is not supported; expected one of Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, "
                          "UInt32, UInt16, UInt8");
}

std::string tiles_str(uint64_t tiles) { return std::to_string(tiles) + (tiles == 1 ? " tile" : " tiles"); }

// ---- Tile layout ----

template <class T>
std::vector<T> tilize_impl(std::span<const T> row_major, uint32_t rows, uint32_t cols) {
  if (row_major.size() != uint64_t(rows) * cols)
    throw ValidationError("tilize: " + std::to_string(row_major.size()) + " values given for a " +
                          std::to_string(rows) + " x " + std::to_string(cols) + " matrix; expected " +
                          std::to_string(uint64_t(rows) * cols));
  const uint32_t tile_rows = ceil_div(rows, kTileHeight);
  const uint32_t tile_cols = ceil_div(cols, kTileWidth);
  std::vector<T> tiles(size_t(tilized_size(rows, cols)));
  T* dst = tiles.data();
  for (uint32_t tr = 0; tr < tile_rows; ++tr)
    for (uint32_t tc = 0; tc < tile_cols; ++tc)
      for (uint32_t face = 0; face < 4; ++face)
        for (uint32_t r = 0; r < kFaceHeight; ++r, dst += kFaceWidth) {
          const uint32_t row = tr * kTileHeight + (face / 2) * kFaceHeight + r;
          const uint32_t col = tc * kTileWidth + (face % 2) * kFaceWidth;
          if (row >= rows || col >= cols) continue;
          const uint32_t count = std::min(kFaceWidth, cols - col);
          std::memcpy(dst, row_major.data() + uint64_t(row) * cols + col, count * sizeof(T));
        }
  return tiles;
}

template <class T>
std::vector<T> untilize_impl(std::span<const T> tiles, uint32_t rows, uint32_t cols) {
  const uint32_t tile_rows = ceil_div(rows, kTileHeight);
  const uint32_t tile_cols = ceil_div(cols, kTileWidth);
  if (tiles.size() != tilized_size(rows, cols))
    throw ValidationError("untilize: " + std::to_string(tiles.size()) + " values given for a " + std::to_string(rows) +
                          " x " + std::to_string(cols) + " matrix; expected " +
                          std::to_string(tilized_size(rows, cols)) + " (" + std::to_string(tile_rows) + " x " +
                          std::to_string(tile_cols) + " tiles of " + std::to_string(kTileHW) + ")");
  std::vector<T> row_major(size_t(uint64_t(rows) * cols));
  const T* src = tiles.data();
  for (uint32_t tr = 0; tr < tile_rows; ++tr)
    for (uint32_t tc = 0; tc < tile_cols; ++tc)
      for (uint32_t face = 0; face < 4; ++face)
        for (uint32_t r = 0; r < kFaceHeight; ++r, src += kFaceWidth) {
          const uint32_t row = tr * kTileHeight + (face / 2) * kFaceHeight + r;
          const uint32_t col = tc * kTileWidth + (face % 2) * kFaceWidth;
          if (row >= rows || col >= cols) continue;
          const uint32_t count = std::min(kFaceWidth, cols - col);
          std::memcpy(row_major.data() + uint64_t(row) * cols + col, src, count * sizeof(T));
        }
  return row_major;
}

} // namespace

uint16_t float_to_bf16(float value) { return to_bf16(value); }
float bf16_to_float(uint16_t bits) { return from_bf16(bits); }

uint64_t tilized_size(uint32_t rows, uint32_t cols) {
  return uint64_t(ceil_div(rows, kTileHeight)) * ceil_div(cols, kTileWidth) * kTileHW;
}

std::vector<float> tilize(std::span<const float> v, uint32_t rows, uint32_t cols) { return tilize_impl(v, rows, cols); }
std::vector<uint32_t> tilize(std::span<const uint32_t> v, uint32_t rows, uint32_t cols) {
  return tilize_impl(v, rows, cols);
}
std::vector<int32_t> tilize(std::span<const int32_t> v, uint32_t rows, uint32_t cols) {
  return tilize_impl(v, rows, cols);
}
std::vector<uint16_t> tilize(std::span<const uint16_t> v, uint32_t rows, uint32_t cols) {
  return tilize_impl(v, rows, cols);
}
std::vector<uint8_t> tilize(std::span<const uint8_t> v, uint32_t rows, uint32_t cols) {
  return tilize_impl(v, rows, cols);
}

std::vector<float> untilize(std::span<const float> t, uint32_t rows, uint32_t cols) {
  return untilize_impl(t, rows, cols);
}
std::vector<uint32_t> untilize(std::span<const uint32_t> t, uint32_t rows, uint32_t cols) {
  return untilize_impl(t, rows, cols);
}
std::vector<int32_t> untilize(std::span<const int32_t> t, uint32_t rows, uint32_t cols) {
  return untilize_impl(t, rows, cols);
}
std::vector<uint16_t> untilize(std::span<const uint16_t> t, uint32_t rows, uint32_t cols) {
  return untilize_impl(t, rows, cols);
}
std::vector<uint8_t> untilize(std::span<const uint8_t> t, uint32_t rows, uint32_t cols) {
  return untilize_impl(t, rows, cols);
}

bool is_packable(DataFormat format) {
  switch (format) {
  case DataFormat::Float32:
  case DataFormat::Float16_b:
  case DataFormat::Bfp8_b:
  case DataFormat::Bfp4_b:
  case DataFormat::Int32:
  case DataFormat::UInt32:
  case DataFormat::UInt16:
  case DataFormat::UInt8: return true;
  default: return false;
  }
}

void pack_tiles(std::span<const float> tilized, DataFormat format, std::span<uint8_t> packed) {
  check_packable("pack_tiles", format);
  if (tilized.size() % kTileHW != 0)
    throw ValidationError("pack_tiles: got " + std::to_string(tilized.size()) +
                          " values, not a whole number of 32x32 tiles; expected a multiple of " +
                          std::to_string(kTileHW));
  const uint64_t tiles = tilized.size() / kTileHW;
  const uint32_t tile_bytes = tile_size(format);
  if (packed.size() != tiles * tile_bytes)
    throw ValidationError("pack_tiles: the output holds " + std::to_string(packed.size()) + " bytes; expected " +
                          std::to_string(tiles * tile_bytes) + " (" + tiles_str(tiles) + " of " + to_string(format) +
                          ")");
  for (uint64_t t = 0; t < tiles; ++t) {
    const float* in = tilized.data() + t * kTileHW;
    uint8_t* out = packed.data() + t * tile_bytes;
    sim::pack_tile(format, in, out);
  }
}

std::vector<uint8_t> pack_tiles(std::span<const float> tilized, DataFormat format) {
  check_packable("pack_tiles", format);
  std::vector<uint8_t> packed(tilized.size() / kTileHW * tile_size(format));
  pack_tiles(tilized, format, packed);
  return packed;
}

void unpack_tiles(std::span<const uint8_t> packed, DataFormat format, std::span<float> tilized) {
  check_packable("unpack_tiles", format);
  const uint32_t tile_bytes = tile_size(format);
  if (packed.size() % tile_bytes != 0)
    throw ValidationError("unpack_tiles: got " + std::to_string(packed.size()) + " bytes, not a whole number of " +
                          to_string(format) + " tiles; expected a multiple of " + std::to_string(tile_bytes));
  const uint64_t tiles = packed.size() / tile_bytes;
  if (tilized.size() != tiles * kTileHW)
    throw ValidationError("unpack_tiles: the output holds " + std::to_string(tilized.size()) + " values; expected " +
                          std::to_string(tiles * kTileHW) + " (" + tiles_str(tiles) + ")");
  for (uint64_t t = 0; t < tiles; ++t) {
    const uint8_t* in = packed.data() + t * tile_bytes;
    float* out = tilized.data() + t * kTileHW;
    sim::unpack_tile(format, in, out);
  }
}

std::vector<float> unpack_tiles(std::span<const uint8_t> packed, DataFormat format) {
  check_packable("unpack_tiles", format);
  std::vector<float> tilized(packed.size() / tile_size(format) * kTileHW);
  unpack_tiles(packed, format, tilized);
  return tilized;
}

uint32_t tile_size(DataFormat f) {
  switch (f) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32: return 4096;
  case DataFormat::Float16:
  case DataFormat::Float16_b:
  case DataFormat::UInt16: return 2048;
  case DataFormat::Int8:
  case DataFormat::UInt8: return 1024;
  case DataFormat::Bfp8:
  case DataFormat::Bfp8_b: return 1024 + 64;
  case DataFormat::Bfp4:
  case DataFormat::Bfp4_b: return 512 + 64;
  case DataFormat::Invalid: return 0;
  }
  return 0;
}

std::string to_string(DataFormat f) {
  switch (f) {
  case DataFormat::Float32: return "Float32";
  case DataFormat::Float16: return "Float16";
  case DataFormat::Bfp8: return "Bfp8";
  case DataFormat::Bfp4: return "Bfp4";
  case DataFormat::Float16_b: return "Float16_b";
  case DataFormat::Bfp8_b: return "Bfp8_b";
  case DataFormat::Bfp4_b: return "Bfp4_b";
  case DataFormat::Int32: return "Int32";
  case DataFormat::UInt16: return "UInt16";
  case DataFormat::Int8: return "Int8";
  case DataFormat::UInt32: return "UInt32";
  case DataFormat::UInt8: return "UInt8";
  case DataFormat::Invalid: return "Invalid";
  }
  return "DataFormat(" + std::to_string(int(f)) + ")";
}

DataFormat parse_data_format(const std::string& name) {
  static const std::pair<const char*, DataFormat> kAliases[] = {{"bf16", DataFormat::Float16_b},
                                                                {"fp32", DataFormat::Float32},
                                                                {"bfp8_b", DataFormat::Bfp8_b},
                                                                {"bfp4_b", DataFormat::Bfp4_b}};
  for (const auto& [alias, format] : kAliases)
    if (name == alias) return format;
  std::string names;
  for (DataFormat f : {DataFormat::Float32, DataFormat::Float16_b, DataFormat::Bfp8_b, DataFormat::Bfp4_b,
                       DataFormat::Int32, DataFormat::UInt32, DataFormat::UInt16, DataFormat::UInt8}) {
    if (name == to_string(f)) return f;
    names += (names.empty() ? "" : ", ") + to_string(f);
  }
  throw ValidationError("unknown data format '" + name + "': expected one of " + names +
                        " (or bf16, fp32, bfp8_b, bfp4_b)");
}

namespace sim {

void unpack_tile(DataFormat format, const uint8_t* in, float* out) {
  switch (format) {
  case DataFormat::Float32: std::memcpy(out, in, kTileHW * sizeof(float)); break;
  case DataFormat::Float16_b: unpack_bf16_tile(in, out); break;
  case DataFormat::Bfp8_b: unpack_bfp_tile<7>(in, out); break;
  case DataFormat::Bfp4_b: unpack_bfp_tile<3>(in, out); break;
  case DataFormat::Int32: unpack_int_tile<int32_t>(in, out); break;
  case DataFormat::UInt32: unpack_int_tile<uint32_t>(in, out); break;
  case DataFormat::UInt16: unpack_int_tile<uint16_t>(in, out); break;
  case DataFormat::UInt8: unpack_int_tile<uint8_t>(in, out); break;
  default: break; // callers check is_packable
  }
}

void pack_tile(DataFormat format, const float* in, uint8_t* out) {
  switch (format) {
  case DataFormat::Float32: std::memcpy(out, in, kTileHW * sizeof(float)); break;
  case DataFormat::Float16_b: pack_bf16_tile(in, out); break;
  case DataFormat::Bfp8_b: pack_bfp_tile<7>(in, out); break;
  case DataFormat::Bfp4_b: pack_bfp_tile<3>(in, out); break;
  case DataFormat::Int32: pack_int_tile<int32_t>(in, out); break;
  case DataFormat::UInt32: pack_int_tile<uint32_t>(in, out); break;
  case DataFormat::UInt16: pack_int_tile<uint16_t>(in, out); break;
  case DataFormat::UInt8: pack_int_tile<uint8_t>(in, out); break;
  default: break; // callers check is_packable
  }
}

} // namespace sim

} // namespace tessel
