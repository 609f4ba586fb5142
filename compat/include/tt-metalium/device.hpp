// TT-Metalium's IDevice over a tessel::Device: one simulated chip and its
// command queue.
//
// CreateDevice(id) opens device 0 (the only one; GetNumAvailableDevices() is
// 1) with one command queue. What to simulate comes from the environment,
// since Metalium programs have no way to say it:
//   TESSEL_ARCH    blackhole (default) or wormhole_b0
//   TESSEL_GRID    a custom worker grid, e.g. 4x2 (default: the arch's full grid)
//   TESSEL_POLICY  deterministic (default), random:<seed>, parallel or parallel:<threads>
// and the kernel cache from TESSEL_CACHE_DIR as for any tessel program.
// l1_small_size, trace_region_size, the dispatch core config, L1 bank remap
// and worker L1 size are accepted and ignored: tessel reserves no L1 for
// them and keeps traces in host memory.
//
// Ownership: an IDevice* from CreateDevice is released by CloseDevice (or
// leaks, as in Metalium); a MeshDevice (mesh_device.hpp) is an IDevice
// owned by its shared_ptr. Buffers keep the simulated memory alive.
// Thread-safety: one host thread at a time per device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "hostdevcommon/common_values.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tt-metalium/allocator.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/data_types.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"

namespace tt::tt_metal {

using ChipId = int;
using chip_id_t = int;
using CommandQueue = tessel::CommandQueue;

// Where Metalium puts its dispatch cores. Accepted for signature
// compatibility (a DispatchCoreType converts to a DispatchCoreConfig, as in
// Metalium); tessel has no dispatch cores, so neither changes anything.
enum class DispatchCoreType : uint32_t { WORKER, ETH, COUNT };
enum class DispatchCoreAxis { ROW, COL, COUNT };

class DispatchCoreConfig {
public:
  DispatchCoreConfig() = default;
  DispatchCoreConfig(DispatchCoreType type) : type_(type) {}
  DispatchCoreConfig(DispatchCoreType type, DispatchCoreAxis axis) : type_(type), axis_(axis) {}
  DispatchCoreType get_core_type() const { return type_; }
  DispatchCoreAxis get_dispatch_core_axis() const { return axis_; }

private:
  DispatchCoreType type_ = DispatchCoreType::WORKER;
  DispatchCoreAxis axis_ = DispatchCoreAxis::ROW;
};

inline constexpr size_t DEFAULT_L1_SMALL_SIZE = 0;
inline constexpr size_t DEFAULT_TRACE_REGION_SIZE = 0;
inline constexpr size_t DEFAULT_WORKER_L1_SIZE = 0;

class IDevice;

// Opens the simulated device (see the top of this file). Throws
// tessel::ValidationError for a device_id other than 0 or num_hw_cqs other than 1.
IDevice* CreateDevice(ChipId device_id, uint8_t num_hw_cqs = 1, size_t l1_small_size = DEFAULT_L1_SMALL_SIZE,
                      size_t trace_region_size = DEFAULT_TRACE_REGION_SIZE,
                      const DispatchCoreConfig& dispatch_core_config = DispatchCoreConfig{},
                      const std::vector<uint32_t>& l1_bank_remap = {}, size_t worker_l1_size = DEFAULT_WORKER_L1_SIZE);
// Closes and deletes a device from CreateDevice; true on success. Throws
// tessel::ValidationError for any other IDevice* (a MeshDevice closes with close()).
bool CloseDevice(IDevice* device);
size_t GetNumAvailableDevices();
size_t GetNumPCIeDevices();

class IDevice {
public:
  // For the compat layer: the IDevice of an open tessel device.
  IDevice(ChipId id, std::shared_ptr<tessel::Device> device);
  virtual ~IDevice();
  IDevice(const IDevice&) = delete;
  IDevice& operator=(const IDevice&) = delete;

  ChipId id() const { return id_; }
  tt::ARCH arch() const;
  uint8_t num_hw_cqs() const { return 1; }

  // The worker grid: tessel has no harvested or storage-only cores, so all
  // of these are the same logical grid.
  CoreCoord grid_size() const { return device_->grid(); }
  CoreCoord logical_grid_size() const { return device_->grid(); }
  CoreCoord compute_with_storage_grid_size() const { return device_->grid(); }
  CoreCoord worker_core_from_logical_core(const CoreCoord& logical) const {
    return device_->worker_core_from_logical_core(logical);
  }
  // Worker cores only; other core types throw tessel::ValidationError.
  CoreCoord virtual_core_from_logical_core(const CoreCoord& logical, const CoreType& core_type) const;

  uint32_t l1_size_per_core() const { return device_->l1_size(); }
  uint32_t num_dram_channels() const { return device_->dram_banks(); }
  uint64_t dram_size_per_channel() const { return device_->dram_bank_size(); }
  uint32_t get_clock_rate_mhz() const { return device_->clock_mhz(); }

  // The one command queue (cq_id 0 or none; others throw).
  CommandQueue& command_queue(std::optional<uint8_t> cq_id = std::nullopt);

  bool is_initialized() const { return device_->is_open(); }
  bool close();

  // Memory queries (allocator.hpp); the allocator lives as long as the device.
  const std::unique_ptr<Allocator>& allocator() const;

  tessel::Device& native() const { return *device_; }
  const std::shared_ptr<tessel::Device>& native_ptr() const { return device_; }

protected:
  // The device configuration read from TESSEL_ARCH, TESSEL_GRID and
  // TESSEL_POLICY; throws tessel::ValidationError naming a malformed one.
  static tessel::DeviceConfig config_from_environment();
  // Device 0 with one command queue: throws tessel::ValidationError otherwise.
  static void check_device_request(const char* call, ChipId id, size_t num_command_queues);

private:
  friend IDevice* CreateDevice(ChipId, uint8_t, size_t, size_t, const DispatchCoreConfig&, const std::vector<uint32_t>&,
                               size_t);
  friend bool CloseDevice(IDevice*);

  ChipId id_;
  std::shared_ptr<tessel::Device> device_;
  std::unique_ptr<Allocator> allocator_;
  bool from_create_device_ = false; // CloseDevice deletes only these
};

} // namespace tt::tt_metal
