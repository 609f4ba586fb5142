// TT-Metalium's Buffer over a tessel::Buffer: an interleaved DRAM or L1
// allocation whose page p lives in bank p % banks at address() + (p / banks)
// * aligned_page_size() (include/tessel/buffer.hpp has the layout).
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

#include "tessel/buffer.hpp"
#include "tt-metalium/buffer_types.hpp"

namespace tt::tt_metal {

class IDevice;

struct InterleavedBufferConfig {
  IDevice* device = nullptr;
  DeviceAddr size = 0;
  DeviceAddr page_size = 0; // the unit of interleaving; size must be a multiple
  BufferType buffer_type = BufferType::DRAM;
  TensorMemoryLayout buffer_layout = TensorMemoryLayout::INTERLEAVED;
};

class Buffer {
public:
  // For the compat layer: wraps an allocation made on `device`.
  Buffer(std::shared_ptr<tessel::Buffer> buffer, IDevice* device);
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
  TensorMemoryLayout buffer_layout() const { return TensorMemoryLayout::INTERLEAVED; }
  bool is_l1() const { return buffer_type() == BufferType::L1; }
  bool is_dram() const { return buffer_type() == BufferType::DRAM; }
  bool is_allocated() const { return buffer_->is_allocated(); }
  IDevice* device() const { return device_; }

  void deallocate() { buffer_->deallocate(); }

  tessel::Buffer& native() const { return *buffer_; }

private:
  std::shared_ptr<tessel::Buffer> buffer_;
  IDevice* device_;
};

} // namespace tt::tt_metal
