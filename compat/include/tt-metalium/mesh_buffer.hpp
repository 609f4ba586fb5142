// TT-Metalium's MeshBuffer: a buffer allocated at the same address on every
// device of a mesh. On tessel's 1x1 meshes a replicated MeshBuffer is one
// interleaved Buffer (buffer.hpp), its backing buffer. Sharding across
// devices (ShardedBufferConfig) and per-device sharding
// (DeviceLocalBufferConfig::sharding_args) are not provided: create() throws
// tessel::ValidationError for them, as for a sub-device id or a fixed address.
//
// Ownership: shared_ptr from create(); the allocation is freed with the last
// reference or deallocate(). The MeshDevice must outlive it.
// Thread-safety: as the device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

#include "tt-metalium/buffer.hpp"
#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_device.hpp"

namespace tt::tt_metal {

// Per-device sharding parameters; only the default (interleaved) is supported.
struct BufferShardingArgs {
  bool sharded = false;
};

using SubDeviceId = uint8_t;

} // namespace tt::tt_metal

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

struct Shape2D {
  Shape2D(size_t height, size_t width) : height_(height), width_(width) {}
  size_t height() const { return height_; }
  size_t width() const { return width_; }

private:
  size_t height_, width_;
};

struct ShardedBufferConfig {
  DeviceAddr global_size = 0;
  Shape2D global_buffer_shape = {0, 0};
  Shape2D shard_shape = {0, 0};
  ShardOrientation shard_orientation = ShardOrientation::ROW_MAJOR;
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

  bool is_allocated() const { return buffer_->is_allocated(); }
  void deallocate() { buffer_->deallocate(); }

  MeshDevice* device() const { return device_; }
  DeviceAddr size() const { return buffer_->size(); }
  DeviceAddr device_local_size() const { return buffer_->size(); }
  uint32_t address() const { return buffer_->address(); }
  uint32_t page_size() const { return buffer_->page_size(); }
  uint32_t num_pages() const { return buffer_->num_pages(); }

  MeshBufferLayout global_layout() const { return MeshBufferLayout::REPLICATED; }
  const MeshBufferConfig& global_config() const { return config_; }
  const DeviceLocalBufferConfig& device_local_config() const { return device_local_config_; }

  // The buffer on the device at `coord`: the backing buffer at (0, 0); other coordinates throw.
  Buffer* get_device_buffer(const MeshCoordinate& device_coord) const;
  Buffer* get_reference_buffer() const { return buffer_.get(); }
  Buffer* get_backing_buffer() const { return buffer_.get(); }

private:
  MeshBuffer(MeshBufferConfig config, DeviceLocalBufferConfig device_local_config, MeshDevice* device,
             std::shared_ptr<Buffer> buffer)
      : config_(config), device_local_config_(device_local_config), device_(device), buffer_(std::move(buffer)) {}

  MeshBufferConfig config_;
  DeviceLocalBufferConfig device_local_config_;
  MeshDevice* device_;
  std::shared_ptr<Buffer> buffer_;
};

} // namespace tt::tt_metal::distributed
