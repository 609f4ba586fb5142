// TT-Metalium's legacy 2-D shard description: ShardSpec (the cores and the
// shard shape in elements, height x width) and ShardSpecBuffer (plus the page
// shape in elements and the tensor's 2-D shape in pages), the parameters of
// a sharded Buffer (buffer.hpp says how they place pages).
// Plain values; thread-compatible.
#pragma once

#include <array>
#include <cstdint>

#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/core_coord.hpp"

namespace tt::tt_metal {

struct ShardSpec {
  CoreRangeSet grid;
  std::array<uint32_t, 2> shape = {0, 0}; // height, width in elements
  ShardOrientation orientation = ShardOrientation::ROW_MAJOR;

  ShardSpec(const CoreRangeSet& core_sets, const std::array<uint32_t, 2>& shard_shape,
            ShardOrientation shard_orientation = ShardOrientation::ROW_MAJOR)
      : grid(core_sets), shape(shard_shape), orientation(shard_orientation) {}
  uint32_t num_cores() const { return grid.num_cores(); }
  uint32_t numel() const { return shape[0] * shape[1]; }
  friend bool operator==(const ShardSpec&, const ShardSpec&) = default;
};

class ShardSpecBuffer {
public:
  ShardSpec tensor_shard_spec;
  std::array<uint32_t, 2> page_shape;              // height, width in elements
  std::array<uint32_t, 2> tensor2d_shape_in_pages; // height, width in pages

  ShardSpecBuffer(const CoreRangeSet& core_sets, const std::array<uint32_t, 2>& shard_shape,
                  ShardOrientation shard_orientation, const std::array<uint32_t, 2>& shard_page_shape,
                  const std::array<uint32_t, 2>& tensor2d_shape_in_pages_)
      : tensor_shard_spec(core_sets, shard_shape, shard_orientation), page_shape(shard_page_shape),
        tensor2d_shape_in_pages(tensor2d_shape_in_pages_) {}
  ShardSpecBuffer(const ShardSpec& shard_spec, const std::array<uint32_t, 2>& shard_page_shape,
                  const std::array<uint32_t, 2>& tensor2d_shape_in_pages_)
      : tensor_shard_spec(shard_spec), page_shape(shard_page_shape), tensor2d_shape_in_pages(tensor2d_shape_in_pages_) {
  }

  CoreRangeSet grid() const { return tensor_shard_spec.grid; }
  std::array<uint32_t, 2> shape() const { return tensor_shard_spec.shape; }
  ShardOrientation orientation() const { return tensor_shard_spec.orientation; }
  // The shard shape in pages (0 where a page dimension is 0).
  std::array<uint32_t, 2> shape_in_pages() const {
    return {page_shape[0] ? shape()[0] / page_shape[0] : 0, page_shape[1] ? shape()[1] / page_shape[1] : 0};
  }
  DeviceAddr num_pages() const { return DeviceAddr(tensor2d_shape_in_pages[0]) * tensor2d_shape_in_pages[1]; }
  friend bool operator==(const ShardSpecBuffer&, const ShardSpecBuffer&) = default;
};

} // namespace tt::tt_metal
