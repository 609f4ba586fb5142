// Where one RISC's trace events go (trace.hpp): formatted JSON text, each
// event at most kMaxEventBytes, appended by the RISC's fiber only.
//
// Streaming: a chunk of kChunkBytes; when the next event might not fit, the
// chunk is written to the file (one write under the file's lock) and reused.
// Nothing is allocated after the first event.
//
// Ring: the last `ring_events` events, kept until the end and then written
// oldest first. Their text lives in a circular byte store of
// kRingBytesPerEvent per event slot; an event goes in whole, dropping the
// oldest events it needs the room (or the slot) of, so the ring may hold
// fewer events when theirs are long (DPRINT text). The store starts small
// and doubles (moving the live events) until it has ring_events slots, so a
// RISC that records little holds little.
//
// Invariants (ring): the live events are `count` entries of `entries`
// starting at `first`, oldest first; their bytes do not overlap; in store
// order they run from entries[first].offset up, wrap at most once to 0, and
// end at `write_at`.
//
// Thread-safety: none; one fiber appends, and flush()/write_ring() run when
// that fiber is not running.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "sim/trace_json.hpp"

namespace tessel::base {
class TraceFile;
}

namespace tessel::sim {

class TraceBuffer {
public:
  static constexpr size_t kChunkBytes = 32 * 1024;
  static constexpr size_t kRingBytesPerEvent = 256;

  // ring_events == 0: stream to `file`; else keep the last ring_events events.
  TraceBuffer(base::TraceFile* file, uint64_t ring_events);
  TraceBuffer(const TraceBuffer&) = delete;
  TraceBuffer& operator=(const TraceBuffer&) = delete;

  // kMaxEventBytes of room for one event: format it there, then commit().
  char* reserve() {
    if (ring_events_ == 0 && kChunkBytes - used_ < kMaxEventBytes) flush();
    if (!storage_) allocate();
    return ring_events_ ? scratch_.get() : storage_.get() + used_;
  }
  void commit(size_t size_bytes) {
    ++events_;
    if (ring_events_ == 0)
      used_ += size_bytes;
    else
      keep(size_bytes);
  }

  // Streaming: writes what the chunk holds. Ring: nothing.
  void flush();
  // Ring: writes the kept events, oldest first, and forgets them.
  void write_ring();

  uint64_t events() const { return events_; }   // committed so far
  uint64_t dropped() const { return dropped_; } // ring: committed, then dropped for newer ones
  uint64_t kept() const { return count_; }      // ring: held now

private:
  struct Entry {
    uint32_t offset, size_bytes;
  };
  void allocate();
  void keep(size_t size_bytes);
  void drop_oldest();
  void grow(); // doubles the ring's slots and store, keeping the live events

  base::TraceFile* file_;
  uint64_t ring_events_;
  std::unique_ptr<char[]> storage_; // the chunk, or the ring's byte store
  size_t used_ = 0;                 // streaming: bytes in the chunk
  uint64_t events_ = 0, dropped_ = 0;
  // Ring only.
  std::unique_ptr<char[]> scratch_; // where reserve() lets the next event be formatted
  std::unique_ptr<Entry[]> entries_;
  size_t slots_ = 0, store_bytes_ = 0;
  size_t first_ = 0, count_ = 0, write_at_ = 0;
};

} // namespace tessel::sim
