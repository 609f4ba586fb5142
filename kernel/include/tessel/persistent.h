// Persistent kernels: a program's reader, compute and writer kernels hold
// handlers; the runtime's loop here serves the commands the card sends.
//
//   #include "tessel/persistent.h"
//   constexpr uint32_t kHandlerScale = 1;
//   void scale(uint32_t address, uint32_t pages) { ... }      // a plain function of its args
//   TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerScale, scale))
//
// A handler takes its command's argument words as uint32_t parameters (as
// many as it names), or the whole `const persistent::Command&`, or nothing;
// one that returns a uint32_t sets the command's result word (the leader's
// reaches the host when the command was submitted with result=True).
// A kernel that has no handler for a command does nothing for it.
//
// The loop (one per RISC, the same in the three kernels):
//  - the reader takes the core's next command from its mailbox (blocking),
//    hands its token to compute and the writer through CBs 29 and 30, runs
//    its handler and reports;
//  - compute and the writer take the token from their CB, run their handler
//    and report;
//  - once the three RISCs of a core have reported, the core reports to its
//    group's leader, and the leader completes the command;
//  - EXIT (or the stop flag) ends the three loops: the kernels return.
// The runtime owns CBs 29, 30 and 31 (the trace); a program uses the others.
// A program's own runtime arguments follow the runtime's KM_STARTUP_ARGS:
// persistent::arg(i) is the program's argument i.
#pragma once

#include <stdint.h>

#include <type_traits>
#include <utility>

#include "tessel/kernel_common.h"
#include "tessel/persistent_abi.h"
#ifndef TESSEL_KERNEL_COMPUTE
#include "tessel/dataflow.h"
#endif

namespace persistent {

inline constexpr uint32_t kStartupArgs = KM_STARTUP_ARGS;
inline constexpr uint32_t kCbTokenCompute = KM_CB_TOKEN_COMPUTE;
inline constexpr uint32_t kCbTokenWriter = KM_CB_TOKEN_WRITER;
inline constexpr uint32_t kCbTrace = KM_CB_TRACE;
inline constexpr uint32_t kArgsMax = KM_ARGS_MAX;

// One command as a handler sees it.
struct Command {
  uint32_t handler;
  uint32_t flags;
  uint32_t sequence;   // the card's number for it (all sources)
  uint32_t slot;       // its completion slot
  uint32_t first_core; // the group, in core order
  uint32_t core_count;
  uint32_t index; // this core's place in the group (0: the leader)
  uint32_t arg_count;
  uint32_t args[KM_ARGS_MAX];
  bool leader() const { return index == 0; }
  uint32_t arg(uint32_t i) const { return i < arg_count ? args[i] : 0; }
};

using Handler = void (*)(const Command&);
struct Entry {
  uint32_t number;
  Handler handler;
};

namespace detail {

inline const tessel_card_api* card(TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  const void* table = k->api->extension(k, TESSEL_EXTENSION_CARD);
  if (!table) {
    k->api->fail(k,
                 "a persistent kernel runs only when a dispatch session loads its program (tessel::dispatch, "
                 "tessel.dispatch.Session.load): this launch has no card",
                 TESSEL_SITE);
    __builtin_unreachable();
  }
  return static_cast<const tessel_card_api*>(table);
}

inline volatile uint32_t* state_words() {
  return reinterpret_cast<volatile uint32_t*>(tessel_ctx()->l1_base + KM_CONTROL_L1);
}

inline void read_command(const volatile uint32_t* mb, Command& c) {
  c.sequence = mb[KM_MB_SEQUENCE];
  c.handler = mb[KM_MB_HANDLER] & 0xFFu;
  c.flags = (mb[KM_MB_HANDLER] >> 8) & 0xFFu;
  c.first_core = mb[KM_MB_GROUP] & 0xFFFFu;
  c.core_count = mb[KM_MB_GROUP] >> 16;
  c.slot = mb[KM_MB_SLOT];
  c.index = mb[KM_MB_INDEX];
  c.arg_count = mb[KM_MB_ARGC];
  for (uint32_t i = 0; i < KM_ARGS_MAX; ++i)
    c.args[i] = mb[KM_MB_ARGS + i];
}

inline volatile uint32_t* mailbox(uint32_t slot) {
  return state_words() + (KM_MAILBOX_OFFSET / 4) + slot * KM_MAILBOX_WORDS;
}

// Argument adapters: a handler of N uint32_t parameters gets args 0..N-1.
template <typename F>
struct Adapt;
template <typename R, typename... P>
struct Adapt<R (*)(P...)> {
  template <R (*Fn)(P...), uint32_t... I>
  static R call(const Command& c, std::integer_sequence<uint32_t, I...>) {
    return Fn(static_cast<P>(c.arg(I))...);
  }
};

template <auto Fn>
void adapt(const Command& c) {
  using F = decltype(Fn);
  tessel_kernel_ctx* k = tessel_ctx();
  if constexpr (std::is_invocable_v<F, const Command&>) {
    if constexpr (std::is_same_v<decltype(Fn(c)), void>)
      Fn(c);
    else
      card()->set_result(k, c.slot, uint32_t(Fn(c)));
  } else if constexpr (std::is_invocable_v<F>) {
    if constexpr (std::is_same_v<decltype(Fn()), void>)
      Fn();
    else
      card()->set_result(k, c.slot, uint32_t(Fn()));
  } else {
    constexpr uint32_t kArity = []<typename R, typename... P>(R (*)(P...)) { return uint32_t(sizeof...(P)); }(Fn);
    static_assert(kArity <= KM_ARGS_MAX, "a handler takes at most KM_ARGS_MAX (10) argument words");
    using Seq = std::make_integer_sequence<uint32_t, kArity>;
    if constexpr (std::is_same_v<decltype(Adapt<F>::template call<Fn>(c, Seq{})), void>)
      Adapt<F>::template call<Fn>(c, Seq{});
    else
      card()->set_result(k, c.slot, uint32_t(Adapt<F>::template call<Fn>(c, Seq{})));
  }
}

inline Handler find(const Entry* table, uint32_t count, uint32_t number) {
  for (uint32_t i = 0; i < count; ++i)
    if (table[i].number == number) return table[i].handler;
  return nullptr;
}

inline uint32_t token_slot(uint32_t cb) {
  return *reinterpret_cast<const volatile uint32_t*>(uintptr_t(tessel_ctx()->cbs[cb].rd_ptr));
}

} // namespace detail

// The program's own runtime argument i (after the runtime's start-up ones).
inline uint32_t arg(uint32_t i, TESSEL_SITE_PARAMS) {
  return get_arg_val<uint32_t>(int(kStartupArgs + i), TESSEL_SITE);
}
// This RISC's role (KM_ROLE_*), this core's index in core order, the core count.
inline uint32_t role() { return tessel_ctx()->rt_args[0]; }
inline uint32_t core_index() { return tessel_ctx()->rt_args[1]; }
inline uint32_t core_count() { return tessel_ctx()->rt_args[2]; }
// The card's clock (KM_TIMER_MHZ ticks).
inline uint64_t ticks() { return detail::card()->ticks(tessel_ctx()); }
// The command's result word, for a handler that does not return it.
inline void set_result(const Command& c, uint32_t value) { detail::card()->set_result(tessel_ctx(), c.slot, value); }

// Waits until *word >= value, at most the session's `wait` seconds; false
// when the wait ran out (this core gave up).
inline bool wait_at_least(volatile uint32_t* word, uint32_t value, TESSEL_SITE_PARAMS) {
  return detail::card(TESSEL_SITE)->wait_word(tessel_ctx(), word, value, TESSEL_SITE) != 0;
}

// The broadcast protocol: the group's root core multicasts `blocks` blocks of
// `block_bytes` to the receivers of a NoC rectangle, through a ring of
// `window` (at most KM_BCAST_WINDOW_MAX) block slots at the same L1 address on
// every core (`region`, e.g. a circular buffer's get_write_ptr()). Per block b
// in slot s = b % window:
//  - a receiver grants the root slot s (increments the root's WANTED[s]) once
//    the slot is free: every slot at the start, then slot s again when it
//    released block b - window;
//  - the root waits for WANTED[s] >= its base[s] + receivers * (b / window + 1),
//    multicasts the block into slot s, then multicasts VALID = epoch << 16 |
//    b + 1;
//  - a receiver waits for VALID >= epoch << 16 | b + 1, uses the slot and
//    releases it (its next grant of the slot);
//  - at the end each receiver increments the root's DONE_BY and the root
//    waits for all of them.
// Grants are counted per slot: a receiver can never grant a slot more often
// than the root has sent into it plus one, so the receivers' total reaches
// the root's bound only when every one of them released the slot (a single
// count over all slots would let a fast receiver's grants stand in for a slow
// one's). The epoch is the command's sequence number (low 16 bits): a
// receiver resets its VALID to epoch << 16 before its first grant, so no word
// of an earlier broadcast is taken for this one. Every wait has the session's
// `wait` timeout: one that runs out records the block (+1) as this core's
// first give-up (run.state()) and fails the kernel with the wait's source
// line. The root's bases keep its counts monotonic across commands.
// A broadcast's arguments are layout.broadcast_args(...): KM_BROADCAST_ARGS words.
// (Data-movement kernels only: the root and the receivers use the NoC.)
inline constexpr uint32_t kBroadcastArgs = KM_BROADCAST_ARGS;

#ifndef TESSEL_KERNEL_COMPUTE
class Broadcast {
public:
  // args: the KM_BROADCAST_ARGS words of layout.broadcast_args, from the command.
  Broadcast(const Command& c, const uint32_t* args, uint32_t region, uint32_t block_bytes, uint32_t window)
      : region_(region), block_bytes_(block_bytes), window_(window), epoch_((c.sequence & 0xFFFFu) << 16),
        x0_(args[0] & 0xFFFFu), y0_(args[0] >> 16), x1_(args[1] & 0xFFFFu), y1_(args[1] >> 16), receivers_(args[2]),
        root_x_(args[3] & 0xFFFFu), root_y_(args[3] >> 16) {
    tessel_kernel_ctx* k = tessel_ctx();
    root_ = k->noc_x == root_x_ && k->noc_y == root_y_;
    if (window_ == 0 || window_ > KM_BCAST_WINDOW_MAX) {
      k->api->fail(k, "persistent::Broadcast: the window must be 1 to KM_BCAST_WINDOW_MAX (8) blocks", nullptr, 0);
      __builtin_unreachable();
    }
  }
  bool root() const { return root_; }
  uint32_t receivers() const { return receivers_; }
  uint32_t slot_address(uint32_t block) const { return region_ + (block % window_) * block_bytes_; }

  // Root: multicast block `block` from `src` (an L1 address of this core).
  void send(uint32_t block, uint32_t src, TESSEL_SITE_PARAMS) {
    volatile uint32_t* w = words();
    const uint32_t s = block % window_;
    if (!wait_counted(&w[KM_BCAST_WANTED + s], w[KM_BCAST_WANTED_BASE + s] + receivers_ * (block / window_ + 1), block,
                      TESSEL_SITE))
      give_up(block, "the receivers' grants (WANTED)", TESSEL_SITE);
    const uint32_t dst = slot_address(block);
    noc_async_write_multicast(src, get_noc_multicast_addr(x0_, y0_, x1_, y1_, dst), block_bytes_, receivers_, false,
                              noc_index, TESSEL_SITE);
    noc_async_write_barrier(noc_index, TESSEL_SITE);
    volatile uint32_t* valid = &w[KM_BCAST_VALID];
    *valid = epoch_ | (block + 1);
    noc_semaphore_set_multicast(uint32_t(uintptr_t(valid)),
                                get_noc_multicast_addr(x0_, y0_, x1_, y1_, uint32_t(uintptr_t(valid))), receivers_,
                                false, noc_index, TESSEL_SITE);
    noc_async_write_barrier(noc_index, TESSEL_SITE);
    ++w[KM_BCAST_BLOCKS];
  }
  // Root: wait for every receiver's DONE_BY, then move the bases on.
  void finish(uint32_t blocks, TESSEL_SITE_PARAMS) {
    volatile uint32_t* w = words();
    if (!wait_counted(&w[KM_BCAST_DONE_BY], w[KM_BCAST_DONE_BASE] + receivers_, blocks, TESSEL_SITE))
      give_up(blocks, "the receivers' DONE-BY words", TESSEL_SITE);
    for (uint32_t s = 0; s < window_ && s < blocks; ++s) // slot s took the blocks s, s + window, ...
      w[KM_BCAST_WANTED_BASE + s] = w[KM_BCAST_WANTED_BASE + s] + receivers_ * ((blocks - 1 - s) / window_ + 1);
    w[KM_BCAST_DONE_BASE] = w[KM_BCAST_DONE_BASE] + receivers_;
  }
  // Receiver: reset VALID for this broadcast, then grant the root every slot
  // the broadcast uses.
  void open(uint32_t blocks, TESSEL_SITE_PARAMS) {
    words()[KM_BCAST_VALID] = epoch_;
    for (uint32_t s = 0; s < window_ && s < blocks; ++s)
      noc_semaphore_inc(root_word(KM_BCAST_WANTED + s), 1, noc_index, TESSEL_SITE);
  }
  // Receiver: wait for block `block`; returns its L1 address.
  uint32_t receive(uint32_t block, TESSEL_SITE_PARAMS) {
    volatile uint32_t* w = words();
    if (!wait_counted(&w[KM_BCAST_VALID], epoch_ | (block + 1), block, TESSEL_SITE))
      give_up(block, "the root's VALID word", TESSEL_SITE);
    ++w[KM_BCAST_BLOCKS];
    return slot_address(block);
  }
  // Receiver: block `block` is used; its slot may take block + window.
  void release(uint32_t block, uint32_t blocks, TESSEL_SITE_PARAMS) {
    if (block + window_ < blocks)
      noc_semaphore_inc(root_word(KM_BCAST_WANTED + block % window_), 1, noc_index, TESSEL_SITE);
  }
  // Receiver: the broadcast is done here (the root's DONE_BY).
  void done(TESSEL_SITE_PARAMS) { noc_semaphore_inc(root_word(KM_BCAST_DONE_BY), 1, noc_index, TESSEL_SITE); }

private:
  static volatile uint32_t* words() { return detail::state_words() + KM_BROADCAST_OFFSET / 4; }
  uint64_t root_word(uint32_t index) const {
    return get_noc_addr(root_x_, root_y_, KM_CONTROL_L1 + KM_BROADCAST_OFFSET + 4 * index);
  }
  bool wait_counted(volatile uint32_t* word, uint32_t value, uint32_t, const char* file, uint32_t line) {
    if (*word >= value) return true;
    const uint64_t t0 = ticks();
    const bool ok = wait_at_least(word, value, file, line);
    words()[KM_BCAST_WAIT_TICKS] += uint32_t(ticks() - t0);
    return ok;
  }
  [[noreturn]] static void give_up(uint32_t block, const char* what, const char* file, uint32_t line) {
    volatile uint32_t* w = words();
    if (w[KM_BCAST_GAVE_UP] == 0) w[KM_BCAST_GAVE_UP] = block + 1;
    tessel_kernel_ctx* k = tessel_ctx();
    (void)what;
    k->api->fail(k,
                 "broadcast: gave up waiting (the session's wait timeout) for another core: see run.state() for "
                 "this core's broadcast words",
                 file, line);
    __builtin_unreachable();
  }

  uint32_t region_, block_bytes_, window_, epoch_;
  uint32_t x0_, y0_, x1_, y1_, receivers_, root_x_, root_y_;
  bool root_ = false;
};

// A core-to-core port: a one-way, flow-controlled stream of blocks from one
// core's port `slot` to the same slot of a peer, through a ring of `window`
// block slots at the same L1 address on both cores (`region`). The receiver
// grants the sender `window` blocks when it opens the stream and one more for
// each block it releases (but the last `window`); the sender waits for a
// grant, writes the block into the receiver's ring, then increments the
// receiver's COUNT; the receiver waits for COUNT to pass what it took. The
// counts are running totals kept on both cores, so streams follow one
// another across commands. Every wait has the session's `wait` timeout: one
// that runs out records the give-up in the port's words (run.state()'s
// ports) and fails the kernel at the wait's line.
class Port {
public:
  // peer: the other core's NoC coordinates as x | y << 16 (session.nocs().words).
  Port(uint32_t slot, uint32_t peer, uint32_t region, uint32_t block_bytes, uint32_t window)
      : slot_(slot), peer_x_(peer & 0xFFFFu), peer_y_(peer >> 16), region_(region), block_bytes_(block_bytes),
        window_(window) {
    if (slot_ >= KM_PORTS || window_ == 0) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k, "persistent::Port: the slot must be below KM_PORTS (8) and the window at least 1", nullptr, 0);
      __builtin_unreachable();
    }
  }
  uint32_t slot_address(uint32_t block) const { return region_ + (block % window_) * block_bytes_; }

  // Receiver: grant the sender the first slots of a stream of `blocks`.
  void open(uint32_t blocks, TESSEL_SITE_PARAMS) {
    const uint32_t n = blocks < window_ ? blocks : window_;
    if (n) noc_semaphore_inc(peer_word(KM_PORT_WANTED), n, noc_index, TESSEL_SITE);
  }
  // Sender: send this stream's next block from `src` (an L1 address of this core).
  void send(uint32_t src, TESSEL_SITE_PARAMS) {
    volatile uint32_t* w = words();
    const uint32_t sent = w[KM_PORT_SENT];
    if (!wait_at_least(&w[KM_PORT_WANTED], sent + 1, TESSEL_SITE)) give_up(1, TESSEL_SITE);
    noc_async_write(src, get_noc_addr(peer_x_, peer_y_, slot_address(sent)), block_bytes_, noc_index, TESSEL_SITE);
    noc_async_write_barrier(noc_index, TESSEL_SITE);
    noc_semaphore_inc(peer_word(KM_PORT_COUNT), 1, noc_index, TESSEL_SITE);
    w[KM_PORT_SENT] = sent + 1;
  }
  // Receiver: wait for the stream's next block; returns its L1 address.
  uint32_t receive(TESSEL_SITE_PARAMS) {
    volatile uint32_t* w = words();
    const uint32_t received = w[KM_PORT_RECEIVED];
    if (!wait_at_least(&w[KM_PORT_COUNT], received + 1, TESSEL_SITE)) give_up(2, TESSEL_SITE);
    w[KM_PORT_RECEIVED] = received + 1;
    return slot_address(received);
  }
  // Receiver: the block taken last is used; `left` is how many blocks of the
  // stream are still to come (its slot is granted again while left >= window).
  void release(uint32_t left, TESSEL_SITE_PARAMS) {
    if (left >= window_) noc_semaphore_inc(peer_word(KM_PORT_WANTED), 1, noc_index, TESSEL_SITE);
  }

private:
  volatile uint32_t* words() const { return detail::state_words() + KM_PORT_OFFSET / 4 + slot_ * KM_PORT_WORDS; }
  uint64_t peer_word(uint32_t index) const {
    return get_noc_addr(peer_x_, peer_y_, KM_CONTROL_L1 + KM_PORT_OFFSET + 4 * (slot_ * KM_PORT_WORDS + index));
  }
  [[noreturn]] void give_up(uint32_t how, const char* file, uint32_t line) const {
    volatile uint32_t* w = words();
    if (w[KM_PORT_GAVE_UP] == 0) w[KM_PORT_GAVE_UP] = how;
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k,
                 how == 1 ? "port: gave up waiting (the session's wait timeout) for the receiver's grant: see "
                            "run.state()'s ports"
                          : "port: gave up waiting (the session's wait timeout) for the sender's block: see "
                            "run.state()'s ports",
                 file, line);
    __builtin_unreachable();
  }
  uint32_t slot_, peer_x_, peer_y_, region_, block_bytes_, window_;
};
#endif

// The runtime's loop: serves commands until EXIT.
inline void serve(const Entry* table, uint32_t count, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  const tessel_card_api* card = detail::card(TESSEL_SITE);
  if (k->rt_arg_count < kStartupArgs) {
    k->api->fail(k, "a persistent kernel was launched without the runtime's start-up arguments", TESSEL_SITE);
    __builtin_unreachable();
  }
  const uint32_t my_role = role();
  {
    uint32_t numbers[KM_HANDLER_LAST];
    uint32_t n = 0;
    for (uint32_t i = 0; i < count && n < KM_HANDLER_LAST; ++i)
      numbers[n++] = table[i].number;
    card->announce(k, numbers, n);
  }
  Command c;
  for (;;) {
    if (my_role == KM_ROLE_READER) {
      const volatile uint32_t* mb = card->take(k, TESSEL_SITE);
      detail::read_command(mb, c);
      const uint32_t riscs = mb[KM_MB_HANDLER] >> 24;
      for (uint32_t cb : {kCbTokenCompute, kCbTokenWriter}) {
        const uint32_t to = cb == kCbTokenCompute ? KM_ROLE_COMPUTE : KM_ROLE_WRITER;
        if (!(riscs >> to & 1u)) continue; // that RISC has no handler for it
        k->api->cb_reserve_back(k, cb, 1, TESSEL_SITE);
        *reinterpret_cast<volatile uint32_t*>(uintptr_t(k->cbs[cb].wr_ptr)) = c.slot;
        k->api->cb_push_back(k, cb, 1, TESSEL_SITE);
      }
    } else {
      const uint32_t cb = my_role == KM_ROLE_COMPUTE ? kCbTokenCompute : kCbTokenWriter;
      k->api->cb_wait_front(k, cb, 1, TESSEL_SITE);
      const uint32_t slot = detail::token_slot(cb);
      k->api->cb_pop_front(k, cb, 1, TESSEL_SITE);
      detail::read_command(detail::mailbox(slot), c);
    }
    if (c.handler == KM_HANDLER_EXIT) return;
    if (c.handler != KM_HANDLER_NOP)
      if (Handler h = detail::find(table, count, c.handler)) h(c);
    card->done(k, c.slot, TESSEL_SITE);
  }
}

} // namespace persistent

// A handler table entry: a handler number and a function (see the top).
#define TESSEL_HANDLER(number, fn) (persistent::Entry{(number), &persistent::detail::adapt<&fn>})

// The kernel's entry: the runtime's loop over the given handlers (none: a
// kernel that only takes part in the protocol).
#define TESSEL_PERSISTENT_KERNEL(...)                                                                                  \
  void kernel_main() {                                                                                                 \
    static const persistent::Entry tessel_handlers[] = {persistent::Entry{~0u, nullptr}, ##__VA_ARGS__};               \
    persistent::serve(tessel_handlers + 1, uint32_t(sizeof tessel_handlers / sizeof tessel_handlers[0]) - 1);          \
  }
