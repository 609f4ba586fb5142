#include "sim/memory.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tessel/error.hpp"

namespace tessel::sim {

namespace {
[[noreturn]] void throw_map_error(const char* what, size_t bytes) {
  throw OutOfMemoryError(std::string("cannot reserve ") + what + " (" + std::to_string(bytes) +
                         " bytes of address space): " + std::strerror(errno));
}
} // namespace

DeviceMemory::DeviceMemory(uint32_t core_count, uint32_t l1_size_bytes, uint32_t dram_banks,
                           uint64_t dram_bank_size_bytes)
    : core_count_(core_count), l1_size_bytes_(l1_size_bytes), dram_bank_size_bytes_(dram_bank_size_bytes) {
  // One spare slot so the base can be rounded up to a slot boundary.
  reservation_bytes_ = (size_t(core_count) + 1) * kSlotBytes;
  void* p =
      mmap(nullptr, reservation_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_32BIT, -1, 0);
  if (p == MAP_FAILED) throw_map_error("L1 below 4 GiB", reservation_bytes_);
  reservation_ = static_cast<uint8_t*>(p);
  uintptr_t base = (reinterpret_cast<uintptr_t>(p) + kSlotBytes - 1) & ~uintptr_t(kSlotBytes - 1);
  // MAP_32BIT places mappings in the low 2 GiB but above the first 2 MiB on
  // every kernel we run on; check rather than assume.
  if (base < kSlotBytes || base + size_t(core_count) * kSlotBytes > (uintptr_t(1) << 32)) {
    munmap(reservation_, reservation_bytes_);
    throw OutOfMemoryError("cannot place L1 between 2 MiB and 4 GiB of the address space");
  }
  l1_base_ = reinterpret_cast<uint8_t*>(base);
  for (uint32_t c = 0; c < core_count; ++c) {
    if (mprotect(l1(c), l1_size_bytes, PROT_READ | PROT_WRITE) != 0) {
      munmap(reservation_, reservation_bytes_);
      throw_map_error("L1", l1_size_bytes);
    }
  }
  dram_.reserve(dram_banks);
  for (uint32_t b = 0; b < dram_banks; ++b) {
    void* d =
        mmap(nullptr, dram_bank_size_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (d == MAP_FAILED) {
      for (uint8_t* m : dram_)
        munmap(m, dram_bank_size_bytes_);
      munmap(reservation_, reservation_bytes_);
      throw_map_error("a DRAM bank", dram_bank_size_bytes);
    }
    // Tiles interleave over the banks page by page: with 4 KiB pages nearly
    // every NoC transfer is a TLB miss. Huge pages where the host allows.
    madvise(d, dram_bank_size_bytes, MADV_HUGEPAGE);
    dram_.push_back(static_cast<uint8_t*>(d));
  }
}

DeviceMemory::~DeviceMemory() {
  for (uint8_t* m : dram_)
    munmap(m, dram_bank_size_bytes_);
  if (reservation_) munmap(reservation_, reservation_bytes_);
}

void DeviceMemory::clear_l1(uint32_t core_index) {
  // MADV_DONTNEED on private anonymous memory gives zero pages back.
  madvise(l1(core_index), l1_size_bytes_, MADV_DONTNEED);
}

} // namespace tessel::sim
