// What a command queue publishes to its events. Internal to the runtime layer.
#pragma once

#include <atomic>
#include <cstdint>

namespace tessel::runtime {

// Shared by a queue and the events it recorded (which may outlive it). An
// event with id i has completed once completed_event_id >= i: records
// complete in order.
struct QueueProgress {
  std::atomic<uint32_t> completed_event_id{0};
};

} // namespace tessel::runtime
