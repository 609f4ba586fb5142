// Metalium's buffers over tessel's: interleaved and sharded configurations.
#include <string>
#include <vector>

#include "base/warning.hpp"
#include "tessel/error.hpp"
#include "tt-metalium/buffer.hpp"
#include "tt-metalium/circular_buffer_config.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/host_api.hpp"

namespace tt::tt_metal {

Buffer::Buffer(std::shared_ptr<tessel::Buffer> buffer, IDevice* device, TensorMemoryLayout layout,
               std::optional<ShardSpecBuffer> shard_spec)
    : buffer_(std::move(buffer)), device_(device), layout_(layout), shard_spec_(std::move(shard_spec)) {}

const ShardSpecBuffer& Buffer::shard_spec() const {
  if (!shard_spec_)
    throw tessel::ValidationError("Buffer::shard_spec: the buffer is interleaved; only sharded buffers have one");
  return *shard_spec_;
}

CircularBufferConfig& CircularBufferConfig::set_globally_allocated_address(const Buffer& buffer) {
  tessel::CircularBufferConfig::set_globally_allocated_address(buffer.native());
  return *this;
}

namespace detail {

namespace {

const char* layout_name(TensorMemoryLayout layout) {
  switch (layout) {
  case TensorMemoryLayout::INTERLEAVED: return "INTERLEAVED";
  case TensorMemoryLayout::HEIGHT_SHARDED: return "HEIGHT_SHARDED";
  case TensorMemoryLayout::WIDTH_SHARDED: return "WIDTH_SHARDED";
  case TensorMemoryLayout::BLOCK_SHARDED: return "BLOCK_SHARDED";
  }
  return "an unknown layout";
}

std::string pair_text(const std::array<uint32_t, 2>& v) {
  return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]";
}

// What silicon runs but is a likely mistake in a shard spec: a warning
// (an error under TESSEL_STRICT=1).
void warn_shape_mismatch(const std::string& prefix, const std::string& problem) {
  const std::string message = prefix + problem;
  if (tessel::base::warn_once(message, message) == tessel::base::Warned::Strict)
    throw tessel::ValidationError(message + tessel::base::kStrictSuffix);
}

// The shard spec as tessel's: shapes in pages and the bank of each core.
tessel::ShardSpec native_shard_spec(const IDevice& device, DeviceAddr size, DeviceAddr page_size, BufferType type,
                                    TensorMemoryLayout layout, const ShardSpecBuffer& shard, const char* call) {
  const auto fail_prefix = [&] {
    return std::string(call) + ": " + layout_name(layout) + " buffer with shard shape " + pair_text(shard.shape()) +
           ", page shape " + pair_text(shard.page_shape) + " and tensor of " +
           pair_text(shard.tensor2d_shape_in_pages) + " pages: ";
  };
  const auto fail = [&](const std::string& problem) { throw tessel::ValidationError(fail_prefix() + problem); };
  for (int d = 0; d < 2; ++d)
    if (shard.page_shape[d] == 0 || shard.shape()[d] == 0 || shard.shape()[d] % shard.page_shape[d] != 0 ||
        shard.tensor2d_shape_in_pages[d] == 0)
      fail("expected non-zero shapes with the shard shape a multiple of the page shape in each dimension");
  const std::array<uint32_t, 2> pages = shard.tensor2d_shape_in_pages, in_pages = shard.shape_in_pages();
  if (shard.num_pages() * page_size != size)
    fail("the tensor is " + std::to_string(shard.num_pages()) + " pages of " + std::to_string(page_size) +
         " bytes, but the buffer's size is " + std::to_string(size) + " bytes; expected them equal");
  // Metalium places a HEIGHT_SHARDED buffer's pages in row-major order, the
  // next shard-volume of them on each core, whatever the shard's width; a
  // WIDTH_SHARDED one as a grid of 2-D blocks, whatever the shard's height.
  // A shard that does not span the tensor in the layout's unsliced dimension
  // runs, but is a likely mistake: a warning.
  const bool height_flat = layout == TensorMemoryLayout::HEIGHT_SHARDED && in_pages[1] != pages[1];
  if (height_flat)
    warn_shape_mismatch(fail_prefix(), "a HEIGHT_SHARDED shard is " + std::to_string(in_pages[1]) +
                                           " pages wide, not the tensor's " + std::to_string(pages[1]) +
                                           ": each core takes the next " + std::to_string(in_pages[0] * in_pages[1]) +
                                           " pages in row-major order, as Metalium places them, not a 2-D block");
  if (layout == TensorMemoryLayout::WIDTH_SHARDED && in_pages[0] != pages[0])
    warn_shape_mismatch(fail_prefix(), "a WIDTH_SHARDED shard is " + std::to_string(in_pages[0]) +
                                           " pages high, not the tensor's " + std::to_string(pages[0]) +
                                           ": the pages are placed as 2-D blocks, as BLOCK_SHARDED places them");
  const uint32_t shard_volume = in_pages[0] * in_pages[1];
  const uint32_t shards =
      height_flat ? uint32_t((shard.num_pages() + shard_volume - 1) / shard_volume)
                  : ((pages[0] + in_pages[0] - 1) / in_pages[0]) * ((pages[1] + in_pages[1] - 1) / in_pages[1]);
  const std::vector<CoreCoord> cores =
      corerange_to_cores(shard.grid(), std::nullopt, shard.orientation() == ShardOrientation::ROW_MAJOR);
  if (shards > cores.size())
    fail(std::to_string(shards) + " shards for the " + std::to_string(cores.size()) + " cores of " +
         fmt::format("{}", shard.grid()) + "; expected at most one shard per core");
  tessel::ShardSpec spec;
  if (height_flat) {
    spec.tensor_shape_in_pages = {1, uint32_t(shard.num_pages())};
    spec.shard_shape_in_pages = {1, shard_volume};
  } else {
    spec.tensor_shape_in_pages = {pages[0], pages[1]};
    spec.shard_shape_in_pages = {in_pages[0], in_pages[1]};
  }
  const CoreCoord grid = device.compute_with_storage_grid_size();
  for (const CoreCoord& core : cores) {
    if (type == BufferType::DRAM) {
      if (core.y != 0 || core.x >= device.num_dram_channels())
        fail("core " + fmt::format("{}", core) + " is not a DRAM bank: expected (x=bank, y=0) with bank below " +
             std::to_string(device.num_dram_channels()));
      spec.banks.push_back(core.x);
    } else {
      if (core.x >= grid.x || core.y >= grid.y)
        fail("core " + fmt::format("{}", core) + " is outside the " + std::to_string(grid.x) + "x" +
             std::to_string(grid.y) + " worker grid");
      spec.banks.push_back(core.y * grid.x + core.x);
    }
  }
  return spec;
}

} // namespace

tessel::BufferConfig native_buffer_config(const IDevice& device, DeviceAddr size, DeviceAddr page_size, BufferType type,
                                          TensorMemoryLayout layout, const std::optional<ShardSpecBuffer>& shard,
                                          const char* call) {
  if (type != BufferType::DRAM && type != BufferType::L1)
    throw tessel::ValidationError(std::string(call) +
                                  ": only BufferType::DRAM and BufferType::L1 buffers exist in tessel "
                                  "(no L1_SMALL, SYSTEM_MEMORY or TRACE regions)");
  if (page_size > UINT32_MAX)
    throw tessel::ValidationError(std::string(call) + ": page_size " + std::to_string(page_size) +
                                  " B does not fit 32 bits");
  const bool sharded_layout = layout != TensorMemoryLayout::INTERLEAVED;
  if (sharded_layout != shard.has_value()) {
    const std::string message = std::string(call) + ": a " + layout_name(layout) + " buffer " +
                                (shard ? "was given shard parameters; expected them only for a sharded layout"
                                       : "has no shard parameters; expected a ShardSpecBuffer for a sharded layout");
    throw tessel::ValidationError(message);
  }
  tessel::BufferConfig native{size, uint32_t(page_size),
                              type == BufferType::L1 ? tessel::BufferType::L1 : tessel::BufferType::DRAM};
  if (shard) native.shard = native_shard_spec(device, size, page_size, type, layout, *shard, call);
  return native;
}

std::shared_ptr<Buffer> create_buffer(IDevice* device, DeviceAddr size, DeviceAddr page_size, BufferType type,
                                      TensorMemoryLayout layout, const std::optional<ShardSpecBuffer>& shard,
                                      const char* call, std::optional<bool> bottom_up) {
  if (!device) throw tessel::ValidationError(std::string(call) + ": the device is null");
  tessel::BufferConfig native = native_buffer_config(*device, size, page_size, type, layout, shard, call);
  native.bottom_up = bottom_up;
  return std::make_shared<Buffer>(tessel::Buffer::create(device->native_ptr(), native), device, layout, shard);
}

} // namespace detail

std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig& config) {
  return detail::create_buffer(config.device, config.size, config.page_size, config.buffer_type, config.buffer_layout,
                               std::nullopt, "CreateBuffer");
}

std::shared_ptr<Buffer> CreateBuffer(const ShardedBufferConfig& config) {
  return detail::create_buffer(config.device, config.size, config.page_size, config.buffer_type, config.buffer_layout,
                               config.shard_parameters, "CreateBuffer");
}

} // namespace tt::tt_metal
