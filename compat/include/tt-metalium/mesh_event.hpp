// TT-Metalium's MeshEvent: an event recorded on a mesh command queue (a
// tessel::Event; see include/tessel/event.hpp for its rules).
#pragma once

#include <cstdint>
#include <memory>

#include "tessel/event.hpp"
#include "tt-metalium/mesh_coord.hpp"

namespace tt::tt_metal::distributed {

class MeshDevice;

class MeshEvent {
public:
  MeshEvent(std::shared_ptr<tessel::Event> event, MeshDevice* device, MeshCoordinateRange device_range)
      : event_(std::move(event)), device_(device), device_range_(device_range) {}

  uint32_t id() const { return event_->id(); }
  MeshDevice* device() const { return device_; }
  uint32_t mesh_cq_id() const { return 0; }
  const MeshCoordinateRange& device_range() const { return device_range_; }

  tessel::Event& native() const { return *event_; }
  const std::shared_ptr<tessel::Event>& native_ptr() const { return event_; }

private:
  std::shared_ptr<tessel::Event> event_;
  MeshDevice* device_;
  MeshCoordinateRange device_range_;
};

} // namespace tt::tt_metal::distributed
