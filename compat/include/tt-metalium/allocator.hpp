// TT-Metalium's Allocator, as its programs use it: queries of a device's
// memory (IDevice::allocator(), MeshDevice::allocator()). Allocation itself
// goes through CreateBuffer / MeshBuffer::create.
//
// Banks: DRAM has one bank per channel; L1 one bank per worker core, bank b
// being logical core (b % grid_x, b / grid_x). Every bank of a type holds
// the same allocations, so per-bank figures are the same for all of them.
// BufferType::L1_SMALL, TRACE and SYSTEM_MEMORY have no banks here: queries
// of them throw tessel::ValidationError.
//
// Lifetime: owned by its device. Thread-safety: as the device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/hal_types.hpp"

namespace tessel {
class Device;
}

namespace tt::tt_metal {

struct Statistics {
  size_t total_allocatable_size_bytes = 0;
  size_t total_allocated_bytes = 0;
  size_t total_free_bytes = 0;
  size_t largest_free_block_bytes = 0;
  std::vector<uint32_t> largest_free_block_addrs; // not tracked: empty
};

class Allocator {
public:
  explicit Allocator(const tessel::Device& device) : device_(device) {}

  uint32_t get_num_banks(const BufferType& buffer_type) const;
  // The bytes a bank offers buffers.
  DeviceAddr get_bank_size(const BufferType& buffer_type) const;
  uint32_t get_alignment(BufferType buffer_type) const;
  // The lowest address buffers may use (L1: above the reserved area).
  DeviceAddr get_base_allocator_addr(const HalMemType& mem_type) const;
  uint32_t get_dram_channel_from_bank_id(uint32_t bank_id) const;
  CoreCoord get_logical_core_from_bank_id(uint32_t bank_id) const;
  // Banks start at their range's base: always 0.
  int32_t get_bank_offset(BufferType buffer_type, uint32_t bank_id) const;
  std::vector<uint32_t> get_bank_ids_from_dram_channel(uint32_t dram_channel) const;
  std::vector<uint32_t> get_bank_ids_from_logical_core(BufferType buffer_type, const CoreCoord& logical_core) const;
  size_t get_worker_l1_size() const;
  // Per bank: allocatable, allocated and free bytes, and the largest free range.
  Statistics get_statistics(const BufferType& buffer_type) const;
  std::optional<DeviceAddr> get_lowest_occupied_l1_address(uint32_t bank_id) const;

private:
  const tessel::Device& device_;
};

} // namespace tt::tt_metal
