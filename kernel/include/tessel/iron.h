// The worker side of a runtime-sequence design (tessel.iron): what the
// kernels tessel generates from a Worker's core_fn call. A worker runs on
// RISCV_1 of its core; the core's data mover (tessel/iron_mover.h) runs on
// RISCV_0. Tables and the lock protocol: tessel/iron_abi.h.
//
// ObjectFifo semantics (IRON's, exactly): acquire(n) is absolute, so objects
// still held come back first and only n - held new ones are waited for;
// release(k) gives back the oldest k; object(i) is the i-th oldest held.
// Every call takes the caller's source location, which the generated code
// sets with #line to the core_fn line, so reports name the Python line.
#ifndef TESSEL_IRON_H
#define TESSEL_IRON_H

#include "tessel/iron_abi.h"
#include "tessel/iron_values.h"

namespace iron {

// Tables hold L1 offsets (what NoC calls take); this core's bytes at one.
inline uint8_t* at(uint32_t l1_offset) { return tessel_ctx()->l1_base + l1_offset; }
inline iron_core_table* table() { return reinterpret_cast<iron_core_table*>(at(IRON_TABLE_L1)); }
inline iron_handle* handle(uint32_t h) { return reinterpret_cast<iron_handle*>(at(table()->handles)) + h; }

inline void give(const iron_signal& s, uint32_t count, const char* file, uint32_t line) {
  noc_semaphore_inc(get_noc_addr(s.noc_xy & 0xff, s.noc_xy >> 8, s.lock_addr), count, noc_index, file, line);
  if (s.bell_addr != IRON_NO_BELL)
    noc_semaphore_inc(get_noc_addr(s.bell_xy & 0xff, s.bell_xy >> 8, s.bell_addr), 1, noc_index, file, line);
}

// Takes `count` from this core's lock word: waits until it holds that much.
inline void take(uint32_t lock_addr, uint32_t count, const char* file, uint32_t line) {
  volatile uint32_t* lock = reinterpret_cast<volatile uint32_t*>(at(lock_addr));
  noc_semaphore_wait_min(lock, count, file, line);
  __atomic_fetch_sub(const_cast<uint32_t*>(lock), count, __ATOMIC_RELAXED);
}

inline uint8_t* object(uint32_t h, uint32_t i, TESSEL_SITE_PARAMS) {
  iron_handle* hd = handle(h);
  if (i >= hd->held) fail("ObjectFifo object index beyond the objects this handle holds", TESSEL_SITE);
  return at(hd->slots + ((hd->head + i) % hd->depth) * hd->slot_bytes);
}

// Holds n objects (n <= depth); returns the oldest.
inline uint8_t* acquire(uint32_t h, uint32_t n, TESSEL_SITE_PARAMS) {
  iron_handle* hd = handle(h);
  if (n == 0 || n > hd->depth) fail("ObjectFifo acquire(n): n must be 1 to the handle's depth", TESSEL_SITE);
  if (n > hd->held) {
    take(hd->wait_lock, n - hd->held, TESSEL_SITE);
    hd->held = n;
  }
  return object(h, 0, TESSEL_SITE);
}

// Gives back the oldest k objects held.
inline void release(uint32_t h, uint32_t k, TESSEL_SITE_PARAMS) {
  iron_handle* hd = handle(h);
  if (k > hd->held) fail("ObjectFifo release(k): k is more than the objects this handle holds", TESSEL_SITE);
  if (k == 0) return;
  hd->held -= k;
  hd->head = (hd->head + k) % hd->depth;
  give(hd->signal, k, TESSEL_SITE);
}

inline volatile uint32_t* barrier_word(uint32_t b) {
  return reinterpret_cast<volatile uint32_t*>(at(table()->barriers)) + b;
}

// WorkerRuntimeBarrier: waits until the barrier holds at least `value` and
// takes it (the lock's acquire-greater-equal); the sequence's set(v) writes v.
inline void wait_for_value(uint32_t b, uint32_t value, TESSEL_SITE_PARAMS) {
  if (value > 63) fail("WorkerRuntimeBarrier.wait_for_value: values are 0 to 63", TESSEL_SITE);
  take(table()->barriers + 4 * b, value, TESSEL_SITE);
}

inline void release_with_value(uint32_t b, uint32_t value, TESSEL_SITE_PARAMS) {
  if (value > 63) fail("WorkerRuntimeBarrier.release_with_value: values are 0 to 63", TESSEL_SITE);
  noc_semaphore_set(barrier_word(b), *barrier_word(b) + value, TESSEL_SITE); // a semaphore write wakes its waiters
}

// An RTP Buffer's bytes in this core's L1.
inline void* rtp(uint32_t r) { return at(reinterpret_cast<const uint32_t*>(at(table()->rtps))[r]); }

} // namespace iron

#endif
