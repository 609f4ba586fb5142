// What a Device owns: the simulated chip, the DRAM and L1 allocators and the
// kernel cache it builds with. Internal to the runtime layer.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <memory>
#include <string>

#include "jit/kernel_build.hpp"
#include "runtime/allocator.hpp"
#include "sim/chip.hpp"
#include "tessel/buffer.hpp"
#include "tessel/device.hpp"

namespace tessel::runtime {

// DRAM buffers start above the slot Metalium reserves at address 0 of every
// bank for its barrier word (one DRAM-aligned unit: 64 bytes on Blackhole, 32
// on Wormhole), where Metalium's allocator starts; so a forgotten address
// argument (0) is never a valid buffer either.
inline uint64_t dram_allocation_base(const sim::ArchSpec& arch) { return arch.dram_alignment(); }
inline constexpr uint32_t kMaxOpenDevices = 64;

// The kernel instance of (device lane, core, RISC): each gets its own copy of
// a kernel's mutable globals.
inline uint32_t kernel_instance_index(uint32_t lane, uint32_t core_index, uint32_t risc) {
  return (lane * sim::kMaxCores + core_index) * TESSEL_RISC_COUNT + risc;
}

// The checks of a host transfer to or from a buffer, reported under `call`:
// device open, buffer allocated, size exactly the buffer's, and the host
// memory a usable range (base/host_memory.hpp).
enum class HostSide : uint8_t { Source, Destination };
void check_transfer(const Buffer& buffer, const void* host, uint64_t size_bytes, HostSide side, const char* call);
// The copies themselves, after check_transfer: the buffer's whole size.
void copy_to_device(const Buffer& buffer, const void* src);
void copy_from_device(const Buffer& buffer, void* dst);

// Marks the calling thread as a card thread (the thread a persistent grid
// runs on): its own launches are the persistent grid's, never refused.
void mark_card_thread();

struct DeviceState {
  DeviceConfig config;
  sim::ArchSpec arch;
  std::unique_ptr<sim::Chip> chip;
  std::unique_ptr<RangeAllocator> dram;
  std::unique_ptr<RangeAllocator> l1;
  std::unique_ptr<jit::KernelCache> own_cache; // when config names a directory
  jit::KernelCache* cache = nullptr;
  uint64_t generation = 0; // unique among the devices of the process (Device::generation)
  // Among the devices open at once, this one's number (0..kMaxOpenDevices-1):
  // kernels with mutable globals get a loaded copy per (lane, core, RISC).
  uint32_t lane = 0;
  // The trace the device's queue is capturing (0: none). While it is set,
  // only program launches may be enqueued and no buffer may be allocated.
  uint32_t capturing_trace_id = 0;
  // A persistent grid running on the device's own card thread (a tessel.iron
  // design's, a dispatch session's), or none. A host launch may not run
  // beside it: enqueue_program calls release() (which returns once that grid
  // has ended) or, when the owner gave none, refuses naming the owner.
  struct PersistentGrid {
    std::string owner;
    std::function<void()> release;
    // Its thread could not be stopped (a GridTimeout) and may still run
    // kernel code over the chip: closing the device then leaves the chip and
    // the loaded kernels in place until the process exits.
    bool lost = false;
  };
  std::optional<PersistentGrid> persistent;
  ~DeviceState();

  bool open() const { return chip != nullptr; }
  void require_open(const char* call) const;
};

} // namespace tessel::runtime
