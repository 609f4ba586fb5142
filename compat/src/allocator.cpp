// Metalium's Allocator queries over a tessel device's memory.
#include "tt-metalium/allocator.hpp"

#include <string>

#include "tessel/device.hpp"
#include "tessel/error.hpp"

namespace tt::tt_metal {

namespace {

tessel::BufferType native_type(BufferType type, const char* call) {
  if (type == BufferType::DRAM) return tessel::BufferType::DRAM;
  if (type == BufferType::L1) return tessel::BufferType::L1;
  throw tessel::ValidationError(std::string("Allocator::") + call +
                                ": only BufferType::DRAM and BufferType::L1 have banks in tessel");
}

void check_bank(uint32_t bank_id, uint32_t banks, const char* kind, const char* call) {
  if (bank_id >= banks) {
    const std::string message = std::string("Allocator::") + call + ": " + kind + " bank " + std::to_string(bank_id) +
                                " does not exist: expected a bank below " + std::to_string(banks);
    throw tessel::ValidationError(message);
  }
}

} // namespace

uint32_t Allocator::get_num_banks(const BufferType& buffer_type) const {
  return native_type(buffer_type, "get_num_banks") == tessel::BufferType::DRAM ? device_.dram_banks()
                                                                               : device_.grid().x * device_.grid().y;
}

DeviceAddr Allocator::get_bank_size(const BufferType& buffer_type) const {
  const auto s = device_.memory_statistics(native_type(buffer_type, "get_bank_size"));
  return s.end - s.begin;
}

uint32_t Allocator::get_alignment(BufferType buffer_type) const {
  return native_type(buffer_type, "get_alignment") == tessel::BufferType::DRAM ? device_.dram_alignment()
                                                                               : device_.l1_alignment();
}

DeviceAddr Allocator::get_base_allocator_addr(const HalMemType& mem_type) const {
  if (mem_type == HalMemType::HOST)
    throw tessel::ValidationError("Allocator::get_base_allocator_addr: HalMemType::HOST has no device allocator; "
                                  "expected L1 or DRAM");
  return device_.memory_statistics(mem_type == HalMemType::DRAM ? tessel::BufferType::DRAM : tessel::BufferType::L1)
      .begin;
}

uint32_t Allocator::get_dram_channel_from_bank_id(uint32_t bank_id) const {
  check_bank(bank_id, device_.dram_banks(), "DRAM", "get_dram_channel_from_bank_id");
  return bank_id;
}

CoreCoord Allocator::get_logical_core_from_bank_id(uint32_t bank_id) const {
  const CoreCoord grid = device_.grid();
  check_bank(bank_id, grid.x * grid.y, "L1", "get_logical_core_from_bank_id");
  return {bank_id % grid.x, bank_id / grid.x};
}

int32_t Allocator::get_bank_offset(BufferType buffer_type, uint32_t bank_id) const {
  check_bank(bank_id, get_num_banks(buffer_type), "the", "get_bank_offset");
  return 0;
}

std::vector<uint32_t> Allocator::get_bank_ids_from_dram_channel(uint32_t dram_channel) const {
  check_bank(dram_channel, device_.dram_banks(), "DRAM", "get_bank_ids_from_dram_channel");
  return {dram_channel};
}

std::vector<uint32_t> Allocator::get_bank_ids_from_logical_core(BufferType buffer_type,
                                                                const CoreCoord& logical_core) const {
  native_type(buffer_type, "get_bank_ids_from_logical_core");
  const CoreCoord grid = device_.grid();
  if (buffer_type != BufferType::L1 || logical_core.x >= grid.x || logical_core.y >= grid.y) {
    const std::string message = "Allocator::get_bank_ids_from_logical_core: " + logical_core.str() +
                                " has no bank of that type: expected BufferType::L1 and a core of the " +
                                std::to_string(grid.x) + "x" + std::to_string(grid.y) + " worker grid";
    throw tessel::ValidationError(message);
  }
  return {logical_core.y * grid.x + logical_core.x};
}

size_t Allocator::get_worker_l1_size() const { return device_.l1_size(); }

Statistics Allocator::get_statistics(const BufferType& buffer_type) const {
  const auto s = device_.memory_statistics(native_type(buffer_type, "get_statistics"));
  Statistics out;
  out.total_allocatable_size_bytes = s.end - s.begin;
  out.total_allocated_bytes = s.allocated_bytes;
  out.total_free_bytes = out.total_allocatable_size_bytes - s.allocated_bytes;
  out.largest_free_block_bytes = s.largest_free_bytes;
  return out;
}

std::optional<DeviceAddr> Allocator::get_lowest_occupied_l1_address(uint32_t bank_id) const {
  check_bank(bank_id, get_num_banks(BufferType::L1), "L1", "get_lowest_occupied_l1_address");
  const auto s = device_.memory_statistics(tessel::BufferType::L1);
  if (s.lowest_allocated >= s.end) return std::nullopt;
  return s.lowest_allocated;
}

} // namespace tt::tt_metal
