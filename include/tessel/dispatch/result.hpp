// What a persistent run reports: the dispatcher's result block, the program's
// kernel sizes, one event, and the names of the ABI's codes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::dispatch {

// The dispatcher's result block (decoded). state and error are KM_STATE_* /
// KM_ERROR_* (tessel/persistent_abi.h).
struct ResultBlock {
  bool ready = false;      // the dispatcher reported READY
  uint32_t state = 0;      // KM_STATE_*
  uint32_t error = 0;      // KM_ERROR_*
  std::string error_name;  // "none", "deadline", ...
  std::string message;     // what went wrong, in words (empty when nothing did)
  uint64_t commands = 0;   // commands the dispatcher numbered (every source)
  uint64_t events = 0;     // events it posted
  uint64_t rejected = 0;   // commands it rejected
  uint32_t error_slot = 0; // KM_ERROR_DEADLINE: the slot, sequence and group
  uint64_t error_sequence = 0;
  bool cluster0_restored = true;   // the dispatcher's cluster was handed back
  std::vector<uint64_t> abandoned; // host handles left without their done event (abort)
};

// The program's kernels laid out against the session's kernel buffer.
struct KernelSizes {
  struct Thread {
    std::string name; // reader, writer, unpack, math, pack
    uint32_t text_bytes = 0;
  };
  std::vector<Thread> threads;
  uint32_t total_bytes = 0;
  uint32_t buffer_bytes = 0;
  bool estimate = true; // measured by a cross build, not on silicon
};

enum class EventKind : uint8_t { Done = 1, Timeout = 2, Pong = 3, Rejected = 4 };

struct Event {
  uint64_t handle = 0;
  EventKind kind = EventKind::Done;
  uint32_t auxiliary = 0; // first core (done), slot (timeout), reason (rejected)
  uint32_t ticks = 0;     // submit to completion, 50 MHz ticks (or the result word)
  bool has_result = false;
  uint32_t result = 0;
  double microseconds() const { return ticks / 50.0; }
};

const char* event_kind_name(EventKind kind);
// KMD_REJECT_* reason -> "handler", "flags", "group", "exited", "queue" ("unknown" otherwise).
const char* reject_reason_name(uint32_t reason);
const char* error_name(uint32_t error);

} // namespace tessel::dispatch
