// TT-Metalium's GlobalSemaphore: a 32-bit semaphore at one L1 address on
// every core of a core set on every chip of a mesh (or on one device), that
// kernels on other chips reach with fabric atomic increments. tessel keeps it
// in one L1 buffer per chip with a page on every core, so the device-memory
// checker sees it as allocated; all chips' buffers sit at one address.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tessel/buffer.hpp"
#include "tessel/core_coord.hpp"
#include "tt-metalium/buffer_types.hpp"

namespace tt::tt_metal {

class IDevice;
namespace distributed {
class MeshDevice;
}

class GlobalSemaphore {
public:
  IDevice* device() const { return device_; }
  uint64_t address() const { return address_; }
  // Sets the semaphore to `reset_value` on every core of its set, on every chip.
  void reset_semaphore_value(uint32_t reset_value) const;

private:
  friend struct GlobalSemaphoreFactory; // compat/src/fabric.cpp
  IDevice* device_ = nullptr;
  uint64_t address_ = 0;
  tessel::CoreRangeSet cores_;
  std::vector<std::shared_ptr<tessel::Buffer>> buffers_; // one per chip
};

// Throws tessel::ValidationError for a buffer type other than L1 (or
// L1_SMALL) and for cores outside the grid.
GlobalSemaphore CreateGlobalSemaphore(distributed::MeshDevice& mesh_device, tessel::CoreRangeSet cores,
                                      uint32_t initial_value, BufferType buffer_type = BufferType::L1);
GlobalSemaphore CreateGlobalSemaphore(IDevice* device, const tessel::CoreRangeSet& cores, uint32_t initial_value,
                                      BufferType buffer_type = BufferType::L1);

} // namespace tt::tt_metal
