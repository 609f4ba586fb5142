// TT-Metalium's MeshEvent: an event recorded on a mesh command queue for a
// range of its chips, one tessel::Event per chip (include/tessel/event.hpp
// has their rules). Recorded events are complete once the record returns.
//
// Ownership: a value; copies share the chips' events. The MeshDevice must
// outlive its use in EnqueueWaitForEvent; EventSynchronize and EventQuery
// work after the device is gone (a recorded event stays completed).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tessel/event.hpp"
#include "tt-metalium/mesh_coord.hpp"

namespace tt::tt_metal::distributed {

class MeshDevice;

class MeshEvent {
public:
  // For the compat layer: `chip_events` holds one event per coordinate of
  // `device_range`, in its row-major order.
  MeshEvent(uint32_t id, MeshDevice* device, uint32_t mesh_cq_id, const MeshCoordinateRange& device_range,
            std::vector<std::shared_ptr<tessel::Event>> chip_events)
      : id_(id), device_(device), mesh_cq_id_(mesh_cq_id), device_range_(device_range),
        chip_events_(std::move(chip_events)) {}

  // 1, 2, ... in record order on its mesh command queue.
  uint32_t id() const { return id_; }
  MeshDevice* device() const { return device_; }
  uint32_t mesh_cq_id() const { return mesh_cq_id_; }
  const MeshCoordinateRange& device_range() const { return device_range_; }
  MeshCoordinateRangeSet device_range_set() const { return MeshCoordinateRangeSet(device_range_); }

  const std::vector<std::shared_ptr<tessel::Event>>& chip_events() const { return chip_events_; }

private:
  uint32_t id_;
  MeshDevice* device_;
  uint32_t mesh_cq_id_;
  MeshCoordinateRange device_range_;
  std::vector<std::shared_ptr<tessel::Event>> chip_events_;
};

} // namespace tt::tt_metal::distributed
