// Buffer: an interleaved allocation in DRAM or L1.
//
// Page p of a buffer lives in bank p % banks at address() + (p / banks) *
// align_up(page_size, alignment); address() is the same in every bank. DRAM
// buffers use every DRAM bank; L1 buffers use one bank per worker core (bank
// b = logical core (b % grid_x, b / grid_x)).
//
// Ownership: shared_ptr; the allocation is freed when the last reference
// goes (or on deallocate()). A buffer keeps its device alive.
#pragma once

#include <cstdint>
#include <memory>

namespace tessel {

class Device;

enum class BufferType : uint8_t { DRAM, L1 };

struct BufferConfig {
  uint64_t size_bytes = 0;
  uint32_t page_size_bytes = 0; // the unit of interleaving; size must be a multiple
  BufferType type = BufferType::DRAM;
};

class Buffer {
public:
  static std::shared_ptr<Buffer> create(const std::shared_ptr<Device>& device, const BufferConfig& config);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint32_t address() const { return address_; }
  uint64_t size() const { return size_; }
  uint32_t page_size() const { return page_size_; }
  uint32_t num_pages() const { return uint32_t(size_ / page_size_); }
  BufferType type() const { return type_; }
  bool is_allocated() const { return allocated_; }
  uint32_t num_banks() const;
  uint32_t aligned_page_size() const;
  Device& device() const { return *device_; }

  void deallocate();

  // Host-side copies; size must equal size(), and src/dst must point to that
  // many bytes of host memory (a null or unmapped range is a ValidationError).
  void write(const void* src, uint64_t size_bytes);
  void read(void* dst, uint64_t size_bytes) const;

private:
  Buffer(std::shared_ptr<Device> device, const BufferConfig& config, uint32_t address);
  std::shared_ptr<Device> device_;
  uint32_t address_ = 0;
  uint64_t size_ = 0;
  uint32_t page_size_ = 0;
  BufferType type_ = BufferType::DRAM;
  bool allocated_ = false;
};

} // namespace tessel
