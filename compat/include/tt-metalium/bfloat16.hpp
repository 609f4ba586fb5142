// TT-Metalium's bfloat16 host type and packing helpers (global, as Metalium
// declares them).
//
// Conversion from float rounds to nearest, ties to even, through
// tessel::float_to_bf16: float denormals become zero and a NaN keeps its sign
// and top payload bits (Metalium keeps denormals and makes every NaN 0x7fc0).
// Conversion to float is exact. Both the current spelling (construction from
// any arithmetic value, implicit conversion to float) and the older one
// (to_float, to_uint16, to_packed) are provided.
//
// A plain 2-byte value; thread-compatible.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessel/tile.hpp"

class bfloat16 {
public:
  bfloat16() = default;
  template <class T>
  requires std::is_arithmetic_v<T> bfloat16(T value) : bits_(tessel::float_to_bf16(static_cast<float>(value))) {}

  // The bf16 with these bits.
  static bfloat16 from_bits(uint16_t bits) {
    bfloat16 b;
    b.bits_ = bits;
    return b;
  }
  // Drops the low 16 bits of the float (Metalium's truncating conversion).
  static bfloat16 truncate(float value);

  operator float() const { return tessel::bf16_to_float(bits_); }
  float to_float() const { return tessel::bf16_to_float(bits_); }
  uint16_t to_uint16() const { return bits_; }
  // The bits in the low half of a word.
  uint32_t to_packed() const { return bits_; }

  bool operator==(bfloat16 rhs) const { return float(*this) == float(rhs); }
  std::partial_ordering operator<=>(bfloat16 rhs) const { return float(*this) <=> float(rhs); }

  bfloat16& operator+=(bfloat16 rhs) { return *this = bfloat16(float(*this) + float(rhs)); }
  bfloat16& operator-=(bfloat16 rhs) { return *this = bfloat16(float(*this) - float(rhs)); }
  bfloat16& operator*=(bfloat16 rhs) { return *this = bfloat16(float(*this) * float(rhs)); }
  bfloat16& operator/=(bfloat16 rhs) { return *this = bfloat16(float(*this) / float(rhs)); }
  bfloat16 operator+(bfloat16 rhs) const { return bfloat16(float(*this) + float(rhs)); }
  bfloat16 operator-(bfloat16 rhs) const { return bfloat16(float(*this) - float(rhs)); }
  bfloat16 operator*(bfloat16 rhs) const { return bfloat16(float(*this) * float(rhs)); }
  bfloat16 operator/(bfloat16 rhs) const { return bfloat16(float(*this) / float(rhs)); }

private:
  uint16_t bits_ = 0;
};

static_assert(sizeof(bfloat16) == 2, "bfloat16 vectors are copied to device buffers as they are");

std::ostream& operator<<(std::ostream& os, const bfloat16& value);

// first in the low half, second in the high half (little-endian element order).
uint32_t pack_two_bfloat16_into_uint32(std::pair<bfloat16, bfloat16> two_bfloats);
// Pairs of values per word, as pack_two_bfloat16_into_uint32; an odd count
// leaves the last word's high half zero.
std::vector<uint32_t> pack_bfloat16_vec_into_uint32_vec(const std::vector<bfloat16>& data);
bfloat16 bfloat16_identity_transform(const bfloat16& input);
std::vector<bfloat16> unpack_uint32_vec_into_bfloat16_vec(
    const std::vector<uint32_t>& data,
    const std::function<bfloat16(const bfloat16&)>& transform = bfloat16_identity_transform);

// num_bytes / 2 values uniform in [offset, offset + rand_max_float), from a
// generator seeded with `seed` (the same values on every run).
std::vector<bfloat16> create_random_vector_of_bfloat16_native(size_t num_bytes, float rand_max_float, int seed,
                                                              float offset = 0.0f);
// The same, packed two per word.
std::vector<uint32_t> create_random_vector_of_bfloat16(size_t num_bytes, int rand_max_float, int seed,
                                                       float offset = 0.0f);
std::vector<uint32_t> create_constant_vector_of_bfloat16(size_t num_bytes, float value);
// A rows x cols row-major matrix of zeros with 1 at (i, i) for i < num_ones;
// throws tessel::ValidationError unless 0 <= num_ones <= min(rows, cols).
std::vector<bfloat16> create_identity_matrix(int rows, int cols, int num_ones);

// numpy.isclose: |a - b| <= atol + rtol * |b|.
bool is_close(float a, float b, float rtol = 0.01f, float atol = 0.001f);
