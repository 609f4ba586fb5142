// bfloat16 tensors of TILE layout interleaved in DRAM, one tile a page, as
// the ttnn_ops programs give them to ttnn's kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/ttnn_ops.hpp"
#include "tessel/buffer.hpp"
#include "tessel/device.hpp"
#include "tessel/program.hpp"
#include "tessel/tile.hpp"

namespace tessel::examples::ttnn_ops {

inline constexpr uint32_t kTile = 32;                         // a tile's rows and columns
inline constexpr uint32_t kTileBf16Bytes = kTile * kTile * 2; // a bfloat16 tile, one page

// A CB config of `tiles` pages of `tile_bytes` at `index` in `format`, as
// the factories create their CBs.
inline tessel::CircularBufferConfig tiles_cb(uint8_t index, uint32_t tiles,
                                             tessel::DataFormat format = tessel::DataFormat::Float16_b,
                                             uint32_t tile_bytes = kTileBf16Bytes) {
  return tessel::CircularBufferConfig(tiles * tile_bytes, {{index, format}}).set_page_size(index, tile_bytes);
}

// An interleaved DRAM buffer of `tiles` bfloat16 tiles.
inline std::shared_ptr<tessel::Buffer> dram_tiles(const std::shared_ptr<tessel::Device>& device, uint32_t tiles) {
  return tessel::Buffer::create(device, {uint64_t(tiles) * kTileBf16Bytes, kTileBf16Bytes, tessel::BufferType::DRAM});
}

// A row-major rows x cols matrix as bfloat16 tiles in tile order (faces
// within each tile), and back.
inline std::vector<uint16_t> bf16_tiles(const std::vector<float>& row_major, uint32_t rows, uint32_t cols) {
  return to_bf16(tessel::tilize(row_major, rows, cols));
}
inline std::vector<float> float_tiles(const std::vector<uint16_t>& tiles, uint32_t rows, uint32_t cols) {
  return tessel::untilize(from_bf16(tiles), rows, cols);
}

inline void write_tiles(tessel::Buffer& buffer, const std::vector<uint16_t>& tiles) {
  buffer.write(tiles.data(), tiles.size() * sizeof(uint16_t));
}
inline std::vector<uint16_t> read_tiles(const tessel::Buffer& buffer, uint32_t tiles) {
  std::vector<uint16_t> out(size_t(tiles) * kTile * kTile);
  buffer.read(out.data(), out.size() * sizeof(uint16_t));
  return out;
}

} // namespace tessel::examples::ttnn_ops
