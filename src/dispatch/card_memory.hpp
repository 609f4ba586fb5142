// What the host and the card share (spec: Rules the host keeps), and nothing
// else: the command ring (host_depth lines in the X280's memory), the event
// ring (event_depth entries in host memory), the host's read-count line, the
// stop flag, the upload region, and two park words for waking a side that
// sleeps.
//
// Protocol (single producer, single consumer each way)
//  - Command ring: the host writes lines ring[i % depth] for i in
//    [stored, stored + n), then publishes `stored += n` with a release store
//    (the batch's fence). The card reads lines below `stored` (acquire) and
//    publishes `taken` (release) as it consumes them; the host never writes
//    a line at or beyond `taken + depth`.
//  - Event ring: the card writes events[i % depth] and publishes `posted`
//    (release). The host reads events below `posted` and publishes
//    `read_count` (the read-count line) with every batch and while waiting.
//    The card never holds more than event_depth unread events (event room).
//  - Spinning: a side waiting for the other spins (pause) for a while before
//    it parks, since a futex wake-up costs tens to hundreds of microseconds
//    on a VM; after the first ~1,000 checks it also yields the CPU at each
//    64th, so that when the scheduler put both threads on one core the other
//    side runs instead of the spinner burning its whole time slice.
//  - Parking: a side that has nothing to do sets its park word to 1,
//    re-checks what it waits for, then futex-waits on the word; the other
//    side, after publishing, swaps the word to 0 and wakes it if it was 1.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/park.hpp"
#include "tessel/engine_abi.h"
#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

// One command line: 64 bytes.
struct alignas(64) CommandLine {
  uint32_t tag;           // the host's handle, low 32 bits (0: a runtime command)
  uint32_t handler_flags; // handler | flags << 8
  uint32_t group;         // first | count << 16 (queued: count only)
  uint32_t arg_count;
  uint32_t args[KM_ARGS_MAX];
  uint32_t spare[2];
};
static_assert(sizeof(CommandLine) == 64);

// One event: 16 bytes.
struct CardEvent {
  uint32_t kind;      // KM_EVENT_*
  uint32_t tag;       // the command line's tag
  uint32_t auxiliary; // value (8 bits) | sequence low 16 bits << 8
  uint32_t ticks;     // submit to completion, or the result word
};

using base::park;
using base::ParkWord;
using base::unpark;

struct CardMemory {
  CommandLine ring[KM_HOST_DEPTH_MAX];
  CardEvent events[KM_EVENT_DEPTH_MAX];
  alignas(64) std::atomic<uint32_t> stored{0};     // host: lines published
  alignas(64) std::atomic<uint32_t> taken{0};      // card: lines consumed
  alignas(64) std::atomic<uint32_t> posted{0};     // card: events published
  alignas(64) std::atomic<uint32_t> read_count{0}; // host: events read (the read-count line)
  alignas(64) std::atomic<uint32_t> stop{0};       // host: stop the grid (abort)
  // host, written before `stop`: how long the abort may wait for the cores to
  // leave their loops, in card ticks (0: the dispatcher's own grid_stop_s).
  std::atomic<uint64_t> stop_within_ticks{0};
  alignas(64) std::atomic<uint32_t> ready{0};    // card: every core's loop waits for commands
  alignas(64) std::atomic<uint32_t> finished{0}; // card: the run ended
  ParkWord card_park, host_park;
  // The upload region (engines): the host writes whole lines of it before it
  // stores the RUN that names them, and never the range of a running or kept
  // engine; upload_bytes is 0 for a program with an X280 thread.
  uint32_t upload_bytes = KM_UPLOAD_REGION_BYTES;
  alignas(64) uint32_t upload[KM_UPLOAD_REGION_BYTES / 4];
};

} // namespace tessel::dispatch
