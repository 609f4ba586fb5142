// The data mover of a runtime-sequence design (tessel.iron): the runtime's
// own kernel on RISCV_0 of every core with channels. Its one loop serves
// every channel of the core (tables, locks, doorbell: tessel/iron_abi.h):
//
//   loop: bell = doorbell
//         for each channel: move one object if its locks (and task) allow
//         if nothing moved: return if stopped, else wait for doorbell > bell
//
// A move takes every lock it needs before it touches a byte, so a broadcast
// moves only when every destination has room (the DeadlockModel rule), and a
// split's or join's segments move independently on their own locks.
// A host channel's task streams bytes through its access pattern (offset +
// sum index*stride, outermost first, modulo the tensor) into objects; a task
// may end inside an object and the next task of the queue continues it.
#ifndef TESSEL_IRON_MOVER_H
#define TESSEL_IRON_MOVER_H

#include "tessel/iron.h"

namespace iron_mover {

inline uint64_t noc_at(uint32_t xy, uint32_t addr) { return get_noc_addr(xy & 0xff, xy >> 8, addr); }

// NoC transfers need the local and remote addresses equally aligned; a run
// that is not goes through the core's bounce buffer at the remote's
// misalignment (the buffer holds the largest object plus 64 bytes).
inline void write_run(uint32_t l1, uint64_t remote, uint32_t bytes, uint32_t alignment) {
  const uint32_t mis = uint32_t(remote) & (alignment - 1);
  if ((l1 & (alignment - 1)) == mis) {
    noc_async_write(l1, remote, bytes);
    return;
  }
  noc_async_write_barrier(); // the bounce buffer may still be read by the last write
  const uint32_t bounce = iron::table()->scratch + mis;
  __builtin_memcpy(iron::at(bounce), iron::at(l1), bytes);
  noc_async_write(bounce, remote, bytes);
}

inline uint32_t slot_addr(const iron_end& e) { return e.slots + e.head * e.slot_bytes + e.offset_bytes; }

inline bool locks_ready(const iron_end& e) {
  for (uint32_t i = 0; i < e.lock_count; ++i)
    if (*reinterpret_cast<volatile uint32_t*>(iron::at(e.locks[i])) < 1) return false;
  return true;
}

inline void take_locks(iron_end& e) {
  for (uint32_t i = 0; i < e.lock_count; ++i)
    __atomic_fetch_sub(reinterpret_cast<uint32_t*>(iron::at(e.locks[i])), 1u, __ATOMIC_RELAXED);
}

inline void give_locks(iron_end& e) {
  for (uint32_t i = 0; i < e.lock_count; ++i)
    iron::give(e.gives[i], 1, __FILE__, __LINE__);
  e.head = (e.head + 1) % e.depth;
}

// Takes every destination's room, or none (and notes which one is full).
inline bool take_rooms(iron_channel& c) {
  for (uint32_t d = 0; d < c.dest_count; ++d)
    if (!locks_ready(c.dests[d])) {
      c.blocked = IRON_BLOCKED_ROOM;
      c.blocked_dest = d;
      return false;
    }
  for (uint32_t d = 0; d < c.dest_count; ++d)
    take_locks(c.dests[d]);
  return true;
}

// A channel's layout transform: the object at `src` rearranged into the
// channel's buffer on this core; returns where the move reads it from (src
// itself when there is none). Reading (dims_to_stream): element k of the
// stream is the pattern's k-th element of the object. Writing
// (dims_from_stream, stream_scatter): element k of the object lands at the
// pattern's k-th position.
inline uint32_t relayout(const iron_channel& c, uint32_t src) {
  if (c.stream_dims == 0) return src;
  const uint32_t eb = c.stream_element_bytes, dims = c.stream_dims;
  uint32_t size[IRON_TAP_DIMS] = {1, 1, 1, 1}, stride[IRON_TAP_DIMS] = {0, 0, 0, 0};
  for (uint32_t d = 0; d < dims; ++d) { // right-aligned: the innermost dimension last
    size[IRON_TAP_DIMS - dims + d] = c.stream_sizes[d];
    stride[IRON_TAP_DIMS - dims + d] = c.stream_strides[d];
  }
  const uint8_t* stream = iron::at(src); // walked in order (gather: written; scatter: read)
  uint8_t* const object = iron::at(src); // reached through the pattern
  uint8_t* const buffer = iron::at(c.stream_buffer);
  uint8_t* in_order = buffer;
  const bool scatter = c.stream_scatter;
  const uint32_t run = stride[3] == 1 ? size[3] * eb : eb; // contiguous bytes per innermost step
  for (uint32_t i = 0; i < size[0]; ++i)
    for (uint32_t j = 0; j < size[1]; ++j)
      for (uint32_t k = 0; k < size[2]; ++k) {
        const uint32_t base = i * stride[0] + j * stride[1] + k * stride[2];
        const uint32_t steps = stride[3] == 1 ? 1 : size[3];
        for (uint32_t l = 0; l < steps; ++l) {
          const uint64_t at = uint64_t(base + l * stride[3]) * eb;
          if (scatter)
            __builtin_memcpy(buffer + at, stream, run), stream += run;
          else
            __builtin_memcpy(in_order, object + at, run), in_order += run;
        }
      }
  return c.stream_buffer;
}

// Where a taken source object is read from while it moves out: the channel's
// buffer once relayout() has rearranged it there, else its slot.
inline uint32_t staged_source(const iron_channel& c) {
  return c.stream_dims ? c.stream_buffer : slot_addr(c.source);
}

// Core to core(s) with other object sizes on each side (a forward that
// re-chunks the stream): one step moves what is left of the source object
// or of the destination objects, whichever is less; each side takes its
// locks when it starts an object and gives them when the object is done.
inline bool move_rechunk(iron_channel& c) {
  if (!c.taken) {
    if (!locks_ready(c.source)) {
      c.blocked = IRON_BLOCKED_SOURCE;
      return false;
    }
    take_locks(c.source);
    relayout(c, slot_addr(c.source));
    c.taken = 1;
  }
  if (!c.dest_taken) {
    if (!take_rooms(c)) return false;
    c.dest_taken = 1;
  }
  const uint32_t src_left = c.move_bytes - c.partial_bytes, dest_left = c.dest_bytes - c.dest_partial;
  const uint32_t n = src_left < dest_left ? src_left : dest_left;
  const uint32_t src = staged_source(c) + c.partial_bytes;
  for (uint32_t d = 0; d < c.dest_count; ++d)
    write_run(src, noc_at(c.dests[d].noc_xy, slot_addr(c.dests[d]) + c.dest_partial), n, tessel_ctx()->l1_alignment);
  noc_async_write_barrier();
  c.partial_bytes += n;
  c.dest_partial += n;
  if (c.dest_partial == c.dest_bytes) {
    for (uint32_t d = 0; d < c.dest_count; ++d)
      give_locks(c.dests[d]);
    c.dest_partial = 0;
    c.dest_taken = 0;
    ++c.moved_objects;
  }
  if (c.partial_bytes == c.move_bytes) {
    give_locks(c.source);
    c.partial_bytes = 0;
    c.taken = 0;
  }
  c.blocked = IRON_BLOCKED_NONE;
  return true;
}

// Core to core(s): one object from the source slot to every destination.
inline bool move_pools(iron_channel& c) {
  if (c.dest_bytes) return move_rechunk(c);
  if (!locks_ready(c.source)) {
    c.blocked = IRON_BLOCKED_SOURCE;
    return false;
  }
  if (!take_rooms(c)) return false;
  take_locks(c.source); // ready, and only this channel takes it
  const uint32_t src = relayout(c, slot_addr(c.source));
  for (uint32_t d = 0; d < c.dest_count; ++d)
    write_run(src, noc_at(c.dests[d].noc_xy, slot_addr(c.dests[d])), c.move_bytes, tessel_ctx()->l1_alignment);
  noc_async_write_barrier();
  for (uint32_t d = 0; d < c.dest_count; ++d)
    give_locks(c.dests[d]);
  give_locks(c.source);
  c.blocked = IRON_BLOCKED_NONE;
  ++c.moved_objects;
  return true;
}

// The next run of a task: contiguous elements from its current index, up to
// `limit` elements, within one tensor wrap. Returns the element count and
// sets *first to the first element's index in the tensor.
inline uint32_t next_run(const iron_task& t, const uint32_t* index, uint32_t limit, uint32_t* first) {
  uint64_t e = t.offset;
  for (uint32_t i = 0; i < IRON_TAP_DIMS; ++i)
    e += uint64_t(index[i]) * t.strides[i];
  e %= t.tensor_elements;
  *first = uint32_t(e);
  uint32_t run = 1;
  const uint32_t inner = IRON_TAP_DIMS - 1;
  if (t.strides[inner] == 1) run = t.sizes[inner] - index[inner];
  if (run > limit) run = limit;
  if (run > t.tensor_elements - e) run = uint32_t(t.tensor_elements - e);
  return run;
}

inline void advance(const iron_task& t, uint32_t* index, uint32_t count) {
  const uint32_t inner = IRON_TAP_DIMS - 1;
  index[inner] += count;
  for (uint32_t i = inner; i > 0 && index[i] >= t.sizes[i]; --i) {
    index[i] = 0;
    ++index[i - 1];
  }
}

// A drain's run into host memory. Long runs bypass the cache (streaming
// stores): the host reads the buffer after the call, and writing through the
// cache would first read every line of it from memory.
inline void copy_out(uint8_t* to, const uint8_t* from, uint32_t bytes) {
#if defined(__SSE2__)
  if (bytes >= 8192) {
    const uint32_t head = uint32_t((16 - (reinterpret_cast<uintptr_t>(to) & 15)) & 15);
    __builtin_memcpy(to, from, head);
    to += head, from += head, bytes -= head;
    typedef long long v2di __attribute__((vector_size(16), aligned(1)));
    for (; bytes >= 64; bytes -= 64, to += 64, from += 64) {
      const v2di a = *reinterpret_cast<const v2di*>(from), b = *reinterpret_cast<const v2di*>(from + 16);
      const v2di c = *reinterpret_cast<const v2di*>(from + 32), d = *reinterpret_cast<const v2di*>(from + 48);
      __builtin_ia32_movntdq(reinterpret_cast<__attribute__((vector_size(16))) long long*>(to), a);
      __builtin_ia32_movntdq(reinterpret_cast<__attribute__((vector_size(16))) long long*>(to + 16), b);
      __builtin_ia32_movntdq(reinterpret_cast<__attribute__((vector_size(16))) long long*>(to + 32), c);
      __builtin_ia32_movntdq(reinterpret_cast<__attribute__((vector_size(16))) long long*>(to + 48), d);
    }
    __builtin_ia32_sfence();
  }
#endif
  __builtin_memcpy(to, from, bytes);
}

// Moves bytes between a task's host buffer and one L1 range (to_l1: a fill),
// run by run of its pattern, as far as `bytes` or the task's end; returns
// bytes moved.
inline uint32_t stream(iron_channel& c, iron_task& t, uint32_t l1, uint32_t bytes, bool to_l1) {
  uint8_t* const host = reinterpret_cast<uint8_t*>((uint64_t(t.host_hi) << 32) | t.host_lo);
  uint32_t moved = 0;
  while (moved < bytes && c.task_elements < t.elements) {
    uint32_t first = 0;
    const uint32_t want = (bytes - moved) / t.element_bytes;
    const uint32_t run =
        next_run(t, c.index, want < t.elements - c.task_elements ? want : t.elements - c.task_elements, &first);
    if (run == 0) break; // the object is full short of one element: a task smaller than its element
    const uint32_t run_bytes = run * t.element_bytes;
    uint8_t* at = host + uint64_t(first) * t.element_bytes;
    if (to_l1)
      __builtin_memcpy(iron::at(l1 + moved), at, run_bytes);
    else
      copy_out(at, iron::at(l1 + moved), run_bytes);
    moved += run_bytes;
    c.task_elements += run;
    advance(t, c.index, run);
  }
  return moved;
}

inline void finish_task(iron_channel& c) {
  c.task_elements = 0;
  for (uint32_t i = 0; i < IRON_TAP_DIMS; ++i)
    c.index[i] = 0;
  __atomic_store_n(&c.done, c.done + 1, __ATOMIC_RELEASE);
}

inline bool take_source(iron_channel& c) {
  if (!locks_ready(c.source)) {
    c.blocked = IRON_BLOCKED_SOURCE;
    return false;
  }
  take_locks(c.source);
  return true;
}

// A fill's object is whole in the first destination (on this core): the
// others get a copy, then every destination its object.
inline void deliver(iron_channel& c) {
  const uint32_t src = slot_addr(c.dests[0]);
  if (c.stream_dims) // the consumers write it through their layout transform (dims_from_stream)
    __builtin_memcpy(iron::at(src), iron::at(relayout(c, src)), c.move_bytes);
  for (uint32_t d = 1; d < c.dest_count; ++d)
    write_run(src, noc_at(c.dests[d].noc_xy, slot_addr(c.dests[d])), c.move_bytes, tessel_ctx()->l1_alignment);
  noc_async_write_barrier();
  for (uint32_t d = 0; d < c.dest_count; ++d)
    give_locks(c.dests[d]);
}

// A fill (task bytes into the destination objects) or a drain (source
// objects out through the task's pattern): one object per call, then the
// other channels get their turn.
inline bool move_host(iron_channel& c, bool fill) {
  bool moved_any = false;
  for (;;) {
    if (c.done == __atomic_load_n(&c.pushed, __ATOMIC_ACQUIRE)) {
      c.blocked = IRON_BLOCKED_TASK;
      return moved_any;
    }
    if (!c.taken) {
      if (!(fill ? take_rooms(c) : take_source(c))) return moved_any;
      if (!fill) relayout(c, slot_addr(c.source)); // a drain's object, in its stream order, until it is out
      c.taken = 1;
    }
    iron_task& t = c.queue[c.done % IRON_QUEUE_DEPTH];
    const uint32_t from = fill ? slot_addr(c.dests[0]) : staged_source(c);
    const uint32_t l1 = from + c.partial_bytes;
    const uint32_t n = stream(c, t, l1, c.move_bytes - c.partial_bytes, fill);
    c.partial_bytes += n;
    moved_any = moved_any || n > 0;
    if (c.partial_bytes == c.move_bytes) {
      if (fill)
        deliver(c);
      else
        give_locks(c.source);
      c.partial_bytes = 0;
      c.taken = 0;
      ++c.moved_objects;
    }
    if (c.task_elements == t.elements) finish_task(c);
    c.blocked = IRON_BLOCKED_NONE;
    if (c.taken == 0) return true;
  }
}

inline void serve() {
  iron_core_table* t = iron::table();
  iron_channel* channels = reinterpret_cast<iron_channel*>(iron::at(t->channels));
  volatile uint32_t* bell = &t->doorbell;
  for (;;) {
    const uint32_t seen = *bell;
    bool moved = false;
    for (uint32_t i = 0; i < t->channel_count; ++i) {
      iron_channel& c = channels[i];
      if (c.kind == IRON_CHANNEL_POOL_TO_POOLS)
        moved = move_pools(c) || moved;
      else
        moved = move_host(c, c.kind == IRON_CHANNEL_HOST_TO_POOLS) || moved;
    }
    if (moved) continue;
    if (t->stop) return;
    noc_semaphore_wait_min(bell, seen + 1);
  }
}

} // namespace iron_mover

void kernel_main() { iron_mover::serve(); }

#endif
