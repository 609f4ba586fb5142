#include "ttnn_ops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <utility>

#include "example.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples::ttnn_ops {

namespace {
std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}
} // namespace

bool have_checkout(const std::string& op, std::initializer_list<const char*> kernels) {
  const std::string home = env_text("TT_METAL_HOME");
  bool ok = !home.empty();
  for (const char* kernel : kernels) {
    if (!ok) break;
    if (!std::filesystem::is_regular_file(std::filesystem::path(home) / kernel)) {
      std::fprintf(stderr, "%s: TT_METAL_HOME=%s has no %s\n", op.c_str(), home.c_str(), kernel);
      ok = false;
    }
  }
  if (!ok)
    std::printf("%s: SKIPPED: set TT_METAL_HOME to a TT-Metalium checkout (the kernels are launched from "
                "ttnn/cpp/...)\n",
                op.c_str());
  return ok;
}

std::shared_ptr<tessel::Device> open_device(tessel::CoreCoord grid) {
  tessel::DeviceConfig config;
  if (std::string arch = env_text("TESSEL_ARCH"); !arch.empty()) config.arch = arch;
  if (std::string policy = env_text("TESSEL_POLICY"); !policy.empty()) config.policy = policy;
  config.grid_x = grid.x;
  config.grid_y = grid.y;
  return tessel::Device::open(config);
}

tessel::DataMovementConfig reader_config(std::vector<uint32_t> compile_args, tessel::Defines defines) {
  tessel::DataMovementConfig config;
  config.processor = tessel::DataMovementProcessor::RISCV_1;
  config.noc = tessel::NOC::NOC_0;
  config.compile_args = std::move(compile_args);
  config.defines = std::move(defines);
  return config;
}

tessel::DataMovementConfig writer_config(std::vector<uint32_t> compile_args, tessel::Defines defines) {
  tessel::DataMovementConfig config;
  config.processor = tessel::DataMovementProcessor::RISCV_0;
  config.noc = tessel::NOC::NOC_1;
  config.compile_args = std::move(compile_args);
  config.defines = std::move(defines);
  return config;
}

std::vector<tessel::CoreCoord> grid_cores(tessel::CoreCoord grid, bool row_wise) {
  std::vector<tessel::CoreCoord> cores;
  cores.reserve(size_t(grid.x) * grid.y);
  if (row_wise) {
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x)
        cores.push_back({x, y});
  } else {
    for (uint32_t x = 0; x < grid.x; ++x)
      for (uint32_t y = 0; y < grid.y; ++y)
        cores.push_back({x, y});
  }
  return cores;
}

BlockSplit split_blocks_for_tilize(tessel::CoreCoord grid, uint32_t blocks) {
  BlockSplit split;
  const uint32_t grid_area = grid.x * grid.y;
  if (blocks == 0 || grid_area == 0) return split;
  split.blocks_per_core = (blocks + grid_area - 1) / grid_area;
  const uint32_t num_cores = (blocks + split.blocks_per_core - 1) / split.blocks_per_core;
  split.blocks_per_core_cliff = blocks % split.blocks_per_core;
  const uint32_t num_full = num_cores - (split.blocks_per_core_cliff > 0 ? 1 : 0);
  const std::vector<tessel::CoreCoord> cores = grid_cores(grid, /*row_wise=*/true);
  split.full_cores.assign(cores.begin(), cores.begin() + num_full);
  if (split.blocks_per_core_cliff > 0) split.cliff_cores.push_back(cores[num_full]);
  return split;
}

std::vector<float> random_bf16(size_t n, uint64_t seed, double lo, double hi) {
  tessel::examples::Lcg rng(seed);
  std::vector<float> values(n);
  for (float& v : values)
    v = tessel::bf16_to_float(tessel::float_to_bf16(float(rng.uniform(lo, hi))));
  return values;
}

std::vector<uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<uint16_t> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), tessel::float_to_bf16);
  return bits;
}

uint32_t packed_bf16_pair(float value) {
  const uint32_t half = std::bit_cast<uint32_t>(value) >> 16;
  return half | (half << 16);
}

std::vector<float> from_bf16(const std::vector<uint16_t>& bits) {
  std::vector<float> values(bits.size());
  std::transform(bits.begin(), bits.end(), values.begin(), tessel::bf16_to_float);
  return values;
}

Verdict::Verdict(std::string op, std::function<std::string(size_t)> where)
    : op_(std::move(op)), where_(std::move(where)) {}

void Verdict::check(size_t i, double got, double want, double bound) {
  ++checked_;
  const double err = std::fabs(got - want);
  max_bound_ = std::max(max_bound_, bound);
  if (err <= bound) {
    max_err_ = std::max(max_err_, err);
    return;
  }
  if (bad_++ == 0) {
    char text[160];
    std::snprintf(text, sizeof text, "got %.9g, expected %.9g (bound %.9g)", got, want, bound);
    first_bad_ = where_(i) + ": " + text;
  }
  if (!std::isnan(err)) max_err_ = std::max(max_err_, err);
}

void Verdict::fail(std::string what) {
  if (failure_.empty()) failure_ = std::move(what);
}

int Verdict::report() const {
  if (!failure_.empty()) {
    std::printf("%s: FAILED: %s\n", op_.c_str(), failure_.c_str());
    return 1;
  }
  if (checked_ == 0) {
    std::printf("%s: FAILED: no values were checked\n", op_.c_str());
    return 1;
  }
  if (bad_ > 0) {
    std::printf("%s: FAILED: %zu of %zu values outside their bounds; the first at %s\n", op_.c_str(), bad_, checked_,
                first_bad_.c_str());
    return 1;
  }
  std::printf("%s: PASSED (max abs err %.9g, bound %.9g)\n", op_.c_str(), max_err_, max_bound_);
  return 0;
}

int run_guarded(const std::string& op, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::printf("%s: FAILED: %s\n", op.c_str(), e.what());
    return 1;
  }
}

} // namespace tessel::examples::ttnn_ops
