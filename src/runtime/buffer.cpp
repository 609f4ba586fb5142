#include "tessel/buffer.hpp"

#include "base/host_memory.hpp"

#include <cstring>

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
  g.alignment = type == BufferType::DRAM ? s.arch.dram_read_alignment : s.arch.l1_alignment;
  g.stride = uint32_t(align_up(page, g.alignment));
  uint64_t pages = size / page;
  g.bytes_per_bank = ((pages + g.banks - 1) / g.banks) * g.stride;
  return g;
}

const char* type_name(BufferType t) { return t == BufferType::DRAM ? "DRAM" : "L1"; }
} // namespace

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
  runtime::RangeAllocator& alloc = config.type == BufferType::DRAM ? *s.dram : *s.l1;
  auto address = alloc.allocate(g.bytes_per_bank, g.alignment, config.type == BufferType::L1);
  if (!address)
    throw OutOfMemoryError("Buffer::create: out of " + std::string(type_name(config.type)) +
                           " memory: " + std::to_string(config.size_bytes) + " bytes need " +
                           std::to_string(g.bytes_per_bank) + " bytes in each of " + std::to_string(g.banks) +
                           " banks, but the largest free range is " + std::to_string(alloc.largest_free()) + " bytes");
  s.chip->memory_map().add(config.type == BufferType::DRAM ? sim::MemoryKind::Dram : sim::MemoryKind::L1, *address,
                           config.size_bytes, config.page_size_bytes, g.stride, g.banks);
  return std::shared_ptr<Buffer>(new Buffer(device, config, uint32_t(*address)));
}

Buffer::Buffer(std::shared_ptr<Device> device, const BufferConfig& config, uint32_t address)
    : device_(std::move(device)), address_(address), size_(config.size_bytes), page_size_(config.page_size_bytes),
      type_(config.type), allocated_(true) {}

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

uint32_t Buffer::aligned_page_size() const { return geometry(device_->state(), type_, size_, page_size_).stride; }

namespace {
template <class Copy>
void for_each_page(runtime::DeviceState& s, BufferType type, uint32_t address, uint64_t size, uint32_t page,
                   Copy&& copy) {
  Geometry g = geometry(s, type, size, page);
  uint32_t pages = uint32_t(size / page);
  for (uint32_t p = 0; p < pages; ++p) {
    uint32_t bank = p % g.banks;
    uint64_t at = address + uint64_t(p / g.banks) * g.stride;
    uint8_t* base = type == BufferType::DRAM ? s.chip->memory().dram(bank) : s.chip->memory().l1(bank);
    copy(base + at, uint64_t(p) * page);
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
  for_each_page(b.device().state(), b.type(), b.address(), b.size(), page,
                [&](uint8_t* dev, uint64_t off) { std::memcpy(dev, in + off, page); });
}

void copy_from_device(const Buffer& b, void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  const uint32_t page = b.page_size();
  for_each_page(b.device().state(), b.type(), b.address(), b.size(), page,
                [&](uint8_t* dev, uint64_t off) { std::memcpy(out + off, dev, page); });
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
