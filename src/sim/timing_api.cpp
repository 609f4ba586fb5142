// The kernel API's timed function table: while a chip is timed, every RISC's
// context points here (or at the traced table built over it). Each timed
// call runs the plain one without its one-step tick and charges its cost to
// the calling RISC's clock (the model: timing.hpp). Writes that another
// core may wait for (semaphores) are stamped before the plain call makes
// them visible, so a waiter on another thread never sees the value without
// its time.
#include <algorithm>
#include <bit>

#include "sim/chip.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/timing.hpp"

namespace tessel::sim {

namespace {

const tessel_sim_api* const g_unticked = unticked_api_table();
const tessel_sim_api& plain() { return *g_unticked; }
CoreTiming& core_timing(tessel_kernel_ctx* k) { return *core_of(k).timing; }
Timing& timing_of(tessel_kernel_ctx* k) { return *core_timing(k).owner; }
RiscTiming& risc_of(tessel_kernel_ctx* k) { return core_timing(k).risc[k->risc]; }

// A call's base cost.
inline void charge_call(tessel_kernel_ctx* k, const TimingCosts& c) { k->clock += c.call_cycles; }

// The clock moved up to `t` by a wait: counted as waiting.
inline void wait_until(tessel_kernel_ctx* k, uint64_t t) {
  if (t <= k->clock) return;
  risc_of(k).wait += t - k->clock;
  k->clock = t;
}

// A blocking call's advance (the waker's clock, Chip::make_ready).
inline void count_blocked(tessel_kernel_ctx* k, uint64_t before) {
  if (k->clock > before) risc_of(k).wait += k->clock - before;
}

uint32_t fidelity_phases(const tessel_kernel_ctx* k) { return std::max<uint32_t>(1, k->math_fidelity); }

// ---------------------------------------------------------------------------
// Circular buffers: pages carry their push (front) and pop (back) times.
// A page is numbered by the CB's 16-bit counters (pushes: received, pops:
// acked) and stamped at [number & (P - 1)] of a ring of a power-of-2 size
// P >= the CB's pages: no two pages a wait can ask for share an entry, and
// P divides 2^16, so the counters' wrap does not matter.

TESSEL_COLD void grow(CoreTiming::CbStamps& st, uint32_t num_pages) {
  const uint32_t pages = std::bit_ceil(std::clamp<uint32_t>(num_pages, 1, 1u << 16));
  if (pages <= st.pages) return;
  std::vector<uint64_t> times(size_t(pages) * 2, 0); // earlier stamps are no later than this run's start
  st.times.swap(times);
  st.pages = pages;
}

// The CB's stamps, grown to hold `num_pages` (only when a CB is larger than any before here).
inline CoreTiming::CbStamps& cb_stamps(tessel_kernel_ctx* k, uint32_t cb, uint32_t num_pages) {
  CoreTiming::CbStamps& st = core_timing(k).cb[cb];
  if (__builtin_expect(num_pages > st.pages, 0)) grow(st, num_pages);
  return st;
}

// After a push (front) or pop of `pages`: each page is stamped with the clock.
template <bool Front>
inline void stamp_pages(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages) {
  const tessel_cb_iface& q = k->cbs[cb];
  CoreTiming::CbStamps& st = cb_stamps(k, cb, q.num_pages);
  const uint32_t first = uint16_t((Front ? q.received : q.acked) - pages), mask = st.pages - 1;
  uint64_t* const times = st.times.data() + (Front ? 0 : 1);
  for (uint32_t i = 0; i < pages; ++i)
    times[2 * ((first + i) & mask)] = k->clock;
}

// After a CB wait (the plain call has returned: the pages are there): the
// blocked time, the call, and the clock moved up to when the last of the
// `pages` at the front was pushed (front: page acked + pages - 1) or the
// last of the `pages` at the back was freed (back: the pop of page
// received + pages - 1 - num_pages, the page that slot held a lap before).
template <bool Front>
inline void waited_for_pages(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, uint64_t before) {
  count_blocked(k, before);
  charge_call(k, timing_of(k).costs());
  const tessel_cb_iface& q = k->cbs[cb];
  const CoreTiming::CbStamps& st = cb_stamps(k, cb, q.num_pages);
  const uint32_t page = Front ? q.acked + pages - 1 : q.received + pages - 1 - q.num_pages;
  wait_until(k, st.times[2 * (page & (st.pages - 1)) + (Front ? 0 : 1)]);
}

void cb_reserve_back(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  const uint64_t before = k->clock;
  plain().cb_reserve_back(k, cb, pages, file, line);
  waited_for_pages<false>(k, cb, pages, before);
}

void cb_wait_front(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  const uint64_t before = k->clock;
  plain().cb_wait_front(k, cb, pages, file, line);
  waited_for_pages<true>(k, cb, pages, before);
}

// A push stamps its pages for the front's waits, a pop for the back's.
// (The plain call has checked the index and counted the pages.)
void cb_push_back(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  plain().cb_push_back(k, cb, pages, file, line);
  charge_call(k, timing_of(k).costs());
  stamp_pages<true>(k, cb, pages);
}

void cb_pop_front(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  plain().cb_pop_front(k, cb, pages, file, line);
  charge_call(k, timing_of(k).costs());
  stamp_pages<false>(k, cb, pages);
}

void cb_poll(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, uint32_t front, const char* file, uint32_t line) {
  const uint64_t before = k->clock;
  plain().cb_poll(k, cb, pages, front, file, line);
  count_blocked(k, before);
  charge_call(k, timing_of(k).costs());
}

// ---------------------------------------------------------------------------
// NoC

struct Target {
  uint32_t x, y;
  uint64_t local;
};

Target decode(uint64_t a) {
  return {uint32_t((a >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK),
          uint32_t((a >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK),
          a & TESSEL_NOC_LOCAL_MASK};
}

// Semaphores of `core` written by `bytes` at L1 `offset`: stamped with `t`.
void stamp_semaphores(Core& core, uint64_t offset, uint64_t bytes, uint64_t when) {
  CoreTiming& ct = *core.timing;
  for_each_semaphore_in(core, offset, bytes, [&](uint32_t s) { Timing::stamp_max(ct.semaphore[s], when); });
}

// A transfer of `bytes` between this RISC's core and `addr`, issued now on
// `noc`: its bytes booked on both ends' calendars; returns when its
// response (read data, write acknowledgement) is back, with when it lands
// at the far end and the far end's core (-1: DRAM or none).
struct Landing {
  uint64_t arrival;
  int core;
};

inline uint64_t unicast(tessel_kernel_ctx* k, uint64_t addr, uint64_t bytes, uint32_t noc, Landing& l) {
  Core& me = core_of(k);
  Timing& t = *me.timing->owner;
  const TimingCosts& c = t.costs();
  const Target to = decode(addr);
  const uint64_t start = k->clock;
  uint64_t passed, latency = c.noc_fixed_cycles;
  l.core = -1;
  if (int bank = me.chip->dram_bank_at_noc(to.x, to.y); bank >= 0) {
    passed = t.book_core_port_and_dram_bank(me.index, noc, uint32_t(bank), start, bytes);
    latency += c.dram_latency_cycles;
  } else {
    passed = t.book_core_port(me.index, noc, start, bytes);
    if (int far = me.chip->core_at_noc(to.x, to.y); far >= 0 && uint32_t(far) != me.index) {
      passed = std::max(passed, t.book_core_port(uint32_t(far), noc, start, bytes));
      l.core = far;
    }
  }
  const Timing::Hops h = t.hops(noc, me.noc_x, me.noc_y, to.x, to.y);
  // A read's request travels there and its data back; a write's data there, its acknowledgement back.
  l.arrival = passed + latency + uint64_t(h.there) * c.hop_cycles;
  return l.arrival + uint64_t(h.back) * c.hop_cycles;
}

inline void charge_write(tessel_kernel_ctx* k, uint64_t dst, uint64_t bytes, uint32_t noc) {
  Landing l;
  const uint64_t done = unicast(k, dst, bytes, noc, l);
  RiscTiming& r = risc_of(k);
  r.write_done = std::max(r.write_done, done);
  if (l.core >= 0) stamp_semaphores(core_of(k).chip->core(uint32_t(l.core)), decode(dst).local, bytes, l.arrival);
}

void noc_read(tessel_kernel_ctx* k, uint64_t src, uint32_t dst_l1, uint32_t size, uint32_t noc, const char* file,
              uint32_t line) {
  plain().noc_read(k, src, dst_l1, size, noc, file, line);
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  Landing l;
  const uint64_t done = unicast(k, src, size, noc, l);
  RiscTiming& r = risc_of(k);
  r.read_done = std::max(r.read_done, done);
}

void noc_write(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t dst, uint32_t size, uint32_t noc, const char* file,
               uint32_t line) {
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  charge_write(k, dst, size, noc);
  plain().noc_write(k, src_l1, dst, size, noc, file, line);
}

void noc_inline_write(tessel_kernel_ctx* k, uint64_t dst, uint32_t value, uint32_t be, uint32_t noc, const char* file,
                      uint32_t line) {
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  charge_write(k, dst, 4, noc);
  plain().noc_inline_write(k, dst, value, be, noc, file, line);
}

void sem_inc(tessel_kernel_ctx* k, uint64_t dst, uint32_t incr, uint32_t noc, const char* file, uint32_t line) {
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  charge_write(k, dst, 4, noc);
  plain().sem_inc(k, dst, incr, noc, file, line);
}

// A multicast: the sender's port carries the bytes once; they land at the
// rectangle's farthest core. (The destinations' ports are not booked.)
void charge_multicast(tessel_kernel_ctx* k, uint64_t mcast, uint64_t bytes, uint32_t noc) {
  Timing& t = timing_of(k);
  const TimingCosts& c = t.costs();
  Core& me = core_of(k);
  Chip& chip = *me.chip;
  const Target a = decode(mcast);
  const uint32_t x1 = uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + 2 * TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  const uint32_t y1 = uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + 3 * TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  const uint32_t xlo = std::min(a.x, x1), xhi = std::max(a.x, x1), ylo = std::min(a.y, y1), yhi = std::max(a.y, y1);
  uint32_t far = 0;
  for (uint32_t x : {xlo, xhi})
    for (uint32_t y : {ylo, yhi}) {
      const Timing::Hops h = t.hops(noc, me.noc_x, me.noc_y, x, y);
      far = std::max(far, h.there + h.back);
    }
  const uint64_t passed = t.book_core_port(me.index, noc, k->clock, bytes);
  const uint64_t arrival = passed + c.noc_fixed_cycles + uint64_t(far) * c.hop_cycles / 2;
  RiscTiming& r = risc_of(k);
  r.write_done = std::max(r.write_done, passed + c.noc_fixed_cycles + uint64_t(far) * c.hop_cycles);
  // Semaphores written in the rectangle (only when the bytes reach the semaphore words).
  const uint64_t first = me.ctx[0].semaphore_l1 & TESSEL_L1_SLOT_MASK;
  const uint64_t off = a.local & TESSEL_L1_SLOT_MASK;
  if (off >= first + uint64_t(TESSEL_MAX_SEMAPHORES) * TESSEL_SEMAPHORE_STRIDE_BYTES || off + bytes <= first) return;
  for (uint32_t y = ylo; y <= yhi; ++y)
    for (uint32_t x = xlo; x <= xhi; ++x)
      if (int ci = chip.core_at_noc(x, y); ci >= 0) stamp_semaphores(chip.core(uint32_t(ci)), off, bytes, arrival);
}

void noc_write_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t size, uint32_t num_dests,
                         uint32_t loopback, uint32_t noc, const char* file, uint32_t line) {
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  charge_multicast(k, mcast, size, noc);
  plain().noc_write_multicast(k, src_l1, mcast, size, num_dests, loopback, noc, file, line);
}

void sem_set_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t num_dests, uint32_t loopback,
                       uint32_t noc, const char* file, uint32_t line) {
  const TimingCosts& c = timing_of(k).costs();
  k->clock += c.call_cycles + c.noc_issue_cycles;
  charge_multicast(k, mcast, 4, noc);
  plain().sem_set_multicast(k, src_l1, mcast, num_dests, loopback, noc, file, line);
}

void noc_barrier(tessel_kernel_ctx* k, uint32_t kind, uint32_t noc, const char* file, uint32_t line) {
  plain().noc_barrier(k, kind, noc, file, line);
  charge_call(k, timing_of(k).costs());
  const RiscTiming& r = risc_of(k);
  wait_until(k, kind == 0 ? r.read_done : kind == 4 ? std::max(r.read_done, r.write_done) : r.write_done);
}

// ---------------------------------------------------------------------------
// Semaphores: each word carries the time it was last written

uint32_t semaphore_index(tessel_kernel_ctx* k, volatile uint32_t* sem) {
  const uint64_t offset = uintptr_t(sem) & TESSEL_L1_SLOT_MASK;
  const uint64_t first = k->semaphore_l1 & TESSEL_L1_SLOT_MASK;
  const uint64_t index = (offset - first) / TESSEL_SEMAPHORE_STRIDE_BYTES;
  return offset >= first && index < TESSEL_MAX_SEMAPHORES ? uint32_t(index) : TESSEL_MAX_SEMAPHORES;
}

void sem_wait(tessel_kernel_ctx* k, volatile uint32_t* sem, uint32_t value, uint32_t mode, const char* file,
              uint32_t line) {
  const uint64_t before = k->clock;
  plain().sem_wait(k, sem, value, mode, file, line);
  count_blocked(k, before);
  charge_call(k, timing_of(k).costs());
  if (uint32_t s = semaphore_index(k, sem); s < TESSEL_MAX_SEMAPHORES)
    wait_until(k, core_timing(k).semaphore[s].load(std::memory_order_relaxed));
}

void sem_set(tessel_kernel_ctx* k, volatile uint32_t* sem, uint32_t value, const char* file, uint32_t line) {
  charge_call(k, timing_of(k).costs());
  if (uint32_t s = semaphore_index(k, sem); s < TESSEL_MAX_SEMAPHORES)
    Timing::stamp_max(core_timing(k).semaphore[s], k->clock);
  plain().sem_set(k, sem, value, file, line);
}

// ---------------------------------------------------------------------------
// Compute: per-tile latencies (the MATH thread's; unpack and pack overlap it
// on silicon, so only explicit copies and packs are charged their bytes)

inline void charge_compute(tessel_kernel_ctx* k, uint64_t cycles) {
  k->clock += timing_of(k).costs().call_cycles + cycles;
}

uint32_t cb_tile_bytes(tessel_kernel_ctx* k, uint32_t cb) {
  return cb < TESSEL_MAX_CBS && k->cbs[cb].tile_size ? k->cbs[cb].tile_size : 2048;
}

void compute_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                  const char* file, uint32_t line) {
  plain().compute_init(k, init, call, a, b, c, file, line);
  charge_compute(k, 0);
}

void dst_step(tessel_kernel_ctx* k, uint32_t step, const char* file, uint32_t line) {
  plain().dst_step(k, step, file, line);
  charge_compute(k, 0);
}

void copy_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file, uint32_t line) {
  plain().copy_tile(k, cb, itile, idst, file, line);
  const TimingCosts& c = timing_of(k).costs();
  charge_compute(k, cb_tile_bytes(k, cb) / c.unpack_bytes_per_cycle + c.eltwise_tile_cycles);
}

void copy_block(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, uint32_t n, const char* file,
                uint32_t line) {
  plain().copy_block(k, cb, itile, idst, n, file, line);
  const TimingCosts& c = timing_of(k).costs();
  charge_compute(k, uint64_t(n) * (cb_tile_bytes(k, cb) / c.unpack_bytes_per_cycle + c.eltwise_tile_cycles));
}

uint64_t eltwise_cycles(tessel_kernel_ctx* k, uint32_t op) {
  const uint64_t base = timing_of(k).costs().eltwise_tile_cycles;
  return op == TESSEL_BINARY_MUL ? base * fidelity_phases(k) : base;
}

void binary_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                  uint32_t idst, const char* file, uint32_t line) {
  plain().binary_tiles(k, op, cb0, cb1, i0, i1, idst, file, line);
  charge_compute(k, eltwise_cycles(k, op));
}

void bcast_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t bcast, uint32_t cb0, uint32_t cb1, uint32_t i0,
                 uint32_t i1, uint32_t idst, const char* file, uint32_t line) {
  plain().bcast_tiles(k, op, bcast, cb0, cb1, i0, i1, idst, file, line);
  charge_compute(k, eltwise_cycles(k, op));
}

void dest_tiles(tessel_kernel_ctx* k, uint32_t kind, uint32_t arg, uint32_t cb, uint32_t itile, uint32_t idst,
                const char* file, uint32_t line) {
  plain().dest_tiles(k, kind, arg, cb, itile, idst, file, line);
  const TimingCosts& c = timing_of(k).costs();
  charge_compute(k, kind == TESSEL_UNARY_BCAST ? cb_tile_bytes(k, cb) / c.unpack_bytes_per_cycle + c.eltwise_tile_cycles
                                               : eltwise_cycles(k, arg >> 4));
}

void reduce_tile(tessel_kernel_ctx* k, uint32_t pool_dim, uint32_t cb, uint32_t cb_scaler, uint32_t itile,
                 uint32_t itile_scaler, uint32_t idst, const char* file, uint32_t line) {
  plain().reduce_tile(k, pool_dim, cb, cb_scaler, itile, itile_scaler, idst, file, line);
  const uint64_t base = timing_of(k).costs().reduce_tile_cycles;
  charge_compute(k, (pool_dim >> 4) == TESSEL_POOL_MAX ? base : base * fidelity_phases(k));
}

void transpose_wh_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                       uint32_t line) {
  plain().transpose_wh_tile(k, cb, itile, idst, file, line);
  charge_compute(k, timing_of(k).costs().transpose_tile_cycles);
}

void matmul(tessel_kernel_ctx* k, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
            uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line) {
  plain().matmul(k, cb0, cb1, i0, i1, idst, transpose, ct, rt, kt, file, line);
  const uint64_t tiles = uint64_t(ct) * rt * kt;
  charge_compute(k, tiles * timing_of(k).costs().matmul_tile_cycles * fidelity_phases(k));
}

bool complex_sfpu(uint32_t op) {
  switch (op) {
  case TESSEL_SFPU_EXP:
  case TESSEL_SFPU_EXP2:
  case TESSEL_SFPU_LOG:
  case TESSEL_SFPU_SQRT:
  case TESSEL_SFPU_RSQRT:
  case TESSEL_SFPU_RECIP:
  case TESSEL_SFPU_GELU:
  case TESSEL_SFPU_SIGMOID:
  case TESSEL_SFPU_TANH:
  case TESSEL_SFPU_SILU:
  case TESSEL_SFPU_POWER:
  case TESSEL_SFPU_SIN:
  case TESSEL_SFPU_COS:
  case TESSEL_SFPU_ERF:
  case TESSEL_SFPU_ERFC:
  case TESSEL_SFPU_ERFINV:
  case TESSEL_SFPU_ASIN:
  case TESSEL_SFPU_ACOS:
  case TESSEL_SFPU_ATAN:
  case TESSEL_SFPU_ASINH:
  case TESSEL_SFPU_ACOSH:
  case TESSEL_SFPU_ATANH:
  case TESSEL_SFPU_SINH:
  case TESSEL_SFPU_COSH:
  case TESSEL_SFPU_TAN:
  case TESSEL_SFPU_LOG1P:
  case TESSEL_SFPU_EXPM1:
  case TESSEL_SFPU_LOG_WITH_BASE:
  case TESSEL_SFPU_ELU:
  case TESSEL_SFPU_SELU:
  case TESSEL_SFPU_SOFTSIGN:
  case TESSEL_SFPU_ROUND: return true;
  default: return false;
  }
}

void sfpu_unary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                const char* file, uint32_t line) {
  plain().sfpu_unary(k, op, idst, p0, p1, approx, file, line);
  const TimingCosts& c = timing_of(k).costs();
  charge_compute(k, complex_sfpu(op) ? c.sfpu_complex_tile_cycles : c.sfpu_simple_tile_cycles);
}

void sfpu_state(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file,
                uint32_t line) {
  plain().sfpu_state(k, op, idst, p0, p1, file, line);
  // The inits and ema_clear_previous_output load registers; the others run over a tile.
  if (op == TESSEL_SFPU_STATE_RAND_INIT || op == TESSEL_SFPU_STATE_EMA_INIT || op == TESSEL_SFPU_STATE_EMA_CLEAR ||
      op == TESSEL_SFPU_STATE_SUM_INT_INIT)
    return;
  charge_compute(k, timing_of(k).costs().sfpu_simple_tile_cycles);
}

void sfpu_binary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file,
                 uint32_t line) {
  plain().sfpu_binary(k, op, idst0, idst1, odst, file, line);
  const TimingCosts& c = timing_of(k).costs();
  const bool complex =
      op == TESSEL_SFPU_BINARY_DIV || op == TESSEL_SFPU_BINARY_DIV_NO_NAN || op == TESSEL_SFPU_BINARY_POW;
  charge_compute(k, complex ? c.sfpu_complex_tile_cycles : c.sfpu_simple_tile_cycles);
}

// where: a select, as cheap as a simple op.
void sfpu_ternary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst,
                  uint32_t p0, const char* file, uint32_t line) {
  plain().sfpu_ternary(k, op, idst0, idst1, idst2, odst, p0, file, line);
  charge_compute(k, timing_of(k).costs().sfpu_simple_tile_cycles);
}

void sfpi_open(tessel_kernel_ctx* k, const char* call, uint32_t tile_mask, const char* file, uint32_t line) {
  plain().sfpi_open(k, call, tile_mask, file, line);
  charge_compute(k, uint64_t(std::popcount(tile_mask)) * timing_of(k).costs().sfpu_simple_tile_cycles);
}

void pack_tile(tessel_kernel_ctx* k, uint32_t idst, uint32_t cb, int32_t index, const char* file, uint32_t line) {
  plain().pack_tile(k, idst, cb, index, file, line);
  charge_compute(k, cb_tile_bytes(k, cb) / timing_of(k).costs().pack_bytes_per_cycle);
}

// Tilize and untilize: per tile, its bytes in, a copy through DST and its
// bytes out (the LLK's unpack, datacopy and pack of each tile).
uint64_t layout_tile_cycles(tessel_kernel_ctx* k, uint32_t icb, uint32_t ocb) {
  const TimingCosts& c = timing_of(k).costs();
  return cb_tile_bytes(k, icb) / c.unpack_bytes_per_cycle + c.eltwise_tile_cycles +
         cb_tile_bytes(k, ocb) / c.pack_bytes_per_cycle;
}

void tilize_block(tessel_kernel_ctx* k, uint32_t fast, uint32_t icb, uint32_t block, uint32_t ocb, uint32_t in_index,
                  uint32_t out_index, const char* file, uint32_t line) {
  plain().tilize_block(k, fast, icb, block, ocb, in_index, out_index, file, line);
  charge_compute(k, uint64_t(block) * layout_tile_cycles(k, icb, ocb));
}

void untilize_block(tessel_kernel_ctx* k, uint32_t icb, uint32_t block_ct_dim, uint32_t full_ct_dim, uint32_t ocb,
                    const char* file, uint32_t line) {
  plain().untilize_block(k, icb, block_ct_dim, full_ct_dim, ocb, file, line);
  charge_compute(k, uint64_t(full_ct_dim) * layout_tile_cycles(k, icb, ocb));
}

// pack_untilize_dest (icb = TESSEL_NO_CB) only packs: its tiles' bytes out.
void pack_untilize(tessel_kernel_ctx* k, uint32_t icb, uint32_t ocb, uint32_t block_ct_dim, uint32_t full_ct_dim,
                   uint32_t block_rt_dim, uint32_t block_c_index, uint32_t dst_offset, const char* file,
                   uint32_t line) {
  plain().pack_untilize(k, icb, ocb, block_ct_dim, full_ct_dim, block_rt_dim, block_c_index, dst_offset, file, line);
  const uint64_t tiles = uint64_t(block_rt_dim) * block_ct_dim;
  charge_compute(k, tiles * (icb == TESSEL_NO_CB ? cb_tile_bytes(k, ocb) / timing_of(k).costs().pack_bytes_per_cycle
                                                 : layout_tile_cycles(k, icb, ocb)));
}

// An update streams a tile through the SFPU's recurrence; the other Welford
// calls move two registers.
void welford(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c, const uint32_t* lut,
             uint32_t lut_size, const char* file, uint32_t line) {
  plain().welford(k, op, idst, a, b, c, lut, lut_size, file, line);
  const TimingCosts& costs = timing_of(k).costs();
  charge_compute(k, op == TESSEL_WELFORD_UPDATE || op == TESSEL_WELFORD_UPDATE_ROWS ? costs.sfpu_complex_tile_cycles
                                                                                    : costs.sfpu_simple_tile_cycles);
}

tessel_sim_api make_table() {
  tessel_sim_api t = plain();
  t.cb_reserve_back = cb_reserve_back;
  t.cb_push_back = cb_push_back;
  t.cb_wait_front = cb_wait_front;
  t.cb_pop_front = cb_pop_front;
  t.cb_poll = cb_poll;
  t.noc_read = noc_read;
  t.noc_write = noc_write;
  t.noc_write_multicast = noc_write_multicast;
  t.noc_inline_write = noc_inline_write;
  t.noc_barrier = noc_barrier;
  t.sem_wait = sem_wait;
  t.sem_set = sem_set;
  t.sem_inc = sem_inc;
  t.sem_set_multicast = sem_set_multicast;
  t.compute_init = compute_init;
  t.dst_step = dst_step;
  t.copy_tile = copy_tile;
  t.copy_block = copy_block;
  t.dest_tiles = dest_tiles;
  t.binary_tiles = binary_tiles;
  t.bcast_tiles = bcast_tiles;
  t.reduce_tile = reduce_tile;
  t.transpose_wh_tile = transpose_wh_tile;
  t.matmul = matmul;
  t.sfpu_unary = sfpu_unary;
  t.sfpu_binary = sfpu_binary;
  t.sfpu_ternary = sfpu_ternary;
  t.sfpu_state = sfpu_state;
  t.sfpi_open = sfpi_open;
  t.pack_tile = pack_tile;
  t.tilize_block = tilize_block;
  t.untilize_block = untilize_block;
  t.pack_untilize = pack_untilize;
  t.welford = welford;
  return t;
}

} // namespace

const tessel_sim_api* timed_api_table() {
  static const tessel_sim_api table = make_table();
  return &table;
}

void count_card_wait(tessel_kernel_ctx& k, uint64_t before) {
  if (core_of(&k).timing) count_blocked(&k, before);
}

} // namespace tessel::sim
