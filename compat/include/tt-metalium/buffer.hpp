// TT-Metalium's Buffer over a tessel::Buffer: an interleaved DRAM or L1
// allocation whose page p lives in bank p % banks at address() + (p / banks)
// * aligned_page_size() (include/tessel/buffer.hpp has the layout), or a
// sharded one (ShardedBufferConfig, or BufferShardingArgs for a MeshBuffer).
//
// Sharded buffers. The tensor is tensor2d_shape_in_pages pages (row-major
// page ids); shards are shard_shape / page_shape pages (both must divide),
// numbered row-major over the grid of shards, and shard s goes to the s-th
// core of the ShardSpec's cores, taken range by range row-major
// (ShardOrientation::ROW_MAJOR) or column-major (COL_MAJOR); within a shard,
// pages are row-major. HEIGHT_SHARDED shards must span the width,
// WIDTH_SHARDED the height; BLOCK_SHARDED takes any 2-D shard. There must be
// no more shards than cores. For a DRAM buffer, the cores are DRAM banks
// (x = bank, y = 0). A kernel reaches the pages through TensorAccessor with
// the buffer's TensorAccessorArgs, which carry the layout.
//
// address() and page_size() are uint32_t (Metalium: DeviceAddr, 64-bit), so
// `{buffer->address(), ...}` runtime-arg lists compile without narrowing;
// device addresses here fit 32 bits.
//
// Ownership: CreateBuffer returns a shared_ptr; the allocation is freed when
// the last reference goes or on DeallocateBuffer. A Buffer keeps its tessel
// device alive, but its IDevice* must outlive it (as in Metalium).
// Thread-safety: as the device (one host thread at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "tessel/buffer.hpp"
#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/shard_spec.hpp"

namespace tt::tt_metal {

class IDevice;

struct InterleavedBufferConfig {
  IDevice* device = nullptr;
  DeviceAddr size = 0;
  DeviceAddr page_size = 0; // the unit of interleaving; size must be a multiple
  BufferType buffer_type = BufferType::DRAM;
  TensorMemoryLayout buffer_layout = TensorMemoryLayout::INTERLEAVED;
};

struct ShardedBufferConfig {
  IDevice* device = nullptr;
  DeviceAddr size = 0; // tensor2d_shape_in_pages pages of page_size bytes
  DeviceAddr page_size = 0;
  BufferType buffer_type = BufferType::L1;
  TensorMemoryLayout buffer_layout = TensorMemoryLayout::HEIGHT_SHARDED;
  ShardSpecBuffer shard_parameters;
};

// A MeshBuffer's per-device layout (mesh_buffer.hpp): interleaved (default,
// or std::nullopt) or sharded by a ShardSpecBuffer.
class BufferShardingArgs {
public:
  BufferShardingArgs() = default;
  BufferShardingArgs(std::nullopt_t) {}
  BufferShardingArgs(const ShardSpecBuffer& shard_spec,
                     TensorMemoryLayout buffer_layout = TensorMemoryLayout::BLOCK_SHARDED)
      : shard_spec_(shard_spec), buffer_layout_(buffer_layout) {}
  const std::optional<ShardSpecBuffer>& shard_spec() const { return shard_spec_; }
  TensorMemoryLayout buffer_layout() const { return buffer_layout_; }

private:
  std::optional<ShardSpecBuffer> shard_spec_;
  TensorMemoryLayout buffer_layout_ = TensorMemoryLayout::INTERLEAVED;
};

class Buffer {
public:
  // For the compat layer: wraps an allocation made on `device`.
  Buffer(std::shared_ptr<tessel::Buffer> buffer, IDevice* device,
         TensorMemoryLayout layout = TensorMemoryLayout::INTERLEAVED,
         std::optional<ShardSpecBuffer> shard_spec = std::nullopt);
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint32_t address() const { return buffer_->address(); }
  DeviceAddr size() const { return buffer_->size(); }
  uint32_t page_size() const { return buffer_->page_size(); }
  uint32_t num_pages() const { return buffer_->num_pages(); }
  uint32_t aligned_page_size() const { return buffer_->aligned_page_size(); }
  BufferType buffer_type() const {
    return buffer_->type() == tessel::BufferType::L1 ? BufferType::L1 : BufferType::DRAM;
  }
  TensorMemoryLayout buffer_layout() const { return layout_; }
  bool is_sharded() const { return shard_spec_.has_value(); }
  // Throws tessel::ValidationError for an interleaved buffer.
  const ShardSpecBuffer& shard_spec() const;
  bool is_l1() const { return buffer_type() == BufferType::L1; }
  bool is_dram() const { return buffer_type() == BufferType::DRAM; }
  bool is_allocated() const { return buffer_->is_allocated(); }
  IDevice* device() const { return device_; }

  void deallocate() { buffer_->deallocate(); }

  tessel::Buffer& native() const { return *buffer_; }

private:
  std::shared_ptr<tessel::Buffer> buffer_;
  IDevice* device_;
  TensorMemoryLayout layout_;
  std::optional<ShardSpecBuffer> shard_spec_;
};

namespace detail {
// tessel's configuration of a Metalium buffer on `device`; throws
// tessel::ValidationError, naming `call`, for what tessel cannot allocate or
// a shard layout that does not describe `size` (buffer.hpp's rules).
tessel::BufferConfig native_buffer_config(const IDevice& device, DeviceAddr size, DeviceAddr page_size, BufferType type,
                                          TensorMemoryLayout layout, const std::optional<ShardSpecBuffer>& shard,
                                          const char* call);
// Makes the buffer `native_buffer_config` describes, bottom-up or top-down
// as `bottom_up` says (unset: DRAM bottom-up, L1 top-down, as Metalium).
std::shared_ptr<Buffer> create_buffer(IDevice* device, DeviceAddr size, DeviceAddr page_size, BufferType type,
                                      TensorMemoryLayout layout, const std::optional<ShardSpecBuffer>& shard,
                                      const char* call, std::optional<bool> bottom_up = std::nullopt);
} // namespace detail

} // namespace tt::tt_metal
