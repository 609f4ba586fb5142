// MeshBuffer: checking a mesh buffer's layout and allocating it on every chip
// at one address.
#include "tt-metalium/mesh_buffer.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

#include "mesh_checks.hpp"
#include "tessel/error.hpp"
#include "tt-metalium/host_api.hpp"

namespace tt::tt_metal::distributed {

namespace {

std::string shape_text(const Shape2D& shape) {
  return std::to_string(shape.height()) + " x " + std::to_string(shape.width());
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

[[noreturn]] void reject(const std::string& what) {
  const std::string message = "MeshBuffer::create: " + what;
  throw tessel::ValidationError(message);
}

// Checks a sharded layout against the mesh; returns each chip's buffer size in bytes.
uint64_t sharded_device_local_size(const ShardedBufferConfig& config, const MeshDevice& mesh) {
  const Shape2D& global = config.global_buffer_shape;
  if (global.height() == 0 || global.width() == 0)
    reject("global_buffer_shape " + shape_text(global) + " has no elements; both dimensions must be at least 1");
  const uint64_t elements = uint64_t(global.height()) * global.width();
  if (config.global_size == 0 || config.global_size % elements != 0 || config.global_size / elements > UINT32_MAX)
    reject("global_size " + std::to_string(config.global_size) + " B is not a whole number of bytes for each of the " +
           std::to_string(elements) + " elements of the " + shape_text(global) + " global_buffer_shape");
  const Shape2D shard = config.physical_shard_shape();
  if (global.height() % shard.height() != 0 || global.width() % shard.width() != 0)
    reject("shard_shape " + shape_text(config.shard_shape) + " does not divide global_buffer_shape " +
           shape_text(global) + "; each global dimension must be a multiple of the shard's (0 replicates it)");
  const uint64_t shard_count = uint64_t(global.height() / shard.height()) * (global.width() / shard.width());
  const auto [height_replicated, width_replicated] = config.replicated_dims();
  const bool row_major = config.shard_orientation == ShardOrientation::ROW_MAJOR;
  const std::string mesh_name = std::to_string(mesh.num_rows()) + "x" + std::to_string(mesh.num_cols()) + " mesh";
  if (height_replicated != width_replicated) {
    // Each shard fills one mesh column (ROW_MAJOR) or one mesh row (COL_MAJOR).
    const uint64_t lines = row_major ? mesh.num_cols() : mesh.num_rows();
    if (shard_count > lines)
      reject(std::to_string(shard_count) + " shards of " + shape_text(shard) + ", each replicated over a mesh " +
             (row_major ? "column (ROW_MAJOR)" : "row (COL_MAJOR)") + ", but the " + mesh_name + " has " +
             std::to_string(lines) + (row_major ? " columns" : " rows"));
  } else if (!height_replicated && shard_count > mesh.num_devices()) {
    reject(std::to_string(shard_count) + " shards of " + shape_text(shard) + " in the " + shape_text(global) +
           " global_buffer_shape, but the " + mesh_name + " has " + std::to_string(mesh.num_devices()) +
           " devices; use larger shards or a larger mesh");
  }
  return uint64_t(config.compute_datum_size_bytes()) * shard.height() * shard.width();
}

} // namespace

uint32_t ShardedBufferConfig::compute_datum_size_bytes() const {
  const uint64_t elements = uint64_t(global_buffer_shape.height()) * global_buffer_shape.width();
  return elements ? uint32_t(global_size / elements) : 0;
}

std::pair<bool, bool> ShardedBufferConfig::replicated_dims() const {
  return {shard_shape.height() == 0, shard_shape.width() == 0};
}

Shape2D ShardedBufferConfig::physical_shard_shape() const {
  return Shape2D(shard_shape.height() ? shard_shape.height() : global_buffer_shape.height(),
                 shard_shape.width() ? shard_shape.width() : global_buffer_shape.width());
}

std::shared_ptr<MeshBuffer> MeshBuffer::create(const MeshBufferConfig& mesh_buffer_config,
                                               const DeviceLocalBufferConfig& device_local_config,
                                               MeshDevice* mesh_device, std::optional<DeviceAddr> address) {
  MeshDevice& mesh = checks::non_null(mesh_device, "MeshBuffer::create");
  if (device_local_config.sub_device_id) reject("sub-devices are not supported; leave sub_device_id unset");
  if (address) reject("placing a buffer at a given address is not supported");
  const uint64_t page_bytes = device_local_config.page_size;
  if (page_bytes == 0) reject("DeviceLocalBufferConfig::page_size is 0; give the size of one page in bytes");
  const uint64_t local_bytes = std::holds_alternative<ReplicatedBufferConfig>(mesh_buffer_config)
                                   ? std::get<ReplicatedBufferConfig>(mesh_buffer_config).size
                                   : sharded_device_local_size(std::get<ShardedBufferConfig>(mesh_buffer_config), mesh);
  if (local_bytes == 0 || local_bytes % page_bytes != 0)
    reject("each device's buffer would be " + std::to_string(local_bytes) + " B, not a whole number of " +
           std::to_string(page_bytes) + " B pages");

  // All chips or none: buffers made before a failure are freed as `buffers` unwinds.
  // One buffer per chip, indexed by linear index (null: another MPI rank's chip, which its rank allocates).
  std::vector<std::shared_ptr<Buffer>> buffers(mesh.num_devices());
  const size_t first = mesh.first_local_index();
  for (size_t i = 0; i < buffers.size(); ++i)
    if (mesh.is_local_index(i))
      buffers[i] = detail::create_buffer(mesh.get_device(uint32_t(i / mesh.num_cols()), uint32_t(i % mesh.num_cols())),
                                         local_bytes, page_bytes, device_local_config.buffer_type,
                                         device_local_config.sharding_args.buffer_layout(),
                                         device_local_config.sharding_args.shard_spec(), "MeshBuffer::create",
                                         device_local_config.bottom_up);
  for (size_t i = first + 1; i < buffers.size(); ++i)
    if (buffers[i] && buffers[i]->address() != buffers[first]->address()) {
      const MeshCoordinate coord(uint32_t(i / mesh.num_cols()), uint32_t(i % mesh.num_cols()));
      const MeshCoordinate at(uint32_t(first / mesh.num_cols()), uint32_t(first % mesh.num_cols()));
      reject("the devices of the mesh have different memory free: the device at " + at.str() +
             " placed the buffer at " + hex(buffers[first]->address()) + " but the device at " + coord.str() + " at " +
             hex(buffers[i]->address()) +
             "; a mesh buffer needs the same address on every device, so free the buffers made on single devices "
             "of the mesh (CreateBuffer on the MeshDevice or on get_device(coord)), or make them MeshBuffers");
    }
  return std::shared_ptr<MeshBuffer>(
      new MeshBuffer(mesh_buffer_config, device_local_config, &mesh, std::move(buffers)));
}

void MeshBuffer::deallocate() {
  for (const auto& buffer : buffers_)
    if (buffer) buffer->deallocate();
}

DeviceAddr MeshBuffer::size() const {
  const auto* sharded = std::get_if<ShardedBufferConfig>(&config_);
  return sharded ? sharded->global_size : device_local_size();
}

MeshBufferLayout MeshBuffer::global_layout() const {
  return std::holds_alternative<ShardedBufferConfig>(config_) ? MeshBufferLayout::SHARDED
                                                              : MeshBufferLayout::REPLICATED;
}

const ShardedBufferConfig& MeshBuffer::global_shard_spec() const {
  const auto* sharded = std::get_if<ShardedBufferConfig>(&config_);
  if (!sharded)
    throw tessel::ValidationError("MeshBuffer::global_shard_spec: the buffer is replicated (ReplicatedBufferConfig); "
                                  "only sharded buffers have a shard spec");
  return *sharded;
}

Buffer* MeshBuffer::get_device_buffer(const MeshCoordinate& device_coord) const {
  const size_t i = checks::chip_index(*device_, device_coord, "MeshBuffer::get_device_buffer");
  if (!buffers_[i])
    throw tessel::ValidationError("MeshBuffer::get_device_buffer: " + device_coord.str() +
                                  " is another MPI rank's chip; its buffer lives in that process");
  return buffers_[i].get();
}

} // namespace tt::tt_metal::distributed
