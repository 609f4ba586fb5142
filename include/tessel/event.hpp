// Event: a point in a command queue's stream of commands.
//
// Recording an event on a queue (CommandQueue::enqueue_record_event) marks the
// point after every command enqueued before it; the event completes when all
// of those commands have completed. A queue can be made to wait for an event
// (enqueue_wait_for_event: later commands start after it completes), the host
// can wait for it (synchronize / event_synchronize) or ask whether it has
// completed (query / event_query / completed()).
//
// Today every command completes before its enqueue call returns, so an event
// is complete as soon as enqueue_record_event returns and waiting never
// blocks. The rules below are the ones an asynchronous queue keeps; code that
// follows them stays correct when commands run behind the host.
//
// Rules:
//  - An event belongs to the device whose queue first records it; recording
//    it on another device's queue is an error (create another event).
//  - Recording an event again (on its device) moves it to the new point: its
//    id changes, and later waits and queries refer to the new point.
//  - Waiting for, synchronizing on or querying an event that was never
//    recorded is an error, as is waiting for it on another device's queue.
//
// Ownership: shared_ptr (`std::make_shared<Event>()`); the queue does not keep
// events alive, and an event outlives its device safely (it stays completed).
// Thread-safety: completed() may be called from any thread; recording and
// waiting follow the device's rule (one host thread at a time).
#pragma once

#include <cstdint>
#include <memory>

namespace tessel {

class Device;
class CommandQueue;
namespace runtime {
struct QueueProgress;
}

class Event {
public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // The number its most recent record got on its queue (1, 2, ... in record
  // order on that queue); 0 before the first record.
  uint32_t id() const { return id_; }
  bool is_recorded() const { return id_ != 0; }
  // The device it belongs to; null before the first record or once the
  // device has been destroyed.
  std::shared_ptr<Device> device() const { return device_.lock(); }
  // True once every command enqueued before its most recent record has
  // completed; false before the first record.
  bool completed() const;

private:
  friend class CommandQueue;
  uint32_t id_ = 0;
  uint64_t device_generation_ = 0; // the recording device's (unique among devices ever opened)
  std::weak_ptr<Device> device_;
  std::shared_ptr<const runtime::QueueProgress> progress_; // of the queue that recorded it
};

// Block the host until `event` has completed, on whichever device recorded it
// (the CommandQueue::synchronize of that device's queue). Throws
// ValidationError if the event was never recorded.
void event_synchronize(const Event& event);
// Whether `event` has completed (CommandQueue::query on the recording
// device's queue). Throws ValidationError if the event was never recorded.
bool event_query(const Event& event);

} // namespace tessel
