// Device memory: per-core L1 slots and DRAM banks.
//
// L1 layout in host memory (design §1.2): one 2 MiB-aligned slot per core,
// all below 4 GiB (MAP_32BIT), so a 32-bit L1 address that a kernel sees is a
// real pointer into its own core's L1:
//
//   slot base (2 MiB aligned, < 4 GiB)
//   +--------------------------------+  offset 0
//   | L1 bytes, read/write           |
//   +--------------------------------+  offset l1_size (1464 KiB)
//   | PROT_NONE to the slot's end    |  overrun faults
//   +--------------------------------+  offset 2 MiB
//
// Nothing is ever mapped in the low 2 MiB of the address space here, so an L1
// offset used as a pointer faults and is reported as such.
//
// DRAM banks are separate MAP_NORESERVE mappings: pages cost memory only when
// touched. Thread-safety: mappings are fixed for the object's lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessel::sim {

class DeviceMemory {
public:
  DeviceMemory(uint32_t core_count, uint32_t l1_size_bytes, uint32_t dram_banks, uint64_t dram_bank_size_bytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  uint8_t* l1(uint32_t core_index) const { return l1_base_ + size_t(core_index) * kSlotBytes; }
  uint8_t* dram(uint32_t bank) const { return dram_[bank]; }
  uint32_t l1_size_bytes() const { return l1_size_bytes_; }
  uint64_t dram_bank_size_bytes() const { return dram_bank_size_bytes_; }

  // Zero one core's L1 (drops its pages) and every DRAM bank.
  void clear_l1(uint32_t core_index);

  static constexpr size_t kSlotBytes = 2u * 1024u * 1024u;

private:
  uint8_t* reservation_ = nullptr;
  size_t reservation_bytes_ = 0;
  uint8_t* l1_base_ = nullptr;
  uint32_t core_count_ = 0;
  uint32_t l1_size_bytes_ = 0;
  std::vector<uint8_t*> dram_;
  uint64_t dram_bank_size_bytes_ = 0;
};

} // namespace tessel::sim
