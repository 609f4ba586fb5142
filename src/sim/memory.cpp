#include "sim/memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tessel/error.hpp"

namespace tessel::sim {

namespace {

constexpr uintptr_t kLowest = 4u << 20; // leaves the unmapped low 2 MiB and a margin
constexpr uintptr_t k4GiB = uintptr_t(1) << 32;

[[noreturn]] void throw_map_error(const char* what, size_t bytes) {
  throw OutOfMemoryError(std::string("cannot reserve ") + what + " (" + std::to_string(bytes) +
                         " bytes of address space): " + std::strerror(errno));
}

// The mapped ranges of this process below 4 GiB, in address order.
std::vector<std::pair<uintptr_t, uintptr_t>> low_mappings() {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return ranges;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo < k4GiB) ranges.emplace_back(uintptr_t(lo), uintptr_t(hi));
    // A line longer than the buffer continues on the next read: skip the rest of it.
    while (!std::strchr(line, '\n') && std::fgets(line, sizeof line, maps)) {
    }
  }
  std::fclose(maps);
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

// Reserves `bytes` (a multiple of `align`) of PROT_NONE address space at an
// `align`-aligned address in [kLowest, 4 GiB), highest free place first.
// Returns null when no free range is large enough.
uint8_t* reserve_below_4gib(size_t bytes, size_t align) {
  for (int attempt = 0; attempt < 8; ++attempt) { // another thread may map into a gap meanwhile
    const auto mapped = low_mappings();
    uintptr_t gap_hi = k4GiB;
    bool raced = false;
    for (size_t i = mapped.size() + 1; i-- > 0;) {
      const uintptr_t gap_lo = i == 0 ? kLowest : std::max(kLowest, mapped[i - 1].second);
      if (gap_hi > gap_lo && gap_hi - gap_lo >= bytes) {
        const uintptr_t at = (gap_hi - bytes) & ~uintptr_t(align - 1);
        if (at >= gap_lo) {
          void* p = mmap(reinterpret_cast<void*>(at), bytes, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
          if (p == reinterpret_cast<void*>(at)) return static_cast<uint8_t*>(p);
          if (p != MAP_FAILED) munmap(p, bytes); // a kernel that took the address as a hint
          raced = true;
          break;
        }
      }
      if (i > 0) gap_hi = std::min(gap_hi, mapped[i - 1].first);
      if (gap_hi <= kLowest) break;
    }
    if (!raced) return nullptr;
  }
  return nullptr;
}

// Address space below 4 GiB not mapped now, in MiB (for the error message).
size_t free_low_mib() {
  size_t used = 0;
  for (auto [lo, hi] : low_mappings()) {
    lo = std::max(lo, kLowest);
    hi = std::min(hi, k4GiB);
    if (hi > lo) used += hi - lo;
  }
  return (k4GiB - kLowest - used) >> 20;
}

} // namespace

uint32_t DeviceMemory::max_devices(uint32_t core_count) {
  return uint32_t((k4GiB - kLowest) / (size_t(core_count) * kCoreStrideBytes));
}

DeviceMemory::DeviceMemory(uint32_t core_count, uint32_t l1_size_bytes, uint32_t dram_banks,
                           uint64_t dram_bank_size_bytes)
    : core_count_(core_count), l1_size_bytes_(l1_size_bytes), dram_bank_size_bytes_(dram_bank_size_bytes) {
  l1_bytes_ = size_t(core_count) * kCoreStrideBytes;
  l1_base_ = reserve_below_4gib(l1_bytes_, kCoreStrideBytes);
  if (!l1_base_)
    throw OutOfMemoryError("cannot reserve L1 for another device of " + std::to_string(core_count) +
                           " cores: kernels use L1 addresses "
                           "as 32-bit pointers, so every core's L1 lives below 4 GiB of the address space, " +
                           std::to_string(kCoreStrideBytes >> 20) + " MiB per core with its guard (" +
                           std::to_string(l1_bytes_ >> 20) + " MiB for this device); at most " +
                           std::to_string(max_devices(core_count)) + " devices of " + std::to_string(core_count) +
                           " cores fit in one process, and " + std::to_string(free_low_mib()) +
                           " MiB below 4 GiB are free now; close a device first, or open smaller grids");
  // Each core's L1 is a range of one shared-memory file, so the low L1 window
  // (l1_window.hpp) can map it a second time; without memfd, private memory.
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  l1_file_stride_ = (uint64_t(l1_size_bytes) + page - 1) / page * page;
  l1_fd_ = memfd_create("tessel-l1", MFD_CLOEXEC);
  if (l1_fd_ >= 0 && ftruncate(l1_fd_, off_t(core_count * l1_file_stride_)) != 0) {
    close(l1_fd_);
    l1_fd_ = -1;
  }
  for (uint32_t c = 0; c < core_count; ++c) {
    const bool mapped = l1_fd_ >= 0 ? mmap(l1(c), l1_size_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, l1_fd_,
                                           off_t(l1_file_offset(c))) != MAP_FAILED
                                    : mprotect(l1(c), l1_size_bytes, PROT_READ | PROT_WRITE) == 0;
    if (!mapped) {
      const int error = errno;
      munmap(l1_base_, l1_bytes_);
      if (l1_fd_ >= 0) close(l1_fd_);
      errno = error;
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
      munmap(l1_base_, l1_bytes_);
      if (l1_fd_ >= 0) close(l1_fd_);
      throw_map_error("a DRAM bank", dram_bank_size_bytes);
    }
    // Tiles interleave over the banks page by page: with 4 KiB pages nearly
    // every NoC transfer is a TLB miss. Huge pages where the host allows.
    madvise(d, dram_bank_size_bytes, MADV_HUGEPAGE);
    dram_.push_back(static_cast<uint8_t*>(d));
  }
}

void DeviceMemory::prefer_small_dram_pages() {
  for (uint8_t* d : dram_)
    madvise(d, dram_bank_size_bytes_, MADV_NOHUGEPAGE);
}

DeviceMemory::~DeviceMemory() {
  for (uint8_t* m : dram_)
    munmap(m, dram_bank_size_bytes_);
  if (l1_base_) munmap(l1_base_, l1_bytes_);
  if (l1_fd_ >= 0) close(l1_fd_);
}

void DeviceMemory::clear_l1(uint32_t core_index) {
  // Punching the range out of the file frees its pages and reads back zeros
  // through every mapping; MADV_DONTNEED does that for private memory only.
  if (l1_fd_ >= 0 && fallocate(l1_fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(l1_file_offset(core_index)),
                               off_t(l1_size_bytes_)) == 0)
    return;
  if (l1_fd_ >= 0)
    std::memset(l1(core_index), 0, l1_size_bytes_);
  else
    madvise(l1(core_index), l1_size_bytes_, MADV_DONTNEED);
}

} // namespace tessel::sim
