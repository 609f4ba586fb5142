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
  uint32_t sequence;    // the card's number for it (all sources)
  uint32_t slot;        // its completion slot
  uint32_t first_core;  // the group, in core order
  uint32_t core_count;
  uint32_t index;       // this core's place in the group (0: the leader)
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
  c.flags = mb[KM_MB_HANDLER] >> 8;
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
inline uint32_t arg(uint32_t i, TESSEL_SITE_PARAMS) { return get_arg_val<uint32_t>(int(kStartupArgs + i), TESSEL_SITE); }
// This RISC's role (KM_ROLE_*), this core's index in core order, the core count.
inline uint32_t role() { return tessel_ctx()->rt_args[0]; }
inline uint32_t core_index() { return tessel_ctx()->rt_args[1]; }
inline uint32_t core_count() { return tessel_ctx()->rt_args[2]; }
// The card's clock (KM_TIMER_MHZ ticks).
inline uint64_t ticks() { return detail::card()->ticks(tessel_ctx()); }
// The command's result word, for a handler that does not return it.
inline void set_result(const Command& c, uint32_t value) { detail::card()->set_result(tessel_ctx(), c.slot, value); }

// The runtime's loop: serves commands until EXIT.
inline void serve(const Entry* table, uint32_t count, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  const tessel_card_api* card = detail::card(TESSEL_SITE);
  if (k->rt_arg_count < kStartupArgs) {
    k->api->fail(k, "a persistent kernel was launched without the runtime's start-up arguments", TESSEL_SITE);
    __builtin_unreachable();
  }
  const uint32_t my_role = role();
  Command c;
  for (;;) {
    if (my_role == KM_ROLE_READER) {
      const volatile uint32_t* mb = card->take(k, TESSEL_SITE);
      detail::read_command(mb, c);
      for (uint32_t cb : {kCbTokenCompute, kCbTokenWriter}) {
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
#define TESSEL_PERSISTENT_KERNEL(...)                                                                                 \
  void kernel_main() {                                                                                                \
    static const persistent::Entry tessel_handlers[] = {persistent::Entry{~0u, nullptr}, ##__VA_ARGS__};             \
    persistent::serve(tessel_handlers + 1, uint32_t(sizeof tessel_handlers / sizeof tessel_handlers[0]) - 1);         \
  }
