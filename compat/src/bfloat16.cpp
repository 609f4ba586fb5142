// bfloat16 host helpers (bfloat16.hpp).
#include "tt-metalium/bfloat16.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <string>

#include "tessel/error.hpp"

bfloat16 bfloat16::truncate(float value) { return from_bits(uint16_t(std::bit_cast<uint32_t>(value) >> 16)); }

std::ostream& operator<<(std::ostream& os, const bfloat16& value) { return os << value.to_float(); }

uint32_t pack_two_bfloat16_into_uint32(std::pair<bfloat16, bfloat16> two_bfloats) {
  return uint32_t(two_bfloats.first.to_uint16()) | uint32_t(two_bfloats.second.to_uint16()) << 16;
}

std::vector<uint32_t> pack_bfloat16_vec_into_uint32_vec(const std::vector<bfloat16>& data) {
  std::vector<uint32_t> out((data.size() + 1) / 2);
  for (size_t i = 0; i < data.size(); ++i)
    out[i / 2] |= uint32_t(data[i].to_uint16()) << (16 * (i % 2));
  return out;
}

bfloat16 bfloat16_identity_transform(const bfloat16& input) { return input; }

std::vector<bfloat16> unpack_uint32_vec_into_bfloat16_vec(const std::vector<uint32_t>& data,
                                                          const std::function<bfloat16(const bfloat16&)>& transform) {
  std::vector<bfloat16> out;
  out.reserve(data.size() * 2);
  for (uint32_t word : data) {
    out.push_back(transform(bfloat16::from_bits(uint16_t(word & 0xffff))));
    out.push_back(transform(bfloat16::from_bits(uint16_t(word >> 16))));
  }
  return out;
}

std::vector<bfloat16> create_random_vector_of_bfloat16_native(size_t num_bytes, float rand_max_float, int seed,
                                                              float offset) {
  std::mt19937 rng{static_cast<uint32_t>(seed)};
  std::uniform_real_distribution<float> dist(0.0f, rand_max_float);
  std::vector<bfloat16> out(num_bytes / sizeof(bfloat16));
  for (bfloat16& v : out)
    v = bfloat16(dist(rng) + offset);
  return out;
}

std::vector<uint32_t> create_random_vector_of_bfloat16(size_t num_bytes, int rand_max_float, int seed, float offset) {
  return pack_bfloat16_vec_into_uint32_vec(
      create_random_vector_of_bfloat16_native(num_bytes, float(rand_max_float), seed, offset));
}

std::vector<uint32_t> create_constant_vector_of_bfloat16(size_t num_bytes, float value) {
  return pack_bfloat16_vec_into_uint32_vec(std::vector<bfloat16>(num_bytes / sizeof(bfloat16), bfloat16(value)));
}

std::vector<bfloat16> create_identity_matrix(int rows, int cols, int num_ones) {
  if (rows < 0 || cols < 0 || num_ones < 0 || num_ones > std::min(rows, cols)) {
    const std::string message = "create_identity_matrix: " + std::to_string(num_ones) + " ones in a " +
                                std::to_string(rows) + "x" + std::to_string(cols) +
                                " matrix: expected non-negative sizes and at most min(rows, cols) ones";
    throw tessel::ValidationError(message);
  }
  std::vector<bfloat16> m(size_t(rows) * size_t(cols), bfloat16(0.0f));
  for (int i = 0; i < num_ones; ++i)
    m[size_t(i) * size_t(cols) + size_t(i)] = bfloat16(1.0f);
  return m;
}

bool is_close(float a, float b, float rtol, float atol) { return std::fabs(a - b) <= atol + rtol * std::fabs(b); }
