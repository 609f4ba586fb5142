// What the ttnn_ops host programs share: finding the TT-Metalium checkout
// their kernels are launched from, bfloat16 tensors in tile order, a fixed
// input generator, and the one-line verdict each prints.
//
// A program launches ttnn's kernels by the paths its program factory gives
// them ("ttnn/cpp/ttnn/operations/..."): tessel resolves those under
// $TT_METAL_HOME. Without a checkout there the program prints
// "<op>: SKIPPED: ..." and exits with kSkipped (ctest's SKIP_RETURN_CODE).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessel/tessel.hpp"

namespace tessel::ttnn_ops {

inline constexpr int kSkipped = 77;
inline constexpr uint32_t kTile = 32;
inline constexpr uint32_t kTileBf16Bytes = kTile * kTile * 2;

// True when every kernel path lies under $TT_METAL_HOME; otherwise prints the
// op's SKIPPED line, naming the first kernel that is missing.
inline bool checkout_has(const char* op, std::initializer_list<const char*> kernels) {
  const char* home = std::getenv("TT_METAL_HOME");
  if (home == nullptr || *home == '\0') {
    std::printf("%s: SKIPPED: set TT_METAL_HOME to a TT-Metalium checkout (the kernels are launched from "
                "ttnn/cpp/...)\n",
                op);
    return false;
  }
  for (const char* kernel : kernels)
    if (!std::filesystem::exists(std::filesystem::path(home) / kernel)) {
      std::printf("%s: SKIPPED: set TT_METAL_HOME to a TT-Metalium checkout (the kernels are launched from "
                  "ttnn/cpp/...); %s has no %s\n",
                  op, home, kernel);
      return false;
    }
  return true;
}

// Inputs: a fixed 64-bit linear congruential generator, values rounded to
// bfloat16 so the host reference starts from exactly what the device reads.
class Inputs {
public:
  explicit Inputs(uint64_t seed) : state_(seed) {}
  float uniform(float lo, float hi) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    const double u = double(state_ >> 11) / double(1ull << 53);
    return bf16_to_float(float_to_bf16(float(lo + (hi - lo) * u)));
  }
  std::vector<float> matrix(uint32_t rows, uint32_t cols, float lo, float hi) {
    std::vector<float> m(size_t(rows) * cols);
    for (float& v : m)
      v = uniform(lo, hi);
    return m;
  }

private:
  uint64_t state_;
};

// A row-major rows x cols float matrix as bfloat16 tiles (tile order, faces),
// the page layout of ttnn's TILE-layout bfloat16 tensors.
inline std::vector<uint16_t> to_bf16_tiles(std::span<const float> row_major, uint32_t rows, uint32_t cols) {
  std::vector<uint16_t> bits(row_major.size());
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = float_to_bf16(row_major[i]);
  return tilize(std::span<const uint16_t>(bits), rows, cols);
}

inline std::vector<float> from_bf16_tiles(std::span<const uint16_t> tiles, uint32_t rows, uint32_t cols) {
  const std::vector<uint16_t> bits = untilize(tiles, rows, cols);
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    out[i] = bf16_to_float(bits[i]);
  return out;
}

// An interleaved DRAM tensor of bfloat16 tiles, one tile a page.
inline std::shared_ptr<Buffer> dram_tiles(const std::shared_ptr<Device>& device, uint32_t tiles) {
  return Buffer::create(device, {uint64_t(tiles) * kTileBf16Bytes, kTileBf16Bytes, BufferType::DRAM});
}

inline void write_tiles(Buffer& buffer, std::span<const uint16_t> tiles) {
  buffer.write(tiles.data(), tiles.size() * sizeof(uint16_t));
}

inline std::vector<uint16_t> read_tiles(const Buffer& buffer, uint32_t tiles) {
  std::vector<uint16_t> out(size_t(tiles) * kTile * kTile);
  buffer.read(out.data(), out.size() * sizeof(uint16_t));
  return out;
}

// The largest |got - want| and whether every element lies within its bound.
struct Check {
  double max_err = 0;
  double max_bound = 0;
  size_t bad = 0;
  size_t first_bad = 0;
  double first_got = 0, first_want = 0, first_bound = 0;

  void add(size_t index, double got, double want, double bound) {
    const double err = std::fabs(got - want);
    max_err = std::max(max_err, std::isnan(err) ? double(INFINITY) : err);
    max_bound = std::max(max_bound, bound);
    if (!(err <= bound)) {
      if (bad++ == 0) first_bad = index, first_got = got, first_want = want, first_bound = bound;
    }
  }
};

// Prints "<op>: PASSED (max abs err X, bound Y)" or the FAILED line naming
// the first element outside its bound; returns the exit code.
inline int verdict(const char* op, const Check& c, const char* element_name = "element") {
  if (c.bad == 0) {
    std::printf("%s: PASSED (max abs err %.3g, bound %.3g)\n", op, c.max_err, c.max_bound);
    return 0;
  }
  std::printf("%s: FAILED (%zu values outside their bound; first: %s %zu is %.6g, want %.6g within %.3g; max abs "
              "err %.3g)\n",
              op, c.bad, element_name, c.first_bad, c.first_got, c.first_want, c.first_bound, c.max_err);
  return 1;
}

// A kernel that would not build or run: the FAILED line with tessel's message.
inline int failed(const char* op, const std::exception& e) {
  std::printf("%s: FAILED: %s\n", op, e.what());
  return 1;
}

} // namespace tessel::ttnn_ops
