// Welford's online mean and variance (api/compute/welford.h) through a real
// compute kernel ("welford_api.cpp"): tiles streamed through welford_update
// and finalized to a row or to the raw face layout, checked against a
// float64 reference of each column's mean and variance; the reciprocal
// table and update_rows (padding rows left out); a save / restore round trip
// with a group_id; and the messages for misuse (an update before
// welford_init, a finalize with no samples, a state a finalize consumed, a
// reciprocal read beyond the table, rows beyond the tile, a DST tile beyond
// the acquire); welford_reinit after another op's init.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cb_io_kernels.hpp"
#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

constexpr const char* kName = "welford_api.cpp";

const std::string& source() {
  static const std::string text = R"KERNEL(// welford_api.cpp: Welford's algorithm by its Metalium spellings.
#include <array>

#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/tile_move_copy.h"
#include "api/compute/reg_api.h"
#include "api/compute/pack.h"
#include "api/compute/welford.h"

constexpr uint32_t kLutSize = 96;
constexpr std::array<uint32_t, kLutSize> reciprocals() {
  std::array<uint32_t, kLutSize> lut{};
  for (uint32_t i = 0; i < kLutSize; ++i) lut[i] = __builtin_bit_cast(uint32_t, 1.0f / float(i + 1));
  return lut;
}

void kernel_main() {
  const uint32_t scenario = get_arg_val<uint32_t>(0), tiles = get_arg_val<uint32_t>(1);
  const uint32_t out_tiles = get_arg_val<uint32_t>(2);
  constexpr std::array<uint32_t, kLutSize> lut = reciprocals();
  compute_kernel_hw_startup(0, 16);
  copy_tile_to_dst_init_short(0);
  cb_wait_front(0, tiles);
  tile_regs_acquire();
  switch (scenario) {
  case 0: // all rows of every tile, population variance, computed reciprocals
    welford_init();
    for (uint32_t t = 0; t < tiles; ++t) {
      copy_tile(0, t, 0);
      welford_update<0>(0, 32 * t, {});
    }
    welford_finalize_to_row<0>(1, 32 * tiles - 1, {});
    break;
  case 1: // the reciprocal table; the last tile's first 20 rows only; sample variance
    welford_init();
    for (uint32_t t = 0; t + 1 < tiles; ++t) {
      copy_tile(0, t, 0);
      welford_update<kLutSize>(0, 32 * t, lut);
    }
    copy_tile(0, tiles - 1, 0);
    welford_update_rows<kLutSize>(0, 32 * (tiles - 1), 0, 20, lut);
    welford_finalize_to_row<kLutSize>(1, 32 * (tiles - 1) + 20 - 2, lut);
    break;
  case 2: // tile 0, saved to DST 3 / 4 at group 2, cleared, restored, then tile 1; raw at group 1
    welford_init();
    copy_tile(0, 0, 0);
    welford_update<0>(0, 0, {});
    welford_save_state(3, 2);
    welford_clear();
    welford_restore_state(3, 2);
    copy_tile(0, 1, 0);
    welford_update<0>(0, 32, {});
    welford_finalize_to_face<0>(1, 1, 63, {});
    break;
  case 3: // rows 5..14 of tile 0, then PreserveStats keeps them; raw without a group
    welford_init();
    copy_tile(0, 0, 0);
    welford_update_rows<0>(0, 0, 5, 10, {});
    welford_init<WelfordInitMode::PreserveStats>();
    welford_finalize_to_face<0>(1, 9, {});
    break;
  case 4: // another op's init, then welford_reinit sets the copy up again
    mul_tiles_init(0, 0);
    welford_reinit(0);
    welford_init();
    copy_tile(0, 0, 0);
    welford_update<0>(0, 0, {});
    welford_finalize_to_row<0>(1, 31, {});
    break;
  case 10:
    copy_tile(0, 0, 0);
    welford_update<0>(0, 0, {}); // @update_before_init
    break;
  case 11:
    welford_init();
    welford_clear(); // @clear
    welford_finalize_to_row<0>(1, 31, {}); // @finalize_empty
    break;
  case 12:
    welford_init();
    copy_tile(0, 0, 0);
    welford_update<0>(0, 0, {});
    welford_finalize_to_row<0>(7, 31, {}); // @finalize_dst
    break;
  case 13:
    welford_init();
    copy_tile(0, 0, 0);
    welford_update<kLutSize>(0, 80, lut); // @update_lut
    break;
  case 14:
    welford_init();
    copy_tile(0, 0, 0);
    welford_update<0>(0, 0, {});
    welford_finalize_to_row<0>(1, 31, {}); // @finalize_row
    welford_update<0>(0, 32, {}); // @update_consumed
    break;
  case 15:
    welford_init();
    copy_tile(0, 0, 0);
    welford_update_rows<0>(0, 0, 30, 3, {}); // @update_rows_beyond
    break;
  case 16:
    welford_init();
    welford_save_state(7, 0); // @save_dst
    break;
  }
  tile_regs_commit();
  tile_regs_wait();
  cb_reserve_back(16, out_tiles);
  for (uint32_t i = 0; i < out_tiles; ++i) pack_tile(1 + i, 16);
  cb_push_back(16, out_tiles);
  tile_regs_release();
}
)KERNEL";
  return text;
}

std::string at(const std::string& marker) { return marker_site(kName, source(), marker); }
std::string error_at(const std::string& marker) { return compute_error_at(kName, source(), marker); }

constexpr uint32_t kInTiles = 3;
constexpr float kRelBound = 2e-5f; // docs/numerics.md, "Welford"
constexpr float kAbsBound = 1e-6f;

// Tile t's value at row r, column c: quarters in [-4, 4) (exact in bfloat16),
// plus a per-column offset so columns differ in mean and spread.
float input_value(uint32_t t, uint32_t r, uint32_t c) {
  return 0.25f * float(int32_t((r * 7 + t * 13 + c * 5 + (r * c) % 11) % 32) - 16) + float(c % 4);
}

struct Stats {
  std::vector<double> mean, var; // per tile column
};

// The float64 mean and (population or sample) variance of each column over
// the samples listed as (tile, row).
Stats reference(const std::vector<std::pair<uint32_t, uint32_t>>& samples, bool sample_variance) {
  Stats s{std::vector<double>(32), std::vector<double>(32)};
  for (uint32_t c = 0; c < 32; ++c) {
    double sum = 0;
    for (auto [t, r] : samples)
      sum += input_value(t, r, c);
    const double mean = sum / double(samples.size());
    double sq = 0;
    for (auto [t, r] : samples)
      sq += (input_value(t, r, c) - mean) * (input_value(t, r, c) - mean);
    s.mean[c] = mean;
    s.var[c] = sq / double(samples.size() - (sample_variance ? 1 : 0));
  }
  return s;
}

std::vector<std::pair<uint32_t, uint32_t>> rows(uint32_t t, uint32_t first, uint32_t count) {
  std::vector<std::pair<uint32_t, uint32_t>> v;
  for (uint32_t r = first; r < first + count; ++r)
    v.push_back({t, r});
  return v;
}

// A tile's value at tile row `row`, column `col` (tilized: faces of 16 x 16).
float at_rc(const std::vector<float>& tiles, uint32_t tile, uint32_t row, uint32_t col) {
  const uint32_t face = (row / 16) * 2 + col / 16;
  return tiles[tile * kTileHW + face * 256 + (row % 16) * 16 + col % 16];
}

// The column lane l of the SFPU holds (the raw layout's lane at row l / 8,
// column 2 (l % 8)): 16 (r / 2) + 2 c + r % 2.
uint32_t lane_column(uint32_t l) { return 16 * ((l / 8) / 2) + 2 * (l % 8) + (l / 8) % 2; }

::testing::AssertionResult near(double got, double want, const std::string& what) {
  if (std::fabs(got - want) <= kAbsBound + kRelBound * std::fabs(want)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": got " << got << ", want " << want;
}

class WelfordTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 1, 1); }

  // Runs scenario `scenario` on kInTiles input tiles (Float16_b) with fp32
  // DST in full-sync (8 tiles); returns DST tiles 1.. out_tiles as Float32.
  Program build(uint32_t scenario, uint32_t tiles, uint32_t out_tiles) {
    const uint32_t in_tile = tile_size(DataFormat::Float16_b), out_tile = tile_size(DataFormat::Float32);
    std::vector<float> values;
    for (uint32_t t = 0; t < kInTiles; ++t) {
      std::vector<float> row_major(kTileHW);
      for (uint32_t r = 0; r < 32; ++r)
        for (uint32_t c = 0; c < 32; ++c)
          row_major[r * 32 + c] = input_value(t, r, c);
      const std::vector<float> tilized = tilize(row_major, 32, 32);
      values.insert(values.end(), tilized.begin(), tilized.end());
    }
    in_ = Buffer::create(device_, {uint64_t(kInTiles) * in_tile, in_tile, BufferType::DRAM});
    const std::vector<uint8_t> packed = pack_tiles(values, DataFormat::Float16_b);
    in_->write(packed.data(), packed.size());
    out_ = Buffer::create(device_, {uint64_t(out_tiles) * out_tile, out_tile, BufferType::DRAM});
    Program program;
    const CoreCoord core{0, 0};
    program.add_circular_buffer(
        core,
        CircularBufferConfig(kInTiles * in_tile, {{uint8_t(0), DataFormat::Float16_b}}).set_page_size(0, in_tile));
    program.add_circular_buffer(
        core, CircularBufferConfig(4 * out_tile, {{uint8_t(16), DataFormat::Float32}}).set_page_size(16, out_tile));
    KernelHandle reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    KernelHandle writer = program.add_kernel_from_source(
        kWriterSource, "writer.cpp", core, DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    ComputeConfig config;
    config.fp32_dest_acc_en = true;
    config.dst_full_sync_en = true;
    KernelHandle compute = program.add_kernel_from_source(source(), kName, core, config);
    program.set_runtime_args(reader, core, {0, in_->address(), kInTiles, 1, 0, 0});
    program.set_runtime_args(writer, core, {16, out_->address(), out_tiles});
    program.set_runtime_args(compute, core, {scenario, tiles, out_tiles});
    return program;
  }

  std::vector<float> run(uint32_t scenario, uint32_t tiles, uint32_t out_tiles) {
    Program program = build(scenario, tiles, out_tiles);
    device_->command_queue().enqueue_program(program);
    std::vector<uint8_t> bytes(out_tiles * tile_size(DataFormat::Float32));
    out_->read(bytes.data(), bytes.size());
    return unpack_tiles(bytes, DataFormat::Float32);
  }

  std::string fails(uint32_t scenario, bool strict = false) {
    Program program = build(scenario, 1, 2);
    if (strict) setenv("TESSEL_STRICT", "1", 1);
    std::string message = error_of<KernelError>(device_->command_queue(), program);
    if (strict) unsetenv("TESSEL_STRICT");
    expect_device_works(device_);
    return message;
  }

  // Row 0 of DST tile 1 (mean) and 2 (variance) hold `want` per column; the
  // rest of the two tiles is zero.
  static void expect_rows(const std::vector<float>& got, const Stats& want) {
    for (uint32_t row = 0; row < 32; ++row)
      for (uint32_t col = 0; col < 32; ++col) {
        const std::string where = "row " + std::to_string(row) + ", column " + std::to_string(col);
        if (row == 0) {
          EXPECT_TRUE(near(at_rc(got, 0, row, col), want.mean[col], "mean at " + where));
          EXPECT_TRUE(near(at_rc(got, 1, row, col), want.var[col], "variance at " + where));
        } else {
          ASSERT_EQ(at_rc(got, 0, row, col), 0.0f) << "mean tile at " << where;
          ASSERT_EQ(at_rc(got, 1, row, col), 0.0f) << "variance tile at " << where;
        }
      }
  }

  // The raw layout in DST tiles `mean_tile` and mean_tile + 1 of `got`:
  // lane l at row 4 group + l / 8, column 2 (l % 8); zeros elsewhere.
  static void expect_raw(const std::vector<float>& got, uint32_t mean_tile, uint32_t group,
                         const std::vector<double>& mean, const std::vector<double>& second, const char* second_name) {
    for (uint32_t t = 0; t < 2; ++t)
      for (uint32_t row = 0; row < 32; ++row)
        for (uint32_t col = 0; col < 32; ++col) {
          // Rows 4 group .. + 3 of DST are tile rows of face group / 4.
          const uint32_t dst_row = (row / 16) * 32 + (col / 16) * 16 + row % 16;
          const bool raw = dst_row / 4 == group && col % 2 == 0;
          const float v = at_rc(got, mean_tile + t, row, col);
          if (!raw) {
            ASSERT_EQ(v, 0.0f) << "tile " << mean_tile + t << " at row " << row << ", column " << col;
            continue;
          }
          const uint32_t lane = (dst_row % 4) * 8 + (col % 16) / 2;
          const double want = t == 0 ? mean[lane_column(lane)] : second[lane_column(lane)];
          EXPECT_TRUE(near(v, want,
                           std::string(t == 0 ? "mean" : second_name) + " of column " +
                               std::to_string(lane_column(lane)) + " (lane " + std::to_string(lane) + ")"));
        }
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<Buffer> in_, out_;
};

TEST_F(WelfordTest, StreamsTilesToRowOfMeanAndVariance) {
  for (uint32_t tiles : {1u, 3u}) {
    SCOPED_TRACE("tiles " + std::to_string(tiles));
    std::vector<std::pair<uint32_t, uint32_t>> samples;
    for (uint32_t t = 0; t < tiles; ++t)
      for (auto s : rows(t, 0, 32))
        samples.push_back(s);
    expect_rows(run(0, tiles, 2), reference(samples, false));
  }
}

TEST_F(WelfordTest, ReciprocalTableAndPartialLastTile) {
  std::vector<std::pair<uint32_t, uint32_t>> samples = rows(0, 0, 32);
  for (auto s : rows(1, 0, 32))
    samples.push_back(s);
  for (auto s : rows(2, 0, 20))
    samples.push_back(s);
  expect_rows(run(1, 3, 2), reference(samples, true));
}

TEST_F(WelfordTest, SaveRestoreRoundTripWithGroups) {
  const std::vector<float> got = run(2, 2, 4);
  // Tiles 1 and 2: mean and variance of both tiles at group 1; tiles 3 and 4:
  // the saved mean and M2 of tile 0 at group 2.
  std::vector<std::pair<uint32_t, uint32_t>> both = rows(0, 0, 32);
  for (auto s : rows(1, 0, 32))
    both.push_back(s);
  const Stats all = reference(both, false), first = reference(rows(0, 0, 32), false);
  std::vector<double> m2(32);
  for (uint32_t c = 0; c < 32; ++c)
    m2[c] = first.var[c] * 32;
  expect_raw(got, 0, 1, all.mean, all.var, "variance");
  expect_raw(got, 2, 2, first.mean, m2, "M2");
  // Restoring loses nothing: the result is the straight stream's, bit for bit.
  const std::vector<float> straight = run(0, 2, 2);
  for (uint32_t col = 0; col < 32; ++col) {
    const uint32_t lane = (col / 16) * 16 + (col % 2) * 8 + (col % 16) / 2; // lane of column col
    const uint32_t raw_row = 4 + lane / 8, raw_col = 2 * (lane % 8);        // group 1, face 0
    EXPECT_EQ(at_rc(got, 0, raw_row, raw_col), at_rc(straight, 0, 0, col)) << "mean of column " << col;
    EXPECT_EQ(at_rc(got, 1, raw_row, raw_col), at_rc(straight, 1, 0, col)) << "variance of column " << col;
  }
}

TEST_F(WelfordTest, UpdateRowsFromAnOffsetAndPreserveStats) {
  const Stats want = reference(rows(0, 5, 10), false);
  expect_raw(run(3, 1, 2), 0, 0, want.mean, want.var, "variance");
}

TEST_F(WelfordTest, ReinitSetsUpTheCopyAgain) { expect_rows(run(4, 1, 2), reference(rows(0, 0, 32), false)); }

TEST_F(WelfordTest, UpdateBeforeInitIsAnError) {
  EXPECT_EQ(fails(10), error_at("update_before_init") +
                           "welford_update<0>(input_dst_idx=0, start_idx=0): the SFPU's replay buffer holds no "
                           "Welford recurrence in this kernel: call welford_init() (it records the recurrence and "
                           "clears the running mean and M2) before the first update");
}

TEST_F(WelfordTest, FinalizeWithoutSamplesWarns) {
  EXPECT_EQ(fails(11, true), error_at("finalize_empty") +
                                 "welford_finalize_to_row<0>(mean_dst_idx=1, scale_idx=31): no sample reached the "
                                 "running mean and M2 since welford_clear at " +
                                 at("clear") +
                                 ", so the mean and variance written are zeros: call welford_update (or "
                                 "welford_restore_state) first (a warning, made an error by TESSEL_STRICT=1)");
  // Without TESSEL_STRICT the kernel runs on: zeros.
  const std::vector<float> got = run(11, 1, 2);
  for (float v : got)
    ASSERT_EQ(v, 0.0f);
}

TEST_F(WelfordTest, ConsumedStateWarns) {
  EXPECT_EQ(fails(14, true), error_at("update_consumed") +
                                 "welford_update<0>(input_dst_idx=0, start_idx=32): the running mean and M2 were "
                                 "consumed by welford_finalize_to_row at " +
                                 at("finalize_row") +
                                 " (it leaves the variance, or for finalize_to_row transposed leftovers, in the SFPU "
                                 "registers); silicon continues from those values: call welford_clear(), "
                                 "welford_init() or welford_restore_state() first (a warning, made an error by "
                                 "TESSEL_STRICT=1)");
}

TEST_F(WelfordTest, MisuseSiliconRunsWronglyIsAnError) {
  EXPECT_EQ(fails(12), error_at("finalize_dst") +
                           "welford_finalize_to_row<0>(mean_dst_idx=7, scale_idx=31): writes or reads the variance "
                           "in DST tile 8, out of range: one acquire holds 8 tiles in full-sync with "
                           "fp32_dest_acc_en mode (indices 0..7; the M2 or variance tile follows the mean's)");
  EXPECT_EQ(fails(16), error_at("save_dst") +
                           "welford_save_state(mean_dst_idx=7, group_id=0): writes or reads the M2 in DST tile 8, out "
                           "of range: one acquire holds 8 tiles in full-sync with fp32_dest_acc_en mode (indices "
                           "0..7; the M2 or variance tile follows the mean's)");
  EXPECT_EQ(fails(13), error_at("update_lut") +
                           "welford_update<96>(input_dst_idx=0, start_idx=80): reads reciprocal_lut[111], beyond the "
                           "table's 96 entries (start_idx + 31 must stay below 96); silicon would read whatever "
                           "memory follows the table");
  EXPECT_EQ(fails(15), error_at("update_rows_beyond") +
                           "welford_update_rows<0>(input_dst_idx=0, start_idx=0, start_row=30, num_rows=3): rows "
                           "30..32 reach beyond the tile's 32 rows (start_row + num_rows must be at most 32)");
}

} // namespace
} // namespace tessel::test
