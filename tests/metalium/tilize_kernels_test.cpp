// A row-major tensor through a compute kernel, as TT-Metalium programs do it:
// a reader copies 32 rows of a row-major DRAM buffer (one row per page) into
// a CB, the compute kernel tilizes the block, adds it to itself and untilizes
// the sum (pack_untilize_block, or untilize_block with USE_UNTILIZE_BLOCK),
// and a writer copies the 32 rows back. Checked against the host's x + x.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops_kernel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {
namespace {

// args: buffer address, row bytes, row blocks; compile arg 0: tiles across.
constexpr const char* kRowReader = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t addr = get_arg_val<uint32_t>(0), row_bytes = get_arg_val<uint32_t>(1);
  const uint32_t blocks = get_arg_val<uint32_t>(2);
  constexpr uint32_t wt = get_compile_time_arg_val(0);
  constexpr uint32_t cb_in = tt::CBIndex::c_0;
  const InterleavedAddrGen<true> rows = {.bank_base_address = addr, .page_size = row_bytes};
  for (uint32_t b = 0; b < blocks; ++b) {
    cb_reserve_back(cb_in, wt);
    uint32_t l1 = get_write_ptr(cb_in);
    for (uint32_t r = 0; r < 32; ++r, l1 += row_bytes) noc_async_read(get_noc_addr(b * 32 + r, rows), l1, row_bytes);
    noc_async_read_barrier();
    cb_push_back(cb_in, wt);
  }
}
)KERNEL";

constexpr const char* kRowWriter = R"KERNEL(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t addr = get_arg_val<uint32_t>(0), row_bytes = get_arg_val<uint32_t>(1);
  const uint32_t blocks = get_arg_val<uint32_t>(2);
  constexpr uint32_t wt = get_compile_time_arg_val(0);
  constexpr uint32_t cb_out = tt::CBIndex::c_16;
  const InterleavedAddrGen<true> rows = {.bank_base_address = addr, .page_size = row_bytes};
  for (uint32_t b = 0; b < blocks; ++b) {
    cb_wait_front(cb_out, wt);
    uint32_t l1 = get_read_ptr(cb_out);
    for (uint32_t r = 0; r < 32; ++r, l1 += row_bytes) noc_async_write(l1, get_noc_addr(b * 32 + r, rows), row_bytes);
    noc_async_write_barrier();
    cb_pop_front(cb_out, wt);
  }
}
)KERNEL";

constexpr const char* kTilizeAddUntilize = R"KERNEL(#include "api/compute/compute_kernel_hw_startup.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/tilize.h"
#include "api/compute/untilize.h"
#include "api/compute/pack_untilize.h"

namespace NAMESPACE {
void MAIN {
  const uint32_t blocks = get_arg_val<uint32_t>(0);
  constexpr uint32_t wt = get_compile_time_arg_val(0);
  constexpr auto cb_in = tt::CBIndex::c_0, cb_tiled = tt::CBIndex::c_1, cb_sum = tt::CBIndex::c_2;
  constexpr auto cb_out = tt::CBIndex::c_16;
  compute_kernel_hw_startup(cb_in, cb_in, cb_out);
  for (uint32_t b = 0; b < blocks; ++b) {
    tilize_init(cb_in, wt, cb_tiled);
    cb_wait_front(cb_in, wt);
    cb_reserve_back(cb_tiled, wt);
    tilize_block(cb_in, wt, cb_tiled);
    cb_push_back(cb_tiled, wt);
    cb_pop_front(cb_in, wt);
    tilize_uninit(cb_in, cb_tiled);

    add_tiles_init(cb_tiled, cb_tiled);
    cb_wait_front(cb_tiled, wt);
    cb_reserve_back(cb_sum, wt);
    tile_regs_acquire();
    for (uint32_t t = 0; t < wt; ++t) add_tiles(cb_tiled, cb_tiled, t, t, t);
    tile_regs_commit();
    tile_regs_wait();
    for (uint32_t t = 0; t < wt; ++t) pack_tile(t, cb_sum);
    tile_regs_release();
    cb_push_back(cb_sum, wt);
    cb_pop_front(cb_tiled, wt);

    cb_wait_front(cb_sum, wt);
    cb_reserve_back(cb_out, wt);
#ifdef USE_UNTILIZE_BLOCK
    untilize_init(cb_sum);
    untilize_block<1>(cb_sum, wt, cb_out);
    untilize_uninit(cb_sum);
#else
    pack_untilize_init<wt, wt>(cb_sum, cb_out);
    pack_untilize_block<wt, wt>(cb_sum, 1, cb_out);
    pack_untilize_uninit(cb_out);
#endif
    cb_push_back(cb_out, wt);
    cb_pop_front(cb_sum, wt);
  }
}
} // namespace NAMESPACE
)KERNEL";

TEST(TilizeKernels, RowMajorTensorThroughTilizeAddUntilize) {
  auto device = open_device("wormhole_b0", 1, 1);
  constexpr uint32_t kRows = 64, kTilesAcross = 3, kCols = kTilesAcross * 32, kRowBytes = kCols * 2;
  std::vector<float> x(size_t(kRows) * kCols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(int(i * 29 % 199) - 99) * 0.125f;
  const std::vector<uint8_t> x_bytes = pack_tiles(x, DataFormat::Float16_b); // value by value: row-major bf16
  for (bool untilize_block : {false, true}) {
    auto in = Buffer::create(device, {uint64_t(kRows) * kRowBytes, kRowBytes, BufferType::DRAM});
    auto out = Buffer::create(device, {uint64_t(kRows) * kRowBytes, kRowBytes, BufferType::DRAM});
    in->write(x_bytes.data(), x_bytes.size());
    Program program;
    const CoreCoord core{0, 0};
    const uint32_t tile = tile_size(DataFormat::Float16_b);
    for (uint8_t cb : {0, 1, 2, 16})
      program.add_circular_buffer(
          core, CircularBufferConfig(2 * kTilesAcross * tile, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile));
    DataMovementConfig reader_config;
    reader_config.compile_args = {kTilesAcross};
    DataMovementConfig writer_config{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default};
    writer_config.compile_args = {kTilesAcross};
    ComputeConfig compute_config;
    compute_config.compile_args = {kTilesAcross};
    if (untilize_block) compute_config.defines["USE_UNTILIZE_BLOCK"] = "1";
    KernelHandle reader = program.add_kernel_from_source(kRowReader, "row_reader.cpp", core, reader_config);
    KernelHandle writer = program.add_kernel_from_source(kRowWriter, "row_writer.cpp", core, writer_config);
    KernelHandle compute =
        program.add_kernel_from_source(kTilizeAddUntilize, "tilize_add_untilize.cpp", core, compute_config);
    program.set_runtime_args(reader, core, {in->address(), kRowBytes, kRows / 32});
    program.set_runtime_args(writer, core, {out->address(), kRowBytes, kRows / 32});
    program.set_runtime_args(compute, core, {kRows / 32});
    device->command_queue().enqueue_program(program);
    std::vector<uint8_t> y_bytes(x_bytes.size());
    out->read(y_bytes.data(), y_bytes.size());
    const std::vector<float> y = unpack_tiles(y_bytes, DataFormat::Float16_b);
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(y[i], x[i] + x[i]) << "row " << i / kCols << " column " << i % kCols << " untilize_block "
                                   << untilize_block;
  }
}

} // namespace
} // namespace tessel::test
