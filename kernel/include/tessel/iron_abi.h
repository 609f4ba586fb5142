// Runtime sequences (tessel.iron, src/flow): the L1 tables a design's cores
// share with the runtime, read by the worker API (tessel/iron.h), the data
// movers (tessel/iron_mover.h) and the host (src/flow/layout.cpp).
//
// Every core a design uses holds one table at IRON_TABLE_L1, laid out by the
// host at load:
//
//   IRON_TABLE_L1 +--------------------------------------+
//                 | iron_core_table: counts, doorbell     |
//                 | iron_handle[handle_count]   (worker)  |
//                 | iron_channel[channel_count] (mover)   |
//                 | lock words, RTP buffers, barriers     |
//                 | pool slots: depth x object bytes each |
//                 +--------------------------------------+
//
// Locks (the ObjectFifo lowering's produce/consume locks). Every segment of
// every pool has a `free` lock (initial value: the pool's depth) and a `full`
// lock (initial value 0). A lock word lives in the L1 of the one agent that
// waits on it: `free` with the segment's writer, `full` with its reader. An
// agent takes k by waiting for the word to reach k and subtracting k (its own
// word, so no other agent subtracts from it), and gives k by an atomic NoC
// increment of the other lock, wherever it lives. So every count is exact
// under any interleaving, and a wait is a semaphore wait the simulator's
// deadlock detection sees.
//
// Doorbell. A core's mover serves all of its channels on one RISC. Before it
// scans them it reads its doorbell; if no channel could move it waits for the
// doorbell to pass that value. Whoever changes a word a mover may wait on
// (a lock, a task queue) rings that mover's doorbell after the change, so no
// wake-up is lost and an idle mover is a blocked fiber, not a spinning one.
//
// Task queues. A channel with a host end has a ring of IRON_QUEUE_DEPTH task
// descriptors. The runtime writes descriptor `pushed % depth`, then bumps
// `pushed` and rings the doorbell; the mover bumps `done` when it finishes a
// task. pushed - done <= IRON_QUEUE_DEPTH always (the runtime waits for room).
#ifndef TESSEL_IRON_ABI_H
#define TESSEL_IRON_ABI_H

#include <stdint.h>

#define IRON_TABLE_L1 0x4000u
#define IRON_TABLE_MAGIC 0x1205F1F0u
#define IRON_MAX_SEGMENTS 8u // segments of one pool (split / join fan)
#define IRON_MAX_DESTS 8u    // destinations of one channel (broadcast)
#define IRON_QUEUE_DEPTH 4u  // tasks queued per host channel
#define IRON_TAP_DIMS 4u     // dimensions of one task's access pattern
#define IRON_NO_BELL 0u      // a signal's bell_addr when no mover waits

// Channel kinds.
#define IRON_CHANNEL_POOL_TO_POOLS 1u // core to core(s): broadcast, split, join, forward
#define IRON_CHANNEL_HOST_TO_POOLS 2u // fill
#define IRON_CHANNEL_POOL_TO_HOST 3u  // drain

// What a channel waits for (iron_channel.blocked), for reports.
#define IRON_BLOCKED_NONE 0u
#define IRON_BLOCKED_SOURCE 1u // an object from its source
#define IRON_BLOCKED_ROOM 2u   // room in a destination (blocked_dest names which)
#define IRON_BLOCKED_TASK 3u   // a task in its queue

// An increment of a lock somewhere, and the doorbell to ring after it.
struct iron_signal {
  uint32_t noc_xy;    // (y << 8) | x of the lock's core
  uint32_t lock_addr; // L1 address of the lock there
  uint32_t bell_xy;   // the waiting mover's core
  uint32_t bell_addr; // its doorbell, or IRON_NO_BELL when a worker waits
};

// One worker endpoint of a pool on the worker's own core.
struct iron_handle {
  uint32_t slots;            // L1 address of slot 0
  uint32_t depth;            // slots
  uint32_t slot_bytes;       // slot stride (the object's bytes, aligned up to 64)
  uint32_t wait_lock;        // L1 address here: `full` for a consumer, `free` for a producer
  struct iron_signal signal; // the other lock of the pool (given on release)
  uint32_t producer;         // 1: producer handle, 0: consumer
  uint32_t head;             // slot of the oldest object held (state)
  uint32_t held;             // objects held (state)
  uint32_t fifo;             // the design's fifo number, for reports
};

// One destination (or the source) of a channel: a pool and the segments it
// writes (or reads).
struct iron_end {
  uint32_t noc_xy; // the pool's core
  uint32_t slots;  // L1 address of slot 0 there
  uint32_t depth;
  uint32_t slot_bytes;                         // slot stride (the object's bytes, aligned up to 64)
  uint32_t offset_bytes;                       // where in the slot this channel's bytes start
  uint32_t head;                               // next slot (state)
  uint32_t lock_count;                         // segments
  uint32_t locks[IRON_MAX_SEGMENTS];           // this core: the locks taken (source: full; dest: free)
  struct iron_signal gives[IRON_MAX_SEGMENTS]; // the locks given after a move (source: free; dest: full)
};

// A task: one fill or drain, the host end's descriptor.
struct iron_task {
  uint32_t element_bytes;
  uint32_t tensor_elements;        // addresses wrap modulo this
  uint32_t offset;                 // elements
  uint32_t sizes[IRON_TAP_DIMS];   // outermost first
  uint32_t strides[IRON_TAP_DIMS]; // elements
  uint32_t elements;               // prod(sizes)
  uint32_t number;                 // the runtime's task instance number, for reports
  // The bound host buffer (patched per call): the shim reaches host memory
  // directly, as an NPU's shim DMA does. A pointer in two halves, so the
  // struct stays 4-byte aligned.
  uint32_t host_lo, host_hi;
};

struct iron_channel {
  uint32_t kind;       // IRON_CHANNEL_*
  uint32_t move_bytes; // bytes per object moved (the source range, or the fifo's object)
  uint32_t dest_count;
  uint32_t blocked; // IRON_BLOCKED_* (state, for reports)
  uint32_t blocked_dest;
  uint32_t fifo;          // the design's channel number, for reports
  struct iron_end source; // unused for HOST_TO_POOLS
  struct iron_end dests[IRON_MAX_DESTS];
  // Host channels only.
  uint32_t pushed;               // written by the runtime
  uint32_t done;                 // written by the mover
  uint32_t partial_bytes;        // bytes of the current object moved (state)
  uint32_t taken;                // 1 while the current object's locks are taken (state)
  uint32_t task_elements;        // elements of the current task moved (state)
  uint32_t index[IRON_TAP_DIMS]; // the current task's position (state)
  uint32_t moved_objects;        // objects moved since load (state)
  // The source's layout transform (dims_to_stream): stream_dims dimensions
  // (0: none) of sizes and strides in elements, outermost first; a moved
  // object is first gathered in that order into stream_buffer (this core).
  uint32_t stream_dims;
  uint32_t stream_element_bytes;
  uint32_t stream_sizes[IRON_TAP_DIMS];
  uint32_t stream_strides[IRON_TAP_DIMS];
  uint32_t stream_buffer;
  uint32_t stream_scatter; // 1: the destinations' transform (dims_from_stream): element k lands at the pattern's k-th
  // Re-chunking (a forward to another object size): core-to-core channels
  // whose destination objects hold dest_bytes (0: move_bytes, one for one).
  // The source side's state is partial_bytes / taken; the destinations':
  uint32_t dest_bytes;
  uint32_t dest_partial; // bytes of the current destination objects written (state)
  uint32_t dest_taken;   // 1 while their rooms are taken (state)
  struct iron_task queue[IRON_QUEUE_DEPTH];
};

struct iron_core_table {
  uint32_t magic;
  uint32_t handle_count;
  uint32_t channel_count;
  uint32_t doorbell; // rung by everything a mover on this core may wait for
  uint32_t stop;     // set by the runtime: the mover returns
  uint32_t handles;  // L1 address of iron_handle[0]
  uint32_t channels; // L1 address of iron_channel[0]
  uint32_t barriers; // L1 address of the barrier words (one per barrier)
  uint32_t barrier_count;
  uint32_t rtps; // L1 address of the RTP address list (one word per buffer)
  uint32_t rtp_count;
  uint32_t scratch; // L1 bounce buffer of the mover (misaligned runs)
  uint32_t scratch_bytes;
  uint32_t spare[3];
};

#endif
