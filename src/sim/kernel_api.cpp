// The simulator side of the kernel ABI: circular buffers, kernel-raised
// failures and exits, and the function table (NoC transfers and semaphores
// are in noc_api.cpp, DPRINT in dprint_api.cpp, the compute engine in
// compute.cpp).
//
// CB protocol (TT-Metalium semantics, design §2.1):
//  - received/acked are 16-bit counters; visible = received - acked (mod 2^16),
//    free = num_pages - visible.
//  - A reserved block and a waited block are contiguous: pointers wrap only
//    when they land exactly on fifo_limit, so within one lap the pushes (and
//    the pops) must add up to exactly the CB's page count. A reserve or wait
//    that would run past the end is an error, as the watcher's overrun is.
//  - A push may not exceed the pages the producer has reserved; a pop may not
//    exceed the pages the consumer has waited for. Reserves and waits are
//    cumulative: reserving (waiting for) n pages holds max(n, pages held).
//  - One producer RISC and one consumer RISC per CB per core per launch.
#include <algorithm>
#include <string>
#include <string_view>

#include "sim/chip.hpp"
#include "sim/fabric.hpp"
#include "sim/dprint_api.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/noc_api.hpp"
#include "sim/profiler.hpp"
#include "sim/sfpi_api.hpp"
#include "sim/timing.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

// A CB index that is out of range or not configured on this core (also
// reported for kernel-side checks, through api_fail_cb).
void cb_unusable(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  std::string m = std::string(call) + "(cb=" + std::to_string(cb) + "): ";
  if (cb >= k->num_cb_indices)
    m += "CB index out of range: this architecture has " + std::to_string(k->num_cb_indices) + " CB indices (0.." +
         std::to_string(k->num_cb_indices - 1) + ")";
  else
    m += "CB " + std::to_string(cb) + " is not configured on this core by the program";
  fail(k, std::move(m), file, line);
}

namespace {

// ---------------------------------------------------------------------------
// Circular buffers

[[noreturn]] TESSEL_COLD void cb_misuse(tessel_kernel_ctx* k, const char* call, uint32_t cb, uint32_t pages,
                                        const char* file, uint32_t line) {
  if (cb >= k->num_cb_indices || !core_of(k).cbs[cb].configured) cb_unusable(k, call, cb, file, line);
  const tessel_cb_iface& q = core_of(k).cbs[cb];
  if (pages == 0 || pages > q.num_pages)
    fail(k,
         std::string(call) + "(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) + "): CB " +
             std::to_string(cb) + " has " + std::to_string(q.num_pages) + " pages; expected 1.." +
             std::to_string(q.num_pages),
         file, line);
  fail(k, std::string(call) + ": internal error: CB check failed without a reason", file, line);
}

// A CB call for 0 pages: silicon waits for nothing and moves no pointer, so
// it runs, but it is a likely bug (a page count computed as 0), a warning.
TESSEL_COLD void zero_pages(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  core_of(k).chip->warn(fiber_of(k),
                        std::string(call) + "(cb=" + std::to_string(cb) +
                            ", pages=0): 0 pages; silicon does nothing here (it waits for no pages and moves no "
                            "pointer), so the call has no effect: expected 1.." +
                            std::to_string(core_of(k).cbs[cb].num_pages) + " pages",
                        file, line);
}

inline tessel_cb_iface& checked_cb(tessel_kernel_ctx* k, const char* call, uint32_t cb, uint32_t pages,
                                   const char* file, uint32_t line) {
  if (__builtin_expect(cb < k->num_cb_indices, 1)) {
    tessel_cb_iface& q = core_of(k).cbs[cb];
    if (__builtin_expect(q.configured && pages - 1u < q.num_pages, 1)) return q;
    if (q.configured && pages == 0) {
      zero_pages(k, call, cb, file, line);
      return q;
    }
  }
  cb_misuse(k, call, cb, pages, file, line);
}

[[noreturn]] TESSEL_COLD void role_conflict(tessel_kernel_ctx* k, const uint8_t* roles, const Core::RoleSite* sites,
                                            const char* role, const char* call, uint32_t cb, const char* file,
                                            uint32_t line) {
  const Core::RoleSite& first = sites[cb];
  std::string where = first.file ? " at " + std::string(first.file) + ":" + std::to_string(first.line) : "";
  fail(k,
       std::string(call) + "(cb=" + std::to_string(cb) + "): CB " + std::to_string(cb) + " already has a " + role +
           " on this core (" + Chip::risc_name(roles[cb] - 1u) + where + "); a CB has one " + role + " RISC",
       file, line);
}

inline void claim_role(tessel_kernel_ctx* k, uint8_t* roles, Core::RoleSite* sites, const char* role, const char* call,
                       uint32_t cb, const char* file, uint32_t line) {
  const uint8_t me = uint8_t(k->risc + 1);
  if (__builtin_expect(roles[cb] == me, 1)) return;
  if (roles[cb] != 0) role_conflict(k, roles, sites, role, call, cb, file, line);
  roles[cb] = me;
  sites[cb] = {file, line};
}

[[noreturn]] TESSEL_COLD void lap_error(tessel_kernel_ctx* k, const tessel_cb_iface& q, uint32_t ptr, const char* call,
                                        uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  uint32_t at = (ptr - q.fifo_addr) / q.page_size;
  fail(k,
       std::string(call) + "(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) + ") at page " +
           std::to_string(at) + " of a " + std::to_string(q.num_pages) +
           "-page CB would run past its end: the CB pointer wraps only at its limit, so within one lap "
           "the pages must add up to exactly " +
           std::to_string(q.num_pages),
       file, line);
}

inline void check_contiguous(tessel_kernel_ctx* k, const tessel_cb_iface& q, uint32_t ptr, const char* call,
                             uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  if (__builtin_expect(ptr - q.fifo_addr + pages * q.page_size > q.fifo_size, 0))
    lap_error(k, q, ptr, call, cb, pages, file, line);
}

std::string push_head(uint32_t cb, uint32_t pages, uint32_t reserved) {
  return "cb_push_back(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) +
         "): pushes more pages than are reserved (" + std::to_string(reserved) + ")";
}

// A push of more pages than the producer reserved. Silicon pushes them (a
// reservation is only a wait for room): when the CB has the room and the pages
// do not run past its end, that is a likely bug, a warning; otherwise the push
// would overwrite pages the consumer can still read, an error. (Each message
// is built in the statement that hands it on: a failing fiber's frames are
// abandoned.)
TESSEL_COLD void push_beyond_reserve(tessel_kernel_ctx* k, const tessel_cb_iface& q, uint32_t cb, uint32_t pages,
                                     const char* file, uint32_t line) {
  check_contiguous(k, q, q.wr_ptr, "cb_push_back", cb, pages, file, line);
  if (pages > free_pages(q)) {
    std::string m = push_head(cb, pages, q.reserved_pages) + ", and more than the CB has free (" +
                    std::to_string(free_pages(q)) + " of " + std::to_string(q.num_pages) +
                    "): the consumer has not popped the rest, so this would overwrite pages it can still read; call "
                    "cb_reserve_back for them first";
    fail(k, std::move(m), file, line);
  }
  core_of(k).chip->warn(fiber_of(k),
                        push_head(cb, pages, q.reserved_pages) +
                            "; the CB has room for them, so silicon runs this, but nothing waited for that room: "
                            "call cb_reserve_back for them first",
                        file, line);
}

[[noreturn]] TESSEL_COLD void pop_error(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, uint32_t waited,
                                        const char* file, uint32_t line) {
  fail(k,
       "cb_pop_front(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) +
           "): pops more pages than the consumer has waited for (" + std::to_string(waited) +
           "); cb_wait_front counts are cumulative: wait for the total before popping it",
       file, line);
}

// A pop of more pages than the consumer waited for. On a CB that is a
// buffer's memory (set_globally_allocated_address) the pages hold the
// buffer's data and silicon moves past them: a likely bug, a warning, while
// the pages lie within the CB. Anywhere else the pages may not have arrived:
// an error.
TESSEL_COLD void pop_beyond_wait(tessel_kernel_ctx* k, const tessel_cb_iface& q, uint32_t cb, uint32_t pages,
                                 const char* file, uint32_t line) {
  if (!(core_of(k).cb_global_mask >> cb & 1) || pages > q.num_pages)
    pop_error(k, cb, pages, q.waited_pages, file, line);
  core_of(k).chip->warn(fiber_of(k),
                        "cb_pop_front(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) +
                            "): pops more pages than the consumer has waited for (" + std::to_string(q.waited_pages) +
                            "); the CB is a buffer's memory (set_globally_allocated_address), so silicon moves past "
                            "the buffer's data, but nothing said it was ready: call cb_wait_front first",
                        file, line);
}

[[noreturn]] TESSEL_COLD void in_flight_error(tessel_kernel_ctx* k, const char* call, uint32_t cb, uint32_t pages,
                                              const InFlight::Range& r, bool read, const char* file, uint32_t line) {
  fail(k,
       std::string(call) + "(cb=" + std::to_string(cb) + ", pages=" + std::to_string(pages) + "): " +
           (read ? "these pages are still being filled by a noc_async_read issued at "
                 : "these pages are still being read by a noc_async_write issued at ") +
           (r.file ? r.file : "?") + ":" + std::to_string(r.line) + "; call " +
           (read ? "noc_async_read_barrier() before cb_push_back"
                 : "noc_async_write_barrier() (or noc_async_writes_flushed()) before cb_pop_front"),
       file, line);
}

// Pages [ptr, ptr + pages) of a CB must not be the target (reads) or source
// (writes) of a transfer this RISC has not waited for.
inline void check_not_in_flight(tessel_kernel_ctx* k, const InFlight& q, const tessel_cb_iface& cb_iface, uint32_t ptr,
                                const char* call, uint32_t cb, uint32_t pages, bool read, const char* file,
                                uint32_t line) {
  if (__builtin_expect(q.count == 0, 1)) return;
  const uint32_t lo = ptr & TESSEL_L1_SLOT_MASK;
  if (const InFlight::Range* r = q.overlapping(lo, lo + pages * cb_iface.page_size))
    in_flight_error(k, call, cb, pages, *r, read, file, line);
}

void api_cb_reserve_back(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "cb_reserve_back", file, line);
  tessel_cb_iface& q = checked_cb(k, "cb_reserve_back", cb, pages, file, line);
  Core& c = core_of(k);
  claim_role(k, c.cb_producer, c.cb_producer_site, "producer", "cb_reserve_back", cb, file, line);
  check_contiguous(k, q, q.wr_ptr, "cb_reserve_back", cb, pages, file, line);
  while (free_pages(q) < pages) {
    Fiber* f = fiber_of(k);
    f->wait = {WaitKind::CbBack, cb, pages, nullptr, 0, file, line};
    c.cb_back_waiter[cb] = f;
    c.chip->block(f);
  }
  q.reserved_pages = std::max(q.reserved_pages, pages);
}

void api_cb_push_back(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  tessel_cb_iface& q = checked_cb(k, "cb_push_back", cb, pages, file, line);
  Core& c = core_of(k);
  claim_role(k, c.cb_producer, c.cb_producer_site, "producer", "cb_push_back", cb, file, line);
  if (__builtin_expect(pages > q.reserved_pages, 0)) push_beyond_reserve(k, q, cb, pages, file, line);
  check_not_in_flight(k, fiber_of(k)->reads, q, q.wr_ptr, "cb_push_back", cb, pages, true, file, line);
  q.reserved_pages -= std::min(pages, q.reserved_pages);
  if (k->risc == TESSEL_RISC_COMPUTE) c.compute->pack_cursor[cb] = 0; // pack_tile restarts at the new wr_ptr
  note_pages(*t_watch, pages);
  q.received = uint16_t(q.received + pages);
  q.wr_ptr += pages * q.page_size;
  if (q.wr_ptr == q.fifo_limit) q.wr_ptr = q.fifo_addr;
  if (Fiber* w = c.cb_front_waiter[cb]; w && visible_pages(q) >= w->wait.pages) {
    c.cb_front_waiter[cb] = nullptr;
    c.chip->make_ready(w);
  }
}

void api_cb_wait_front(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "cb_wait_front", file, line);
  tessel_cb_iface& q = checked_cb(k, "cb_wait_front", cb, pages, file, line);
  Core& c = core_of(k);
  claim_role(k, c.cb_consumer, c.cb_consumer_site, "consumer", "cb_wait_front", cb, file, line);
  check_contiguous(k, q, q.rd_ptr, "cb_wait_front", cb, pages, file, line);
  while (visible_pages(q) < pages) {
    Fiber* f = fiber_of(k);
    f->wait = {WaitKind::CbFront, cb, pages, nullptr, 0, file, line};
    c.cb_front_waiter[cb] = f;
    c.chip->block(f);
  }
  q.waited_pages = std::max(q.waited_pages, pages);
}

void api_cb_pop_front(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  core_of(k).chip->note_progress();
  tessel_cb_iface& q = checked_cb(k, "cb_pop_front", cb, pages, file, line);
  Core& c = core_of(k);
  claim_role(k, c.cb_consumer, c.cb_consumer_site, "consumer", "cb_pop_front", cb, file, line);
  if (__builtin_expect(pages > q.waited_pages, 0)) pop_beyond_wait(k, q, cb, pages, file, line);
  check_not_in_flight(k, fiber_of(k)->writes, q, q.rd_ptr, "cb_pop_front", cb, pages, false, file, line);
  q.waited_pages -= std::min(pages, q.waited_pages);
  q.acked = uint16_t(q.acked + pages);
  q.rd_ptr += pages * q.page_size;
  if (q.rd_ptr == q.fifo_limit) q.rd_ptr = q.fifo_addr;
  if (Fiber* w = c.cb_back_waiter[cb]; w && free_pages(q) >= w->wait.pages) {
    c.cb_back_waiter[cb] = nullptr;
    c.chip->make_ready(w);
  }
}

void api_cb_poll(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, uint32_t front, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), front ? "cb_pages_available_at_front" : "cb_pages_reservable_at_back",
                                  file, line);
  Core& c = core_of(k);
  Fiber* f = fiber_of(k);
  if (c.chip->yield(f)) return;
  // Nothing else can run: the answer cannot change unless this RISC waits.
  const char* call = front ? "cb_pages_available_at_front" : "cb_pages_reservable_at_back";
  tessel_cb_iface& q = checked_cb(k, call, cb, pages, file, line);
  const uint32_t visible = visible_pages(q);
  if (front ? visible >= pages : q.num_pages - visible >= pages) return;
  f->wait = {front ? WaitKind::CbFront : WaitKind::CbBack, cb, pages, nullptr, 0, file, line};
  (front ? c.cb_front_waiter : c.cb_back_waiter)[cb] = f;
  c.chip->block(f);
}

// ---------------------------------------------------------------------------

void api_fail(tessel_kernel_ctx* k, const char* message, const char* file, uint32_t line) {
  fail(k, message, file, line);
}

void api_fail_index(tessel_kernel_ctx* k, const char* call, int32_t index, const char* what, uint32_t count,
                    const char* file, uint32_t line) {
  // A runtime argument past the ones given but inside the argument area:
  // silicon reads what the area holds (a load with no check unless the
  // watcher is on), so a kernel that reads an argument it does not use runs;
  // a likely bug, a warning. The value is what tessel's area holds there.
  if (index >= 0 && uint32_t(index) < TESSEL_MAX_RUNTIME_ARGS && std::string_view(what).ends_with("runtime argument")) {
    // Under TESSEL_STRICT=1 warn() ends this fiber without unwinding: the message is built (its
    // temporaries gone) before the call, and moved into it, so nothing on this frame owns memory then.
    const bool common = std::string_view(what) != "runtime argument";
    std::string message = std::string(call) + "(" + std::to_string(index) + "): reads past the " +
                          std::to_string(count) + " " + what +
                          "s this core was given: silicon reads whatever the argument area holds there (Metalium's "
                          "watcher stops the kernel with " +
                          (common ? "DebugAssertCrtaOutOfBounds" : "DebugAssertRtaOutOfBounds") + "); expected " +
                          (count ? "an index 0.." + std::to_string(count - 1) : std::string("no ") + what + " reads");
    core_of(k).chip->warn(fiber_of(k), std::move(message), file, line);
    return;
  }
  fail(k,
       std::string(call) + "(" + std::to_string(index) + "): " + what + " index out of range: this core was given " +
           std::to_string(count) + " " + what + "s",
       file, line);
}

void api_fail_cb(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  cb_unusable(k, call, cb, file, line);
}

void api_fail_bank(tessel_kernel_ctx* k, uint32_t is_dram, uint32_t bank, const char* file, uint32_t line) {
  fail(k,
       "get_noc_addr_from_bank_id: bank " + std::to_string(bank) + " does not exist: there are " +
           std::to_string(is_dram ? k->num_dram_banks : k->num_l1_banks) + (is_dram ? " DRAM banks" : " L1 banks"),
       file, line);
}

void api_fail_semaphore(tessel_kernel_ctx* k, uint32_t id, const char* file, uint32_t line) {
  fail(k,
       "get_semaphore(" + std::to_string(id) + "): semaphore " + std::to_string(id) +
           " was not created on this core (the program's add_semaphore for it covers other cores)",
       file, line);
}

void api_kernel_exit(tessel_kernel_ctx* k, uint32_t how, uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3,
                     uintptr_t caller_pc) {
  // Every branch ends the fiber, whose frames are abandoned: each builds its
  // message in one statement and moves it on.
  Fiber* f = fiber_of(k);
  Chip& chip = *core_of(k).chip;
  static const char* const kExits[] = {"abort", "exit", "_exit", "_Exit", "quick_exit"};
  switch (how) {
  case TESSEL_EXIT_ASSERT: {
    const auto* expression = reinterpret_cast<const char*>(a0);
    const auto* function = reinterpret_cast<const char*>(a3);
    std::string m = std::string("assertion '") + (expression ? expression : "?") + "' failed" +
                    (function ? std::string(" in ") + function : std::string());
    fail(k, std::move(m), reinterpret_cast<const char*>(a1), uint32_t(a2));
  }
  case TESSEL_EXIT_EXIT:
  case TESSEL_EXIT_UNDERSCORE:
  case TESSEL_EXIT_UPPER:
  case TESSEL_EXIT_QUICK: {
    std::string report = chip.where_at(f, caller_pc) + kExits[how] + "(" + std::to_string(int32_t(a0)) +
                         ") called: a kernel cannot end the process; return from kernel_main to end the kernel";
    chip.fail_report(f, std::move(report), false);
  }
  case TESSEL_EXIT_THREAD_EXIT: {
    std::string report = chip.where_at(f, caller_pc) +
                         "pthread_exit called: kernels run on the simulator's fibers, not on threads of their own; "
                         "return from kernel_main to end the kernel";
    chip.fail_report(f, std::move(report), false);
  }
  default: {
    const char* what = how == TESSEL_EXIT_ABORT       ? "abort() was called"
                       : how == TESSEL_EXIT_TERMINATE ? "std::terminate() was called"
                       : how == TESSEL_EXIT_STACK_SMASH
                           ? "stack smashing detected (a write past the end of a local array?)"
                           : "the kernel tried to end the process";
    std::string report =
        chip.where_at(f, caller_pc) + "kernel '" + (f->kernel_name ? f->kernel_name : "?") + "' crashed: " + what;
    chip.fail_report(f, std::move(report), true);
  }
  }
}

void api_stalled(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  // The stall ended between the kernel's check and this call: carry on.
}

void* api_extension(tessel_kernel_ctx* k, uint32_t id) {
  CardAgent* agent = core_of(k).chip->agent();
  if (id == TESSEL_EXTENSION_CARD && agent) return const_cast<void*>(agent->kernel_table());
  if (id == TESSEL_EXTENSION_FABRIC && core_of(k).chip->fabric())
    return const_cast<tessel_fabric_api*>(fabric_api_table());
  return nullptr;
}

// A kernel API call that advances the calling RISC's clock by one cycle
// before it runs (profiler.hpp, "The clock").
template <auto Call>
struct Ticked;
template <typename Result, typename... Args, Result (*Call)(tessel_kernel_ctx*, Args...)>
struct Ticked<Call> {
  static Result call(tessel_kernel_ctx* k, Args... args) {
    ++k->clock;
    return Call(k, args...);
  }
};
template <auto Call>
inline constexpr auto ticked = &Ticked<Call>::call;

// A call that reaches the simulator: ticked, except in the table the timed
// calls (timing_api.cpp) run, which charge the clock themselves.
template <bool Tick, auto Call>
inline constexpr auto call = Tick ? ticked<Call> : Call;

template <bool Tick>
constexpr tessel_sim_api make_table() {
  return {
      .abi_version = TESSEL_KERNEL_ABI_VERSION,
      .cb_reserve_back = call<Tick, api_cb_reserve_back>,
      .cb_push_back = call<Tick, api_cb_push_back>,
      .cb_wait_front = call<Tick, api_cb_wait_front>,
      .cb_pop_front = call<Tick, api_cb_pop_front>,
      .noc_read = call<Tick, api_noc_read>,
      .noc_write = call<Tick, api_noc_write>,
      .noc_write_multicast = call<Tick, api_noc_write_multicast>,
      .noc_inline_write = call<Tick, api_noc_inline_write>,
      .noc_barrier = call<Tick, api_noc_barrier>,
      .sem_wait = call<Tick, api_sem_wait>,
      .sem_set = call<Tick, api_sem_set>,
      .sem_inc = call<Tick, api_sem_inc>,
      .sem_set_multicast = call<Tick, api_sem_set_multicast>,
      .cb_poll = call<Tick, api_cb_poll>,
      .fail = api_fail,
      .fail_index = api_fail_index,
      .fail_cb = api_fail_cb,
      .fail_bank = api_fail_bank,
      .fail_semaphore = api_fail_semaphore,
      .dprint = api_dprint,
      .kernel_exit = api_kernel_exit,
      .note_bad_noc_coord = api_note_bad_noc_coord,
      .stalled = api_stalled,
      .compute_init = call<Tick, api_compute_init>,
      .dst_step = call<Tick, api_dst_step>,
      .copy_tile = call<Tick, api_copy_tile>,
      .binary_tiles = call<Tick, api_binary_tiles>,
      .pack_tile = call<Tick, api_pack_tile>,
      .matmul = call<Tick, api_matmul>,
      .reduce_tile = call<Tick, api_reduce_tile>,
      .transpose_wh_tile = call<Tick, api_transpose_wh_tile>,
      .bcast_tiles = call<Tick, api_bcast_tiles>,
      .sfpu_unary = call<Tick, api_sfpu_unary>,
      .sfpu_binary = call<Tick, api_sfpu_binary>,
      .sfpu_ternary = call<Tick, api_sfpu_ternary>,
      .dest_tiles = call<Tick, api_dest_tiles>,
      .copy_block = call<Tick, api_copy_block>,
      .extension = api_extension,
      .sfpi_open = call<Tick, api_sfpi_open>,
      .sfpi_reach = api_sfpi_reach,
      .dprint_tile_slice = api_dprint_tile_slice,
      .profiler_mark = api_profiler_mark,
      .tilize_block = call<Tick, api_tilize_block>,
      .untilize_block = call<Tick, api_untilize_block>,
      .pack_untilize = call<Tick, api_pack_untilize>,
      .sfpu_state = call<Tick, api_sfpu_state>,
      .welford = call<Tick, api_welford>,
  };
}

constexpr tessel_sim_api kTable = make_table<true>();
constexpr tessel_sim_api kUnticked = make_table<false>();

} // namespace

const tessel_sim_api* kernel_api_table() { return &kTable; }

const tessel_sim_api* unticked_api_table() { return &kUnticked; }

} // namespace tessel::sim
