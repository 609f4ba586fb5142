#include "tessel/buffer.hpp"

#include "base/bulk_copy.hpp"
#include "base/host_memory.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/device_state.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"

namespace tessel {

namespace {
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

struct Geometry {
  uint32_t banks;
  uint32_t alignment;
  uint32_t stride; // aligned page size
  uint64_t bytes_per_bank;
};

Geometry geometry(const runtime::DeviceState& s, BufferType type, uint64_t size, uint32_t page) {
  Geometry g;
  g.banks = type == BufferType::DRAM ? s.arch.dram_banks : s.arch.core_count();
  g.alignment = type == BufferType::DRAM ? s.arch.dram_alignment() : s.arch.l1_alignment;
  g.stride = uint32_t(align_up(page, g.alignment));
  uint64_t pages = size / page;
  g.bytes_per_bank = ((pages + g.banks - 1) / g.banks) * g.stride;
  return g;
}

const char* type_name(BufferType t) { return t == BufferType::DRAM ? "DRAM" : "L1"; }

std::string shape_text(const std::vector<uint32_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// Throws unless `spec` describes `config`'s pages on banks of its type.
void check_shard_spec(const ShardSpec& spec, const BufferConfig& config, uint32_t banks) {
  const size_t rank = spec.tensor_shape_in_pages.size();
  std::string problem;
  if (rank == 0 || rank > ShardSpec::kMaxShardRank || spec.shard_shape_in_pages.size() != rank) {
    problem = "tensor shape " + shape_text(spec.tensor_shape_in_pages) + " and shard shape " +
              shape_text(spec.shard_shape_in_pages) + ": expected the same rank, 1 to " +
              std::to_string(ShardSpec::kMaxShardRank);
  } else {
    for (size_t d = 0; d < rank && problem.empty(); ++d)
      if (spec.tensor_shape_in_pages[d] == 0 || spec.shard_shape_in_pages[d] == 0)
        problem = "tensor shape " + shape_text(spec.tensor_shape_in_pages) + ", shard shape " +
                  shape_text(spec.shard_shape_in_pages) + ": dimension " + std::to_string(d) +
                  " is 0; expected every dimension >= 1";
  }
  if (problem.empty() && spec.banks.empty()) problem = "no banks given; expected at least one bank to hold shards";
  for (size_t i = 0; i < spec.banks.size() && problem.empty(); ++i) {
    if (spec.banks[i] >= banks)
      problem = "bank " + std::to_string(spec.banks[i]) + " (banks[" + std::to_string(i) +
                "]) does not exist: " + std::string(type_name(config.type)) + " has banks 0.." +
                std::to_string(banks - 1);
    for (size_t j = 0; j < i && problem.empty(); ++j)
      if (spec.banks[j] == spec.banks[i])
        problem = "bank " + std::to_string(spec.banks[i]) + " is listed twice (banks[" + std::to_string(j) +
                  "] and banks[" + std::to_string(i) + "]); expected distinct banks";
  }
  if (problem.empty() && config.size_bytes != spec.tensor_volume() * config.page_size_bytes)
    problem = "size " + std::to_string(config.size_bytes) + " bytes is not the tensor's " +
              std::to_string(spec.tensor_volume()) + " pages of " + std::to_string(config.page_size_bytes) + " bytes";
  if (!problem.empty()) throw ValidationError("Buffer::create: sharded buffer: " + problem);
}

// Page `page` of a sharded tensor: its shard and its position in the shard.
void shard_position(const ShardSpec& spec, uint32_t page, uint32_t* shard, uint32_t* in_shard) {
  uint32_t shard_id = 0, offset = 0, shard_stride = 1, page_stride = 1;
  for (size_t d = spec.tensor_shape_in_pages.size(); d-- > 0;) {
    const uint32_t t = spec.tensor_shape_in_pages[d], w = spec.shard_shape_in_pages[d];
    const uint32_t c = page % t;
    page /= t;
    shard_id += c / w * shard_stride;
    offset += c % w * page_stride;
    shard_stride *= (t + w - 1) / w;
    page_stride *= w;
  }
  *shard = shard_id;
  *in_shard = offset;
}
} // namespace

uint32_t ShardSpec::shard_volume() const {
  uint32_t v = 1;
  for (uint32_t w : shard_shape_in_pages)
    v *= w;
  return v;
}

uint64_t ShardSpec::tensor_volume() const {
  uint64_t v = 1;
  for (uint32_t t : tensor_shape_in_pages)
    v *= t;
  return v;
}

uint32_t ShardSpec::num_shards() const {
  uint32_t n = 1;
  for (size_t d = 0; d < tensor_shape_in_pages.size(); ++d)
    n *= (tensor_shape_in_pages[d] + shard_shape_in_pages[d] - 1) / shard_shape_in_pages[d];
  return n;
}

std::shared_ptr<Buffer> Buffer::create(const std::shared_ptr<Device>& device, const BufferConfig& config) {
  if (!device) throw ValidationError("Buffer::create: device is null");
  auto& s = device->state();
  s.require_open("Buffer::create");
  if (s.capturing_trace_id) {
    const std::string trace = std::to_string(s.capturing_trace_id);
    throw ValidationError("Buffer::create: trace " + trace + " is being captured on this device; allocate buffers " +
                          "before begin_trace_capture or after end_trace_capture(" + trace + ")");
  }
  if (config.size_bytes == 0 || config.page_size_bytes == 0)
    throw ValidationError("Buffer::create: size (" + std::to_string(config.size_bytes) + ") and page size (" +
                          std::to_string(config.page_size_bytes) + ") must both be non-zero");
  if (config.size_bytes % config.page_size_bytes != 0)
    throw ValidationError("Buffer::create: size " + std::to_string(config.size_bytes) +
                          " is not a multiple of the page size " + std::to_string(config.page_size_bytes));
  Geometry g = geometry(s, config.type, config.size_bytes, config.page_size_bytes);
  if (config.shard) {
    check_shard_spec(*config.shard, config, g.banks);
    const uint32_t listed = uint32_t(config.shard->banks.size());
    g.bytes_per_bank =
        uint64_t((config.shard->num_shards() + listed - 1) / listed) * config.shard->shard_volume() * g.stride;
  }
  runtime::RangeAllocator& alloc = config.type == BufferType::DRAM ? *s.dram : *s.l1;
  const bool from_top = !config.bottom_up.value_or(config.type == BufferType::DRAM);
  // As Metalium's bank managers: the range in each bank starts at the DRAM
  // alignment and takes a whole number of its units, in L1 too (pages inside
  // it keep the 16-byte L1 stride), so a DRAM page read into any L1 buffer
  // lines up.
  const uint64_t unit = s.arch.dram_alignment();
  const uint64_t slot = align_up(std::max<uint64_t>(g.bytes_per_bank, unit), unit);
  auto address = alloc.allocate(slot, unit, from_top);
  if (!address)
    throw OutOfMemoryError("Buffer::create: out of " + std::string(type_name(config.type)) +
                           " memory: " + std::to_string(config.size_bytes) + " bytes need " + std::to_string(slot) +
                           " bytes in each of " + std::to_string(g.banks) + " banks, but the largest free range is " +
                           std::to_string(alloc.largest_free()) + " bytes");
  // A sharded buffer is registered as the range it reserves in every bank.
  const uint64_t registered =
      config.shard ? g.bytes_per_bank / g.stride * g.banks * config.page_size_bytes : config.size_bytes;
  s.chip->memory_map().add(config.type == BufferType::DRAM ? sim::MemoryKind::Dram : sim::MemoryKind::L1, *address,
                           registered, config.page_size_bytes, g.stride, g.banks);
  return std::shared_ptr<Buffer>(new Buffer(device, config, uint32_t(*address), g.bytes_per_bank));
}

Buffer::Buffer(std::shared_ptr<Device> device, const BufferConfig& config, uint32_t address, uint64_t bytes_per_bank)
    : device_(std::move(device)), address_(address), size_(config.size_bytes), page_size_(config.page_size_bytes),
      type_(config.type), shard_(config.shard),
      stride_(geometry(device_->state(), config.type, config.size_bytes, config.page_size_bytes).stride),
      bytes_per_bank_(bytes_per_bank), allocated_(true) {}

Buffer::~Buffer() { deallocate(); }

void Buffer::deallocate() {
  if (!allocated_) return;
  auto& s = device_->state();
  (type_ == BufferType::DRAM ? *s.dram : *s.l1).free(address_);
  if (s.chip)
    s.chip->memory_map().remove(type_ == BufferType::DRAM ? sim::MemoryKind::Dram : sim::MemoryKind::L1, address_);
  allocated_ = false;
}

uint32_t Buffer::num_banks() const {
  const auto& a = device_->state().arch;
  return type_ == BufferType::DRAM ? a.dram_banks : a.core_count();
}

uint32_t Buffer::aligned_page_size() const { return stride_; }

Buffer::PageLocation Buffer::page_location(uint32_t page) const {
  if (!shard_) {
    const uint32_t banks = num_banks();
    return {page % banks, address_ + uint64_t(page / banks) * stride_};
  }
  uint32_t shard = 0, in_shard = 0;
  shard_position(*shard_, page, &shard, &in_shard);
  const uint32_t listed = uint32_t(shard_->banks.size());
  const uint64_t slot = shard / listed;
  return {shard_->banks[shard % listed], address_ + (slot * shard_->shard_volume() + in_shard) * stride_};
}

namespace {
template <class Copy>
void for_each_page(const Buffer& b, Copy&& copy) {
  sim::DeviceMemory& memory = b.device().state().chip->memory();
  const bool dram = b.type() == BufferType::DRAM;
  for (uint32_t p = 0; p < b.num_pages(); ++p) {
    const Buffer::PageLocation at = b.page_location(p);
    uint8_t* base = dram ? memory.dram(at.bank) : memory.l1(at.bank);
    copy(base + at.address, uint64_t(p) * b.page_size());
  }
}

} // namespace

namespace runtime {
void check_transfer(const Buffer& b, const void* host, uint64_t size_bytes, HostSide side, const char* call) {
  b.device().state().require_open(call);
  if (!b.is_allocated()) throw ValidationError(std::string(call) + ": the buffer has been deallocated");
  if (size_bytes != b.size())
    throw ValidationError(std::string(call) + ": " + std::to_string(size_bytes) + " bytes given for a buffer of " +
                          std::to_string(b.size()) + " bytes; expected exactly the buffer's size");
  if (std::string problem = base::host_range_problem(host, size_bytes); !problem.empty())
    throw ValidationError(std::string(call) + ": " + problem + "; expected the address of " +
                          std::to_string(size_bytes) + " bytes of host memory to " +
                          (side == HostSide::Source ? "write from" : "read into"));
}

void copy_to_device(const Buffer& b, const void* src) {
  const auto* in = static_cast<const uint8_t*>(src);
  const uint32_t page = b.page_size();
  for_each_page(b, [&](uint8_t* dev, uint64_t off) { base::bulk_copy(dev, in + off, page); });
  base::bulk_copy_done();
}

void copy_from_device(const Buffer& b, void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  const uint32_t page = b.page_size();
  for_each_page(b, [&](uint8_t* dev, uint64_t off) { base::bulk_copy(out + off, dev, page); });
  base::bulk_copy_done();
}
} // namespace runtime

void Buffer::write(const void* src, uint64_t size_bytes) {
  runtime::check_transfer(*this, src, size_bytes, runtime::HostSide::Source, "Buffer::write");
  runtime::copy_to_device(*this, src);
}

void Buffer::read(void* dst, uint64_t size_bytes) const {
  runtime::check_transfer(*this, dst, size_bytes, runtime::HostSide::Destination, "Buffer::read");
  runtime::copy_from_device(*this, dst);
}

} // namespace tessel
