// One core's reader -> compute -> writer program over the compute tests'
// reader (CBs 0 and 1) and writer (CB 16) (cb_io_kernels.hpp), for the SFPU
// kernel tests that feed two inputs and read back an output: the DRAM
// buffers, the three CBs and the two data-movement kernels. The test adds
// its compute kernel and the runtime arguments.
#pragma once

#include <memory>
#include <vector>

#include "cb_io_kernels.hpp"
#include "tessel/tessel.hpp"
#include "tessel/tile.hpp"

namespace tessel::test {

struct SfpuPipeline {
  static constexpr uint32_t kOut = 16;
  std::shared_ptr<Buffer> in0, in1, out;
  Program program;
  KernelHandle reader = 0, writer = 0;
  CoreCoord core{0, 0};

  // a and b (whole tiles, tile order) in DRAM in `format`; CB 0 holds two
  // tiles, CB 1 one, CB 16 out_cb_tiles; out_tiles tiles of output buffer.
  SfpuPipeline(const std::shared_ptr<Device>& device, const std::vector<float>& a, const std::vector<float>& b,
               DataFormat format, uint32_t out_tiles, uint32_t out_cb_tiles) {
    const uint32_t tile = tile_size(format);
    auto input = [&](const std::vector<float>& v) {
      auto buf = Buffer::create(device, {tile * uint64_t(v.size() / kTileHW), tile, BufferType::DRAM});
      const std::vector<uint8_t> packed = pack_tiles(v, format);
      buf->write(packed.data(), packed.size());
      return buf;
    };
    in0 = input(a);
    in1 = input(b);
    out = Buffer::create(device, {uint64_t(out_tiles ? out_tiles : 1) * tile, tile, BufferType::DRAM});
    program.add_circular_buffer(core, CircularBufferConfig(2 * tile, {{uint8_t(0), format}}).set_page_size(0, tile));
    program.add_circular_buffer(core, CircularBufferConfig(tile, {{uint8_t(1), format}}).set_page_size(1, tile));
    program.add_circular_buffer(
        core, CircularBufferConfig(out_cb_tiles * tile, {{uint8_t(kOut), format}}).set_page_size(kOut, tile));
    reader = program.add_kernel_from_source(kReaderSource, "reader.cpp", core, DataMovementConfig{});
    writer = program.add_kernel_from_source(kWriterSource, "writer.cpp", core,
                                            DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
  }
};

} // namespace tessel::test
