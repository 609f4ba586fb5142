// TT-Metalium's MeshBuffer: one interleaved Buffer (buffer.hpp) on every chip
// of a mesh, all at the same address, allocated and freed together.
//
// A ReplicatedBufferConfig gives every chip `size` bytes, and a write sends
// the same data to each. A ShardedBufferConfig describes a 2-D array of
// global_buffer_shape (height x width) elements of global_size / (height *
// width) bytes each, cut into shard_shape tiles; shard (i, j) (row-major over
// the array, its rows taken from the array's rows) goes to the next chip in
// the shard orientation's order: ROW_MAJOR fills the mesh row by row,
// COL_MAJOR column by column. A shard dimension of 0 stands for the whole
// extent and replicates: with one of them 0, shard k goes to every chip of
// mesh column k (ROW_MAJOR) or mesh row k (COL_MAJOR); with both 0, the
// whole array goes to every chip. Each chip's buffer holds one shard,
// row-major: device_local_size() bytes. Chips past the last shard get a
// buffer but no data. Reading a sharded buffer back assembles the array from
// the shards, so it needs every shard stored once (no 0 dimension).
//
// create() throws tessel::ValidationError, allocating nothing, for a shape
// the shard does not divide, more shards than chips, a per-chip size that is
// not a whole number of pages, a sub-device id, a fixed address or bad
// per-device sharding (DeviceLocalBufferConfig::sharding_args: each chip's
// buffer is then sharded over its cores as buffer.hpp says), and when the
// chips cannot give the same address (mesh_device.hpp says when that is).
// bottom_up places each chip's buffer as Metalium's allocator does: from the
// lowest free address up or the highest down (unset: DRAM bottom-up, L1
// top-down).
//
// Ownership: shared_ptr from create(); the allocations are freed with the
// last reference or deallocate(). The MeshDevice must outlive it.
// Thread-safety: as the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "tt-metalium/buffer.hpp"
#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/sub_device_types.hpp"

namespace tt::tt_metal::distributed {

struct DeviceLocalBufferConfig {
  DeviceAddr page_size = 0;
  BufferType buffer_type = BufferType::DRAM;
  BufferShardingArgs sharding_args;
  std::optional<bool> bottom_up;
  std::optional<SubDeviceId> sub_device_id = std::nullopt;
};

struct ReplicatedBufferConfig {
  DeviceAddr size = 0; // on each device
};

// Height x width, in elements. Destructures as `auto [height, width] = shape`.
class Shape2D {
public:
  Shape2D(size_t height, size_t width) : height_(height), width_(width) {}
  size_t height() const { return height_; }
  size_t width() const { return width_; }
  template <size_t I>
  size_t get() const {
    static_assert(I < 2);
    return I == 0 ? height_ : width_;
  }
  friend bool operator==(const Shape2D&, const Shape2D&) = default;

private:
  size_t height_, width_;
};

struct ShardedBufferConfig {
  DeviceAddr global_size = 0; // bytes of the whole array
  Shape2D global_buffer_shape = {0, 0};
  Shape2D shard_shape = {0, 0}; // a 0 dimension replicates (see the top of this file)
  ShardOrientation shard_orientation = ShardOrientation::ROW_MAJOR;

  // Bytes per element: global_size / (height * width).
  uint32_t compute_datum_size_bytes() const;
  // Whether the shard height, and the shard width, replicate (are 0).
  std::pair<bool, bool> replicated_dims() const;
  // The shard shape with each replicating 0 replaced by the global extent.
  Shape2D physical_shard_shape() const;
};

enum class MeshBufferLayout : uint8_t { REPLICATED, SHARDED };
using MeshBufferConfig = std::variant<ReplicatedBufferConfig, ShardedBufferConfig>;

class MeshBuffer {
public:
  static std::shared_ptr<MeshBuffer> create(const MeshBufferConfig& mesh_buffer_config,
                                            const DeviceLocalBufferConfig& device_local_config, MeshDevice* mesh_device,
                                            std::optional<DeviceAddr> address = std::nullopt);
  MeshBuffer(const MeshBuffer&) = delete;
  MeshBuffer& operator=(const MeshBuffer&) = delete;

  bool is_allocated() const { return reference().is_allocated(); }
  // Frees the buffer on every chip.
  void deallocate();

  MeshDevice* device() const { return device_; }
  // Replicated: the per-chip size; sharded: global_size.
  DeviceAddr size() const;
  DeviceAddr device_local_size() const { return reference().size(); }
  uint32_t address() const { return reference().address(); }
  uint32_t page_size() const { return reference().page_size(); }
  uint32_t num_pages() const { return reference().num_pages(); }

  MeshBufferLayout global_layout() const;
  const MeshBufferConfig& global_config() const { return config_; }
  // The sharded config; throws tessel::ValidationError for a replicated buffer.
  const ShardedBufferConfig& global_shard_spec() const;
  const DeviceLocalBufferConfig& device_local_config() const { return device_local_config_; }
  // Sharded buffers only (global_shard_spec() throws otherwise).
  uint32_t datum_size_bytes() const { return global_shard_spec().compute_datum_size_bytes(); }
  Shape2D physical_shard_shape() const { return global_shard_spec().physical_shard_shape(); }
  std::pair<bool, bool> replicated_dims() const { return global_shard_spec().replicated_dims(); }

  // The buffer on the chip at `device_coord` (throws tessel::ValidationError outside the mesh).
  Buffer* get_device_buffer(const MeshCoordinate& device_coord) const;
  // Chip (0, 0)'s buffer: what single-device queries (TensorAccessorArgs, page sizes) read.
  Buffer* get_reference_buffer() const { return &reference(); }
  Buffer* get_backing_buffer() const { return &reference(); }

private:
  MeshBuffer(MeshBufferConfig config, DeviceLocalBufferConfig device_local_config, MeshDevice* device,
             std::vector<std::shared_ptr<Buffer>> buffers)
      : config_(config), device_local_config_(device_local_config), device_(device), buffers_(std::move(buffers)) {}

  MeshBufferConfig config_;
  DeviceLocalBufferConfig device_local_config_;
  MeshDevice* device_;
  std::vector<std::shared_ptr<Buffer>> buffers_; // one per chip, row-major; null: another MPI rank's chip
  // This process's first chip's buffer (all are alike).
  Buffer& reference() const {
    for (const auto& b : buffers_)
      if (b) return *b;
    return *buffers_.front();
  }
};

} // namespace tt::tt_metal::distributed

template <>
struct std::tuple_size<tt::tt_metal::distributed::Shape2D> : std::integral_constant<size_t, 2> {};
template <size_t I>
struct std::tuple_element<I, tt::tt_metal::distributed::Shape2D> {
  using type = size_t;
};
