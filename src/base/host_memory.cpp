#include "base/host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace tessel::base {

namespace {
// Below Linux's vm.mmap_min_addr default nothing can be mapped.
constexpr uintptr_t kLowestMappable = 0x10000;

std::string hex(uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%zx", size_t(v));
  return buf;
}
} // namespace

std::string host_range_problem(const void* data, uint64_t size_bytes) {
  const auto at = reinterpret_cast<uintptr_t>(data);
  if (size_bytes == 0) return {};
  if (at == 0) return "the host pointer is null";
  if (at < kLowestMappable)
    return "the host pointer " + hex(at) + " is not an address (nothing is mapped below 64 KiB)";
  if (size_bytes - 1 > UINTPTR_MAX - at)
    return "the host range at " + hex(at) + " of " + std::to_string(size_bytes) + " bytes wraps past the address space";
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t first = at & ~(page - 1), end = at + (size_bytes - 1) + 1;
  constexpr uintptr_t kPagesPerCall = 4096;
  unsigned char residency[kPagesPerCall];
  for (uintptr_t p = first; p < end; p += kPagesPerCall * page) {
    const uintptr_t length = std::min<uintptr_t>(kPagesPerCall * page, end - p);
    if (mincore(reinterpret_cast<void*>(p), length, residency) != 0 && errno == ENOMEM)
      return "the host range [" + hex(at) + ", " + hex(end) + ") is not mapped memory (from " + hex(p) + ")";
  }
  return {};
}

} // namespace tessel::base
