// What a Device owns: the simulated chip, the DRAM and L1 allocators and the
// kernel cache it builds with. Internal to the runtime layer.
#pragma once

#include <memory>
#include <string>

#include "jit/kernel_build.hpp"
#include "runtime/allocator.hpp"
#include "sim/chip.hpp"
#include "tessel/device.hpp"

namespace tessel::runtime {

// DRAM addresses start above zero so a forgotten address argument (0) is
// never a valid buffer.
inline constexpr uint64_t kDramAllocationBase = 0x10000;

struct DeviceState {
  DeviceConfig config;
  sim::ArchSpec arch;
  std::unique_ptr<sim::Chip> chip;
  std::unique_ptr<RangeAllocator> dram;
  std::unique_ptr<RangeAllocator> l1;
  std::unique_ptr<jit::KernelCache> own_cache; // when config names a directory
  jit::KernelCache* cache = nullptr;
  uint64_t generation = 0; // distinguishes devices for program plans

  bool open() const { return chip != nullptr; }
  void require_open(const char* call) const;
};

} // namespace tessel::runtime
