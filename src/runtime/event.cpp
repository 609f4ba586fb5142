// Events (event.hpp) and CommandQueue's event calls.
//
// Completion protocol: a queue numbers its records 1, 2, ... and publishes,
// in QueueProgress::completed_event_id, the highest record whose preceding
// commands have all completed (release store; Event::completed() loads with
// acquire). Records complete in order, so event i has completed iff
// completed_event_id >= i.
//
// Every command completes before its enqueue call returns, so a record is
// published as it is enqueued, a wait has nothing to wait for, and
// synchronize returns at once. A queue that runs commands behind the host
// publishes from the thread that completes them; the calls keep their
// checks and meaning.
#include "tessel/event.hpp"

#include <stdexcept>
#include <string>

#include "runtime/device_state.hpp"
#include "runtime/event_state.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"

namespace tessel {

bool Event::completed() const {
  return progress_ && progress_->completed_event_id.load(std::memory_order_acquire) >= id_;
}

namespace {
void check_not_null(const std::shared_ptr<Event>& event, const char* call) {
  if (!event)
    throw ValidationError(std::string(call) + ": the event is null; expected one made with std::make_shared<Event>()");
}

void check_recorded(const Event& event, const char* call) {
  if (!event.is_recorded())
    throw ValidationError(std::string(call) +
                          ": the event has never been recorded; record it first with enqueue_record_event");
}
} // namespace

void CommandQueue::check_recorded_here(const Event& event, const char* call) const {
  check_recorded(event, call);
  if (event.device_generation_ != device_.state().generation)
    throw ValidationError(std::string(call) + ": event " + std::to_string(event.id()) +
                          " was recorded on another device's queue; expected an event recorded on this device");
}

void CommandQueue::enqueue_record_event(const std::shared_ptr<Event>& event) {
  const char* call = "enqueue_record_event";
  runtime::DeviceState& ds = device_.state();
  ds.require_open(call);
  reject_during_capture(call);
  check_not_null(event, call);
  if (event->is_recorded() && event->device_generation_ != ds.generation)
    throw ValidationError(std::string(call) + ": event " + std::to_string(event->id()) +
                          " belongs to another device (the one that first recorded it); an event stays with its "
                          "device, so make a new Event for this queue");
  event->id_ = ++last_event_id_;
  event->device_generation_ = ds.generation;
  event->device_ = device_.weak_from_this();
  event->progress_ = progress_;
  // Every command enqueued before this record has completed already.
  progress_->completed_event_id.store(event->id_, std::memory_order_release);
}

void CommandQueue::enqueue_wait_for_event(const std::shared_ptr<Event>& event) {
  const char* call = "enqueue_wait_for_event";
  device_.state().require_open(call);
  reject_during_capture(call);
  check_not_null(event, call);
  check_recorded_here(*event, call);
  // The event was recorded on this in-order queue, whose commands have all
  // completed: later commands need not wait.
}

void CommandQueue::synchronize(const Event& event) {
  check_recorded_here(event, "synchronize");
  if (!event.completed())
    throw std::logic_error("synchronize: event " + std::to_string(event.id()) +
                           " is recorded but not complete on a queue that completes every command as it is enqueued");
}

bool CommandQueue::query(const Event& event) {
  check_recorded_here(event, "query");
  return event.completed();
}

void event_synchronize(const Event& event) {
  check_recorded(event, "event_synchronize");
  // A destroyed device completed all its work first.
  if (std::shared_ptr<Device> device = event.device()) device->command_queue().synchronize(event);
}

bool event_query(const Event& event) {
  check_recorded(event, "event_query");
  if (std::shared_ptr<Device> device = event.device()) return device->command_queue().query(event);
  return event.completed();
}

} // namespace tessel
