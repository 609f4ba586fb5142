// Device memory: per-core L1 slots and DRAM banks.
//
// L1 layout in host memory (design §1.2): one 4 MiB stride per core, all
// below 4 GiB, so a 32-bit L1 address that a kernel sees is a real pointer
// into its own core's L1:
//
//   core base (4 MiB aligned, < 4 GiB)
//   +--------------------------------+  offset 0
//   | L1 bytes, read/write           |
//   +--------------------------------+  offset l1_size (1464 KiB)
//   | PROT_NONE                      |  an overrun of up to 2.5 MiB faults:
//   |   ... past the 2 MiB slot too  |  no pointer just past one core's L1
//   +--------------------------------+  offset 4 MiB = the next core's base
//
// Pointers normalise to L1 offsets with the 2 MiB slot mask (kernel_abi.h);
// a pointer into the guard half of a stride is no L1 address.
//
// A device's cores take one contiguous range, placed top down anywhere in
// [4 MiB, 4 GiB) that is free (MAP_32BIT would give only the 1 GiB window
// Linux keeps for it). Nothing is ever mapped in the low 2 MiB, so an L1
// offset used as a pointer faults and is reported as such.
//
// Every core's L1 is a range of one shared-memory file (memfd), mapped into
// its stride, so that the low L1 window (l1_window.hpp) can map a core's L1 a
// second time at its offsets.
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

  uint8_t* l1(uint32_t core_index) const { return l1_base_ + size_t(core_index) * kCoreStrideBytes; }
  // Whether `address` lies in some core's L1 stride of this device (guard included).
  bool in_l1_range(uintptr_t address) const {
    return address - reinterpret_cast<uintptr_t>(l1_base_) < size_t(core_count_) * kCoreStrideBytes;
  }
  uint8_t* dram(uint32_t bank) const { return dram_[bank]; }
  uint32_t l1_size_bytes() const { return l1_size_bytes_; }
  uint64_t dram_bank_size_bytes() const { return dram_bank_size_bytes_; }

  // The shared-memory file holding every core's L1 (-1 where the host has
  // none: then L1 is private memory), and where core `core_index`'s L1 starts in it.
  int l1_fd() const { return l1_fd_; }
  uint64_t l1_file_offset(uint32_t core_index) const { return uint64_t(core_index) * l1_file_stride_; }

  // DRAM banks take 4 KiB pages from now on instead of huge ones (only pages
  // not yet touched change): a chip of a large mesh that uses a few KiB of a
  // bank then costs 4 KiB, not 2 MiB, per bank (docs/multichip.md).
  void prefer_small_dram_pages();

  // Zero one core's L1 (drops its pages) and every DRAM bank.
  void clear_l1(uint32_t core_index);

  static constexpr size_t kSlotBytes = 2u * 1024u * 1024u; // the offset mask's unit (TESSEL_L1_SLOT_BYTES)
  static constexpr size_t kCoreStrideBytes = 2 * kSlotBytes;
  // How many devices of `core_count` cores fit below 4 GiB at most.
  static uint32_t max_devices(uint32_t core_count);

private:
  size_t l1_bytes_ = 0; // the reservation at l1_base_
  uint8_t* l1_base_ = nullptr;
  int l1_fd_ = -1;
  uint64_t l1_file_stride_ = 0; // the L1 size rounded up to whole pages
  uint32_t core_count_ = 0;
  uint32_t l1_size_bytes_ = 0;
  std::vector<uint8_t*> dram_;
  uint64_t dram_bank_size_bytes_ = 0;
};

} // namespace tessel::sim
