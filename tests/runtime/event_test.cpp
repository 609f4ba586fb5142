// Events (src/runtime/event.cpp): record, wait, synchronize, query, ids,
// re-recording, events outliving their device, and every misuse's message.
#include <gtest/gtest.h>

#include "sim/ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr CoreCoord kCore{0, 0};

TEST(EventTest, AnUnrecordedEventHasNoDeviceAndIsNotComplete) {
  Event event;
  EXPECT_FALSE(event.is_recorded());
  EXPECT_FALSE(event.completed());
  EXPECT_EQ(event.id(), 0u);
  EXPECT_EQ(event.device(), nullptr);
}

TEST(EventTest, RecordMarksThePointAfterEarlierCommands) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  Recorder rec(device);
  Program p;
  KernelHandle k = add_ops(p, kCore);
  set_script(p, k, kCore, Script().op(kRecordValue, 0, 0xE1), rec);
  cq.enqueue_program(p, false);
  auto event = std::make_shared<Event>();
  cq.enqueue_record_event(event);
  EXPECT_TRUE(event->is_recorded());
  EXPECT_EQ(event->id(), 1u);
  EXPECT_EQ(event->device(), device);
  EXPECT_TRUE(event->completed());
  EXPECT_TRUE(cq.query(*event));
  EXPECT_TRUE(event_query(*event));
  cq.synchronize(*event);
  event_synchronize(*event);
  // The program enqueued before the record has run.
  EXPECT_EQ(rec.at(0), 0xE1u);
  cq.enqueue_wait_for_event(event);
  std::vector<uint32_t> words;
  cq.enqueue_read_buffer(*rec.buffer, words);
  EXPECT_EQ(words.at(0), 0xE1u);
}

TEST(EventTest, IdsCountRecordsOnTheQueueAndReRecordingMovesTheEvent) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  auto first = std::make_shared<Event>();
  auto second = std::make_shared<Event>();
  cq.enqueue_record_event(first);
  cq.enqueue_record_event(second);
  EXPECT_EQ(first->id(), 1u);
  EXPECT_EQ(second->id(), 2u);
  cq.enqueue_record_event(first);
  EXPECT_EQ(first->id(), 3u);
  EXPECT_TRUE(first->completed());
  EXPECT_TRUE(second->completed());
  cq.enqueue_wait_for_event(second);
  cq.enqueue_wait_for_event(first);
  // Another device's queue numbers its own records.
  auto other = open_device();
  auto third = std::make_shared<Event>();
  other->command_queue().enqueue_record_event(third);
  EXPECT_EQ(third->id(), 1u);
}

TEST(EventTest, AnEventOutlivesItsDevice) {
  auto event = std::make_shared<Event>();
  {
    auto device = open_device();
    device->command_queue().enqueue_record_event(event);
  }
  EXPECT_EQ(event->device(), nullptr);
  EXPECT_TRUE(event->completed());
  EXPECT_TRUE(event_query(*event));
  event_synchronize(*event);
  // A new device is another device, even if it reuses the old one's memory.
  auto device = open_device();
  EXPECT_EQ(error_from<ValidationError>([&] { device->command_queue().enqueue_wait_for_event(event); }),
            "enqueue_wait_for_event: event 1 was recorded on another device's queue; expected an event recorded "
            "on this device");
}

TEST(EventTest, EventsOfAClosedDeviceCanStillBeQueried) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  auto event = std::make_shared<Event>();
  cq.enqueue_record_event(event);
  device->close();
  EXPECT_TRUE(cq.query(*event));
  cq.synchronize(*event);
  EXPECT_TRUE(event_query(*event));
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_record_event(event); }),
            "enqueue_record_event: the device is closed");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_wait_for_event(event); }),
            "enqueue_wait_for_event: the device is closed");
  EXPECT_EQ(event->id(), 1u);
}

TEST(EventTest, NullEventsAreRejected) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_record_event(nullptr); }),
            "enqueue_record_event: the event is null; expected one made with std::make_shared<Event>()");
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_wait_for_event(nullptr); }),
            "enqueue_wait_for_event: the event is null; expected one made with std::make_shared<Event>()");
}

TEST(EventTest, AnEventNeverRecordedCannotBeWaitedForSynchronizedOrQueried) {
  auto device = open_device();
  CommandQueue& cq = device->command_queue();
  auto event = std::make_shared<Event>();
  const std::string never = ": the event has never been recorded; record it first with enqueue_record_event";
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_wait_for_event(event); }), "enqueue_wait_for_event" + never);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.synchronize(*event); }), "synchronize" + never);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.query(*event); }), "query" + never);
  EXPECT_EQ(error_from<ValidationError>([&] { event_synchronize(*event); }), "event_synchronize" + never);
  EXPECT_EQ(error_from<ValidationError>([&] { event_query(*event); }), "event_query" + never);
  EXPECT_FALSE(event->is_recorded());
}

TEST(EventTest, AnEventBelongsToTheDeviceThatFirstRecordedIt) {
  auto device = open_device();
  auto other = open_device();
  auto event = std::make_shared<Event>();
  device->command_queue().enqueue_record_event(event);
  device->command_queue().enqueue_record_event(event);
  ASSERT_EQ(event->id(), 2u);
  CommandQueue& cq = other->command_queue();
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_record_event(event); }),
            "enqueue_record_event: event 2 belongs to another device (the one that first recorded it); an event "
            "stays with its device, so make a new Event for this queue");
  const std::string elsewhere =
      ": event 2 was recorded on another device's queue; expected an event recorded on this device";
  EXPECT_EQ(error_from<ValidationError>([&] { cq.enqueue_wait_for_event(event); }),
            "enqueue_wait_for_event" + elsewhere);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.synchronize(*event); }), "synchronize" + elsewhere);
  EXPECT_EQ(error_from<ValidationError>([&] { cq.query(*event); }), "query" + elsewhere);
  // The failed record changed nothing: the event is still device's, at the same point.
  EXPECT_EQ(event->id(), 2u);
  EXPECT_EQ(event->device(), device);
  // The free functions go to the recording device's queue.
  EXPECT_TRUE(event_query(*event));
  event_synchronize(*event);
  // The other queue's numbering was not advanced by the failed record.
  auto fresh = std::make_shared<Event>();
  cq.enqueue_record_event(fresh);
  EXPECT_EQ(fresh->id(), 1u);
}

} // namespace
} // namespace tessel::test
