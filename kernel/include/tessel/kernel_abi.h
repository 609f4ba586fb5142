// tessel kernel ABI: the one interface between a JIT-compiled kernel and the
// simulator that runs it.
//
// A kernel is a shared object built from user source with the host compiler.
// It never links against the runtime: everything it needs reaches it through
// a `tessel_kernel_ctx`, one per RISC of a core, owned by the simulator and
// alive for as long as the device is open.
//
// Finding the context. Kernels run only on simulator fibers. Every fiber stack
// is one slot of TESSEL_FIBER_SLOT_BYTES, aligned to its size; the first word
// of the slot holds the fiber's context pointer. So `sp & ~(slot - 1)` finds
// it from anywhere in kernel code, on any OS thread, with no TLS and no call:
//
//   slot base ->  +------------------------------+
//                 | header page: tessel_kernel_ctx* , emergency stack for
//                 |              fault recovery     |
//                 +------------------------------+
//                 | guard page (PROT_NONE)       |  <- stack overflow faults here
//                 +------------------------------+
//                 | stack, grows down            |
//   slot end  ->  +------------------------------+
//
// Hot paths (argument reads, CB pointer arithmetic, NoC address encoding) are
// inline over the context; everything that can block or must be checked goes
// through the function table `tessel_sim_api`, whose calls carry the kernel's
// call site (file, line) for error reports.
//
// This header is C and free of the standard library so kernels compile fast.
#ifndef TESSEL_KERNEL_ABI_H
#define TESSEL_KERNEL_ABI_H

#include <stdint.h>

#define TESSEL_KERNEL_ABI_VERSION 22u

#define TESSEL_FIBER_SLOT_BYTES (512u * 1024u)
#define TESSEL_MAX_CBS 64u
#define TESSEL_MAX_RUNTIME_ARGS 341u
#define TESSEL_MAX_SEMAPHORES 16u
#define TESSEL_SEMAPHORE_STRIDE_BYTES 16u // one L1-alignment unit per semaphore
#define TESSEL_MAX_DRAM_BANKS 16u
#define TESSEL_MAX_L1_BANKS 256u
#define TESSEL_EXTENSION_CARD 1u

// L1 is mapped per core at a 4 MiB-aligned host address below 4 GiB (the
// second 2 MiB of each core's stride is a guard), so a 32-bit L1 address a
// kernel sees is a real pointer into its own core's L1. NoC calls normalise
// any address to an offset with TESSEL_L1_SLOT_MASK.
#define TESSEL_L1_SLOT_BYTES (2u * 1024u * 1024u)
#define TESSEL_L1_SLOT_MASK (TESSEL_L1_SLOT_BYTES - 1u)

// A region of every core's reserved base that always reads zero (Metalium's
// MEM_ZEROS_BASE / MEM_ZEROS_SIZE): kernels read it to clear memory; NoC
// writes into it are an error (sim/l1_layout.hpp, sim/memory_check.cpp).
#define TESSEL_L1_ZEROS_OFFSET 0x2600u
#define TESSEL_L1_ZEROS_BYTES 512u

// NoC address: | y_end:6 | x_end:6 | y:6 | x:6 | local:36 |
// Unicast addresses leave the end fields zero; multicast addresses carry the
// rectangle (start = x/y fields, end = x_end/y_end fields).
#define TESSEL_NOC_LOCAL_BITS 36u
#define TESSEL_NOC_COORD_BITS 6u
#define TESSEL_NOC_LOCAL_MASK ((1ull << TESSEL_NOC_LOCAL_BITS) - 1ull)
#define TESSEL_NOC_COORD_MASK ((1ull << TESSEL_NOC_COORD_BITS) - 1ull)
// A coordinate that does not fit its 6 bits makes a poisoned address: bit 63
// set and a token in bits 60..62 naming the coordinates and the call that
// made it (note_bad_noc_coord). Using one in a transfer is an error; making
// one is not (kernels compute neighbours' addresses they never use).
#define TESSEL_NOC_POISON_BIT (1ull << 63)
#define TESSEL_NOC_POISON_TOKEN_SHIFT 60u
#define TESSEL_NOC_POISON_TOKENS 7u

enum tessel_risc {
  TESSEL_RISC_BRISC = 0,   // RISCV_0, data movement
  TESSEL_RISC_NCRISC = 1,  // RISCV_1, data movement
  TESSEL_RISC_COMPUTE = 2, // TRISC0..2 played by one context
  TESSEL_RISC_COUNT = 3
};

// Kernel-visible state of one circular buffer on one core. Counters follow
// TT-Metalium: 16-bit received/acked, free = num_pages - (received - acked).
// Pointers are L1 addresses as the kernel sees them (host pointers < 4 GiB).
struct tessel_cb_iface {
  uint32_t fifo_addr;  // first byte of the FIFO
  uint32_t fifo_limit; // one past the last byte
  uint32_t fifo_size;  // bytes
  uint32_t page_size;  // bytes
  uint32_t num_pages;
  uint32_t wr_ptr;         // producer's pointer
  uint32_t rd_ptr;         // consumer's pointer
  uint16_t received;       // pages pushed, mod 2^16
  uint16_t acked;          // pages popped, mod 2^16
  uint32_t reserved_pages; // pages the producer holds from its last reserve
  uint32_t waited_pages;   // pages the consumer holds from its last wait
  uint32_t data_format;    // tessel data-format code (Metalium numbering)
  uint32_t tile_size;      // bytes per tile of data_format
  uint32_t configured;     // 1 if the program configured this index on this core
};

struct tessel_kernel_ctx;

// The watchdog's words for the thread running the kernel (sim/watchdog.hpp):
// `stalled == progress + 1` means no progress for the watchdog's time. Read
// with relaxed atomic loads; written only by the simulator.
struct tessel_watch_words {
  uint64_t progress;
  uint64_t stalled;
};

// How a kernel tried to end the process or its thread; kernel_prelude.h
// replaces these calls in kernel code (see tessel_sim_api::kernel_exit, which
// receives the replaced function's own arguments a0..a3).
enum tessel_kernel_exit {
  TESSEL_EXIT_ABORT = 0,       // abort()
  TESSEL_EXIT_EXIT = 1,        // exit(a0 = status)
  TESSEL_EXIT_UNDERSCORE = 2,  // _exit(a0 = status)
  TESSEL_EXIT_UPPER = 3,       // _Exit(a0 = status)
  TESSEL_EXIT_QUICK = 4,       // quick_exit(a0 = status)
  TESSEL_EXIT_ASSERT = 5,      // __assert_fail(a0 = expression, a1 = file, a2 = line, a3 = function)
  TESSEL_EXIT_TERMINATE = 6,   // std::terminate()
  TESSEL_EXIT_STACK_SMASH = 7, // __stack_chk_fail()
  TESSEL_EXIT_THREAD_EXIT = 8, // pthread_exit(a0 = value)
};

// Compute engine calls: tessel/compute_abi.h.
#include "tessel/compute_abi.h"

// Device profiler (kernel/include/tessel/profiler.h). A call site of a
// profiler macro: static data in the kernel, alive while the kernel is loaded.
struct tessel_profiler_site {
  const char* name; // the zone's or data's name; "" for DeviceRecordEvent
  const char* file;
  uint32_t line;
  uint32_t timer_id; // Metalium's 16-bit hash of the name and site (DeviceRecordEvent: 0)
};
// What profiler_mark records. The first five are Metalium's marker types,
// in its numbering; the rest are requests the simulator turns into them.
enum tessel_profiler_mark {
  TESSEL_PROFILER_ZONE_START = 0,
  TESSEL_PROFILER_ZONE_END = 1,    // ends the innermost open zone (started at the same site)
  TESSEL_PROFILER_ZONE_TOTAL = 2,  // not from kernels: the simulator's, per accumulator, at the kernel's end
  TESSEL_PROFILER_TS_DATA = 3,     // data = the value
  TESSEL_PROFILER_TS_EVENT = 4,    // data = the event id
  TESSEL_PROFILER_SUM_START = 5,   // a DeviceZoneScopedSumN<data + 1> scope begins
  TESSEL_PROFILER_SUM_END = 6,     // and ends: its time is added to accumulator `data`
  TESSEL_PROFILER_SET_COUNTER = 7, // DeviceZoneSetCounter(data): the run host ID of later markers
};

// Function table into the simulator. Every call that can fail takes the call
// site; a failing call does not return (the kernel's fiber is stopped and the
// error is raised on the host thread).
struct tessel_sim_api {
  uint32_t abi_version;
  void (*cb_reserve_back)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t pages, const char* file, uint32_t line);
  void (*cb_push_back)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t pages, const char* file, uint32_t line);
  void (*cb_wait_front)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t pages, const char* file, uint32_t line);
  void (*cb_pop_front)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t pages, const char* file, uint32_t line);

  // NoC transfers. l1 arguments are kernel-visible L1 addresses of the caller.
  void (*noc_read)(struct tessel_kernel_ctx*, uint64_t src_noc_addr, uint32_t dst_l1, uint32_t size_bytes, uint32_t noc,
                   const char* file, uint32_t line);
  void (*noc_write)(struct tessel_kernel_ctx*, uint32_t src_l1, uint64_t dst_noc_addr, uint32_t size_bytes,
                    uint32_t noc, const char* file, uint32_t line);
  void (*noc_write_multicast)(struct tessel_kernel_ctx*, uint32_t src_l1, uint64_t dst_mcast_addr, uint32_t size_bytes,
                              uint32_t num_dests, uint32_t loopback_src, uint32_t noc, const char* file, uint32_t line);
  void (*noc_inline_write)(struct tessel_kernel_ctx*, uint64_t dst_noc_addr, uint32_t value, uint32_t byte_enable,
                           uint32_t noc, const char* file, uint32_t line);
  // kind: 0 read, 1 write, 2 writes flushed, 3 atomic, 4 full
  void (*noc_barrier)(struct tessel_kernel_ctx*, uint32_t kind, uint32_t noc, const char* file, uint32_t line);

  // Semaphores. wait mode: 0 equal, 1 at least.
  void (*sem_wait)(struct tessel_kernel_ctx*, volatile uint32_t* sem, uint32_t value, uint32_t mode, const char* file,
                   uint32_t line);
  void (*sem_set)(struct tessel_kernel_ctx*, volatile uint32_t* sem, uint32_t value, const char* file, uint32_t line);
  void (*sem_inc)(struct tessel_kernel_ctx*, uint64_t dst_noc_addr, uint32_t incr, uint32_t noc, const char* file,
                  uint32_t line);
  void (*sem_set_multicast)(struct tessel_kernel_ctx*, uint32_t src_l1, uint64_t dst_mcast_addr, uint32_t num_dests,
                            uint32_t loopback_src, uint32_t noc, const char* file, uint32_t line);

  // A kernel polls a CB (cb_pages_*) and the answer was no: let the other
  // RISCs run; with nothing else runnable this waits like cb_wait_front /
  // cb_reserve_back (front = 1 for the consumer's side).
  void (*cb_poll)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t pages, uint32_t front, const char* file,
                  uint32_t line);
  // A check in kernel code failed: message is the complete description.
  void (*fail)(struct tessel_kernel_ctx*, const char* message, const char* file, uint32_t line);
  // Failed checks whose message the simulator formats (kernels carry no
  // formatting code, which keeps them fast to compile).
  // `call(index)`: `what` index out of range; this core was given `count`.
  // Returns (after a warning) for a runtime-argument or common-argument read
  // inside the argument area (index < TESSEL_MAX_RUNTIME_ARGS): silicon reads
  // whatever the area holds there.
  void (*fail_index)(struct tessel_kernel_ctx*, const char* call, int32_t index, const char* what, uint32_t count,
                     const char* file, uint32_t line);
  // `call(cb=...)` on a CB index out of range or not configured on this core.
  void (*fail_cb)(struct tessel_kernel_ctx*, const char* call, uint32_t cb, const char* file, uint32_t line);
  // A DRAM (is_dram = 1) or L1 bank id that does not exist.
  void (*fail_bank)(struct tessel_kernel_ctx*, uint32_t is_dram, uint32_t bank, const char* file, uint32_t line);
  // get_semaphore(id) for a semaphore the program did not create on this core.
  void (*fail_semaphore)(struct tessel_kernel_ctx*, uint32_t id, const char* file, uint32_t line);
  // One DPRINT line (without prefix or newline).
  void (*dprint)(struct tessel_kernel_ctx*, const char* text, uint32_t length);
  // The kernel called a function that would end the process or its thread
  // (how: enum tessel_kernel_exit, with that function's first four
  // arguments); caller_pc is the return address in kernel code. Never returns.
  void (*kernel_exit)(struct tessel_kernel_ctx*, uint32_t how, uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3,
                      uintptr_t caller_pc);
  // A NoC address is being made from coordinates that do not fit 6 bits
  // (x1/y1 are the multicast end, 0 for unicast): returns the token
  // (1..TESSEL_NOC_POISON_TOKENS) of the poisoned address.
  uint32_t (*note_bad_noc_coord)(struct tessel_kernel_ctx*, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                                 uint32_t multicast, const char* file, uint32_t line);
  // An inline fast path (a satisfied semaphore wait or CB poll) found the
  // watchdog's stall (tessel_stalled): stop the kernel (this returns only
  // when the stall ended in between).
  void (*stalled)(struct tessel_kernel_ctx*, const char* call, const char* file, uint32_t line);

  // Compute engine. `call` is the API name for messages; a..c as in
  // tessel_compute_init (unused ones 0).
  void (*compute_init)(struct tessel_kernel_ctx*, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                       const char* file, uint32_t line);
  void (*dst_step)(struct tessel_kernel_ctx*, uint32_t step, const char* file, uint32_t line);
  // DST[idst] = CB tile (front of cb + itile), converted to float.
  void (*copy_tile)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                    uint32_t line);
  // DST[idst] (+)= A[i0] op B[i1] (enum tessel_binary_op).
  void (*binary_tiles)(struct tessel_kernel_ctx*, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                       uint32_t idst, const char* file, uint32_t line);
  // DST[idst] -> the next reserved page of cb (index < 0) or page `index` of the
  // reservation (out-of-order pack), in cb's format.
  void (*pack_tile)(struct tessel_kernel_ctx*, uint32_t idst, uint32_t cb, int32_t index, const char* file,
                    uint32_t line);
  // DST[idst + r * ct + c] += in0[i0 + r * kt] x in1[i1 + c] (in1 tiles transposed if
  // transpose) for r < rt, c < ct: matmul_tiles is rt = ct = kt = 1.
  void (*matmul)(struct tessel_kernel_ctx*, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
                 uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line);
  // DST[idst] (op)= reduce of in[itile] scaled by scaler[itile_scaler]; pool and dim as in the init
  // (checked against `pool_dim` = (pool << 4) | dim, the call's template arguments).
  void (*reduce_tile)(struct tessel_kernel_ctx*, uint32_t pool_dim, uint32_t cb, uint32_t cb_scaler, uint32_t itile,
                      uint32_t itile_scaler, uint32_t idst, const char* file, uint32_t line);
  // DST[idst] = transpose of cb[itile].
  void (*transpose_wh_tile)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                            uint32_t line);
  // DST[idst] = in0[i0] op broadcast(in1[i1]) (op: tessel_binary_op, bcast: tessel_bcast).
  void (*bcast_tiles)(struct tessel_kernel_ctx*, uint32_t op, uint32_t bcast, uint32_t cb0, uint32_t cb1, uint32_t i0,
                      uint32_t i1, uint32_t idst, const char* file, uint32_t line);
  // DST[idst] = op(DST[idst]) (enum tessel_sfpu_op); approx: the call's approximation mode.
  void (*sfpu_unary)(struct tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                     const char* file, uint32_t line);
  // DST[odst] = DST[idst0] op DST[idst1] (enum tessel_sfpu_binary_op).
  void (*sfpu_binary)(struct tessel_kernel_ctx*, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst,
                      const char* file, uint32_t line);
  // DST[odst] = op(DST[idst0], DST[idst1], DST[idst2]) (enum tessel_sfpu_ternary_op);
  // p0 per op (float bits of addcmul's and addcdiv's value; 0 for the others).
  void (*sfpu_ternary)(struct tessel_kernel_ctx*, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2,
                       uint32_t odst, uint32_t p0, const char* file, uint32_t line);
  // kind TESSEL_DEST_REUSE: DST[idst] = DST[idst] op cb[itile] (arg = (binary op << 4) |
  // TESSEL_REUSE_DEST_TO_SRCA) or cb[itile] op DST[idst] (TESSEL_REUSE_DEST_TO_SRCB);
  // kind TESSEL_UNARY_BCAST: DST[idst] = broadcast of cb[itile] (arg = enum tessel_bcast).
  void (*dest_tiles)(struct tessel_kernel_ctx*, uint32_t kind, uint32_t arg, uint32_t cb, uint32_t itile, uint32_t idst,
                     const char* file, uint32_t line);
  // copy_block_matmul_partials: DST[idst + i] = cb[itile + i] for i < n.
  void (*copy_block)(struct tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, uint32_t n,
                     const char* file, uint32_t line);

  // Generic extension hook for later layers; 0 if absent. id
  // TESSEL_EXTENSION_CARD: a persistent program's card (tessel_card_api,
  // tessel/persistent_abi.h).
  void* (*extension)(struct tessel_kernel_ctx*, uint32_t id);

  // SFPI (kernel/include/tessel/sfpi.h). An SFPU LLK call (`call`, at
  // file:line) opens the window onto the DST section MATH holds: this checks
  // the protocol and that the tiles in `tile_mask` (bit per DST index the
  // call names) are in the section, makes them readable, and fills the
  // context's `sfpi` window (row 0 = the section's first row).
  void (*sfpi_open)(struct tessel_kernel_ctx*, const char* call, uint32_t tile_mask, const char* file, uint32_t line);
  // dst_reg reached `row` (of the section), in a tile not in the window's
  // ready mask: makes that tile ready, or fails (no window, or beyond the
  // section). caller_pc locates a dst_reg use outside any window.
  void (*sfpi_reach)(struct tessel_kernel_ctx*, int32_t row, uintptr_t caller_pc);

  // DPRINT of a TileSlice: samples tile `tile_index` of cb (from its read or
  // write pointer) over range = {h0, h1, hs, w0, w1, ws}, decodes the values
  // in the CB's data format and prints them as Metalium's host printer does,
  // after the line the context's buffer holds (which it empties). flags:
  // TESSEL_TSLICE_*; precision: the statement's SETPRECISION.
  void (*dprint_tile_slice)(struct tessel_kernel_ctx*, uint32_t cb, int32_t tile_index, const uint16_t* range,
                            uint32_t flags, uint32_t precision, const char* file, uint32_t line);
  // Device profiler (called only while tessel_kernel_ctx::profiler_enabled):
  // records `mark` (enum tessel_profiler_mark) for `site` at this RISC's
  // clock. Returns 1 when recorded, 0 when this RISC's buffer had no room
  // and the marker was dropped (a ZONE_START dropped means no ZONE_END may
  // follow for it).
  uint32_t (*profiler_mark)(struct tessel_kernel_ctx*, uint32_t mark, const struct tessel_profiler_site* site,
                            uint64_t data);

  // Layout conversions (tessel/tilize.h; src/sim/compute_tilize.cpp). Each
  // runs its own DST acquire/commit/wait/release per step, as the LLK does,
  // except pack_untilize_dest, which packs the section PACK holds.
  // tilize_block (fast = 0) / fast_tilize_block (1): 32 rows of block tiles'
  // width from the front of icb (a row-major CB) -> pages output_tile_index ..
  // + block - 1 of ocb's reservation, as tiles.
  void (*tilize_block)(struct tessel_kernel_ctx*, uint32_t fast, uint32_t icb, uint32_t block, uint32_t ocb,
                       uint32_t input_tile_index, uint32_t output_tile_index, const char* file, uint32_t line);
  // untilize_block<block_ct_dim>: full_ct_dim tiles from the front of icb ->
  // the next full_ct_dim pages of ocb, as 32 rows of full_ct_dim tiles' width.
  void (*untilize_block)(struct tessel_kernel_ctx*, uint32_t icb, uint32_t block_ct_dim, uint32_t full_ct_dim,
                         uint32_t ocb, const char* file, uint32_t line);
  // pack_untilize_block (icb = an input CB) or pack_untilize_dest (icb =
  // TESSEL_NO_CB; DST tiles from dst_offset): block_rt_dim rows of
  // block_ct_dim tiles -> ocb from its write pointer, rows full_ct_dim tiles
  // wide, at column block block_c_index.
  void (*pack_untilize)(struct tessel_kernel_ctx*, uint32_t icb, uint32_t ocb, uint32_t block_ct_dim,
                        uint32_t full_ct_dim, uint32_t block_rt_dim, uint32_t block_c_index, uint32_t dst_offset,
                        const char* file, uint32_t line);

  // SFPU ops with state or a tile-wide layout (enum tessel_sfpu_state_op):
  // p0, p1 per op; idst unused by the ops without DST.
  void (*sfpu_state)(struct tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file,
                     uint32_t line);
  // Welford's algorithm on the compute core's running mean and M2 (op: enum
  // tessel_welford_op, with its a, b, c). lut: the call's reciprocal table of
  // lut_size words (float bits of 1 / (i + 1)); lut_size 0: none, 1 / (i + 1)
  // is computed.
  void (*welford)(struct tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c,
                  const uint32_t* lut, uint32_t lut_size, const char* file, uint32_t line);
};

// dprint_tile_slice flags.
#define TESSEL_TSLICE_RD_PTR 1u // sample from the read pointer (else the write pointer)
#define TESSEL_TSLICE_PTR_GIVEN                                                                                        \
  2u // the kernel named the pointer (else the RISC's own: BRISC/UNPACK read, NCRISC/PACK write)
#define TESSEL_TSLICE_ENDL_ROWS 4u // a line break after each row
#define TESSEL_TSLICE_UNTILIZE 8u  // (h, w) are row/column of the tile (else positions in tile memory order)
#define TESSEL_TSLICE_FIXED 16u    // FIXED() is in effect
#define TESSEL_TSLICE_HEX 32u      // HEX() is in effect
#define TESSEL_TSLICE_OCT 64u      // OCT() is in effect

// The SFPI window of a compute context: written by sfpi_open and by kernel
// code (sfpi.h), read by both. Rows are DST rows of 16 floats; a tile is 64.
struct tessel_sfpi_window {
  float* section;      // first float of the held section; NULL: no window is open
  uint32_t ready_mask; // bit t: tile t of the section may be read and written directly
  uint32_t row;        // the DST row cursor (RWC Dst): dst_reg[i] is row + 2 * i; dst_reg++ adds 2
  uint32_t face_row;   // where the current face starts (RWC Dst_Cr): the next face is face_row + 16
  uint32_t lanes;      // lane-enable mask of the SFPU's condition codes (v_if)
  uint32_t dst_32bit;  // 1 with fp32_dest_acc_en: stores keep all 32 bits
  uint32_t prgm[3];    // the programmable constants vConst*Prgm0..2 (bits)
  const char* call;    // the LLK call that opened the window, for messages
  const char* file;
  uint32_t line;
};

struct tessel_kernel_ctx {
  uint32_t abi_version;
  uint32_t risc;      // enum tessel_risc
  uint32_t noc_index; // default NoC of this kernel
  uint32_t logical_x, logical_y;
  uint32_t noc_x, noc_y; // this core's NoC coordinates

  uint32_t* rt_args; // in this core's L1
  uint32_t rt_arg_count;
  uint32_t* common_args; // in this core's L1
  uint32_t common_arg_count;

  struct tessel_cb_iface* cbs; // TESSEL_MAX_CBS entries, shared by the core's RISCs
  uint32_t num_cb_indices;     // arch limit (32 or 64)

  uint8_t* l1_base; // host pointer of L1 offset 0 (< 4 GiB)
  uint32_t l1_size_bytes;
  uint32_t semaphore_l1; // L1 address (kernel-visible) of semaphore 0
  uint32_t num_semaphores;
  uint32_t semaphore_mask; // bit i set: semaphore i exists on this core

  uint32_t l1_alignment;
  uint32_t dram_read_alignment;
  uint32_t dram_write_alignment;

  uint32_t num_dram_banks;
  uint32_t dram_bank_noc_xy[TESSEL_MAX_DRAM_BANKS]; // (y << 8) | x
  uint32_t num_l1_banks;
  uint32_t l1_bank_noc_xy[TESSEL_MAX_L1_BANKS]; // (y << 8) | x

  uint32_t dprint_enabled;
  uint32_t dprint_length;
  char dprint_buffer[256];

  // Compute kernels: their ComputeConfig (0 on data-movement RISCs).
  uint32_t fp32_dest_acc_en;
  uint32_t dst_full_sync_en;
  uint32_t math_fidelity; // MathFidelity: 0 LoFi, 2 HiFi2, 3 HiFi3, 4 HiFi4
  uint32_t math_approx_mode;
  uint64_t unpack_to_dest_fp32; // bit per CB index: ComputeConfig's UnpackToDestFp32

  const struct tessel_sim_api* api;
  const struct tessel_watch_words* watch; // set for every launch
  void* sim_core;                         // opaque to kernels
  void* sim_fiber;                        // opaque to kernels

  // Which compute thread a DPRINT line comes from (TESSEL_DPRINT_THREAD_*):
  // DPRINT_UNPACK/MATH/PACK set it for their body; a plain DPRINT in a
  // compute kernel prints once for each of the three threads, as on silicon.
  uint32_t dprint_thread;

  // SFPI state of the compute context (see tessel_sfpi_window).
  struct tessel_sfpi_window sfpi;

  // This RISC's simulated clock (profiler timestamps): one cycle per kernel
  // API call that reaches the simulator and per profiler marker, or with
  // timing on the estimated cycles (docs/timing.md); written only by
  // the simulator (docs/guide.md, "Profiler").
  uint64_t clock;
  // 1 if the device profiler records this RISC's markers (profiler_mark).
  uint32_t profiler_enabled;
  // Nonzero: inline fast paths that would not call the simulator (a
  // satisfied semaphore wait) call it. Set while the chip estimates time
  // (docs/timing.md), so the wait can advance the clock, and in tessel's
  // ThreadSanitizer builds, so the wait's acquire is seen (kernels are not
  // instrumented).
  uint32_t no_fast_paths;
};

#define TESSEL_DPRINT_THREAD_UNPACK 0u
#define TESSEL_DPRINT_THREAD_MATH 1u
#define TESSEL_DPRINT_THREAD_PACK 2u
#define TESSEL_DPRINT_THREAD_ALL 0xFFu // the RISC's own (every thread, on the compute RISC)

// Offsets the prelude's assembly stubs use (kernel_prelude.h), checked here.
// They are the LP64 layout; a 32-bit build (the RISC-V size estimate,
// src/jit/cross_build.hpp) has no stubs and other offsets.
#define TESSEL_CTX_API_OFFSET 1504
#define TESSEL_API_KERNEL_EXIT_OFFSET 168
#if defined(__cplusplus) && __SIZEOF_POINTER__ == 8
static_assert(__builtin_offsetof(struct tessel_kernel_ctx, api) == TESSEL_CTX_API_OFFSET, "kernel ABI layout");
static_assert(__builtin_offsetof(struct tessel_sim_api, kernel_exit) == TESSEL_API_KERNEL_EXIT_OFFSET,
              "kernel ABI layout");
#endif

// Locate the running fiber's context (see the slot diagram above).
static inline __attribute__((always_inline)) struct tessel_kernel_ctx* tessel_ctx(void) {
  uintptr_t sp;
#if defined(__x86_64__)
  __asm__("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
  __asm__("mov %0, sp" : "=r"(sp));
#else
  sp = (uintptr_t)__builtin_frame_address(0);
#endif
  return *(struct tessel_kernel_ctx**)(sp & ~(uintptr_t)(TESSEL_FIBER_SLOT_BYTES - 1u));
}

// Whether the watchdog found no progress for its time (see tessel_watch_words).
// Silicon has no watchdog, and rv32im no 64-bit atomic load (it would call
// libatomic), so the RISC-V size estimate (TESSEL_CROSS_ESTIMATE) leaves the
// poll out.
static inline int tessel_stalled(const struct tessel_kernel_ctx* k) {
#ifdef TESSEL_CROSS_ESTIMATE
  (void)k;
  return 0;
#else
  return __atomic_load_n(&k->watch->stalled, __ATOMIC_RELAXED) ==
         __atomic_load_n(&k->watch->progress, __ATOMIC_RELAXED) + 1;
#endif
}

// Coordinates the simulator gave (bank tables, the core's own): always in range.
static inline uint64_t tessel_noc_xy_addr(uint32_t x, uint32_t y, uint64_t local) {
  return ((uint64_t)y << (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) | ((uint64_t)x << TESSEL_NOC_LOCAL_BITS) |
         (local & TESSEL_NOC_LOCAL_MASK);
}

// Coordinates from kernel code: x1/y1 are a multicast rectangle's end.
static inline uint64_t tessel_noc_checked_addr(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t multicast,
                                               uint64_t local, const char* file, uint32_t line) {
  uint64_t a = tessel_noc_xy_addr(x0 & TESSEL_NOC_COORD_MASK, y0 & TESSEL_NOC_COORD_MASK, local) |
               ((uint64_t)(x1 & TESSEL_NOC_COORD_MASK) << (TESSEL_NOC_LOCAL_BITS + 2 * TESSEL_NOC_COORD_BITS)) |
               ((uint64_t)(y1 & TESSEL_NOC_COORD_MASK) << (TESSEL_NOC_LOCAL_BITS + 3 * TESSEL_NOC_COORD_BITS));
  if (__builtin_expect(((x0 | y0 | x1 | y1) & ~(uint32_t)TESSEL_NOC_COORD_MASK) != 0, 0)) {
    struct tessel_kernel_ctx* k = tessel_ctx();
    const uint32_t token = k->api->note_bad_noc_coord(k, x0, y0, x1, y1, multicast, file, line);
    a |= TESSEL_NOC_POISON_BIT | ((uint64_t)token << TESSEL_NOC_POISON_TOKEN_SHIFT);
  }
  return a;
}

#endif // TESSEL_KERNEL_ABI_H
