// What the sanitizers must be told when the simulator switches fibers:
// AddressSanitizer which stack is in use (so it checks the right bounds and
// keeps fake stacks apart), ThreadSanitizer which fiber runs (each fiber has
// its own TSan context, so the scheduler and the fibers on one thread are
// ordered at every switch). No-ops in other builds.
//
// Protocol, from the scheduler's side of Chip::run:
//   token = before_enter(f); jump to f; after_return(token);
// and the fiber's side:
//   started() once when a fresh stack starts; token = before_leave(f);
//   jump to the scheduler; after_resume(token);
//   abandon() instead of before_leave when the fiber's stack is dropped.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(TESSEL_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#if defined(TESSEL_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace tessel::sim::fiber_san {

// Built with ThreadSanitizer: kernels (not instrumented) then take no inline
// fast path past a simulator call that synchronises.
#if defined(TESSEL_TSAN)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// tessel_kernel_ctx::no_fast_paths for a chip timed or not.
inline uint32_t no_fast_paths(bool timed) { return timed || kThreadSanitizer ? 1u : 0u; }

// The part of a fiber the sanitizers need.
struct State {
  uint8_t* stack_lo = nullptr; // usable stack: [stack_lo, stack_lo + stack_bytes)
  size_t stack_bytes = 0;
  void* tsan = nullptr; // the fiber's TSan context
};

#if defined(TESSEL_ASAN)
// The scheduler's stack, as ASan knew it when it last switched to a fiber; a
// fiber hands it back to ASan when it switches back.
inline thread_local const void* t_sched_stack_bottom = nullptr;
inline thread_local size_t t_sched_stack_size = 0;
#endif
#if defined(TESSEL_TSAN)
inline thread_local void* t_sched_tsan = nullptr;
#endif

// A fresh stack for the fiber (created, or reset after its frames were abandoned).
inline void reset(State& s) {
#if defined(TESSEL_ASAN)
  // An abandoned stack keeps the redzones of frames that never returned.
  ASAN_UNPOISON_MEMORY_REGION(s.stack_lo, s.stack_bytes);
#endif
#if defined(TESSEL_TSAN)
  // Its shadow stack holds the abandoned frames: start a new context.
  if (s.tsan) __tsan_destroy_fiber(s.tsan);
  s.tsan = __tsan_create_fiber(0);
#endif
  (void)s;
}

inline void destroy(State& s) {
#if defined(TESSEL_TSAN)
  if (s.tsan) __tsan_destroy_fiber(s.tsan);
  s.tsan = nullptr;
#endif
  (void)s;
}

inline void* before_enter(State& s) {
  void* token = nullptr;
#if defined(TESSEL_ASAN)
  __sanitizer_start_switch_fiber(&token, s.stack_lo, s.stack_bytes);
#endif
#if defined(TESSEL_TSAN)
  t_sched_tsan = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(s.tsan, 0);
#endif
  (void)s;
  return token;
}

inline void after_return(void* token) {
#if defined(TESSEL_ASAN)
  __sanitizer_finish_switch_fiber(token, nullptr, nullptr);
#endif
  (void)token;
}

inline void started() {
#if defined(TESSEL_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &t_sched_stack_bottom, &t_sched_stack_size);
#endif
}

inline void* before_leave() {
  void* token = nullptr;
#if defined(TESSEL_ASAN)
  __sanitizer_start_switch_fiber(&token, t_sched_stack_bottom, t_sched_stack_size);
#endif
#if defined(TESSEL_TSAN)
  __tsan_switch_to_fiber(t_sched_tsan, 0);
#endif
  return token;
}

inline void after_resume(void* token) {
#if defined(TESSEL_ASAN)
  __sanitizer_finish_switch_fiber(token, &t_sched_stack_bottom, &t_sched_stack_size);
#endif
  (void)token;
}

// Leaving a fiber whose stack is abandoned (a fault): nothing of it to keep.
inline void abandon() {
#if defined(TESSEL_ASAN)
  __sanitizer_start_switch_fiber(nullptr, t_sched_stack_bottom, t_sched_stack_size);
#endif
#if defined(TESSEL_TSAN)
  __tsan_switch_to_fiber(t_sched_tsan, 0);
#endif
}

} // namespace tessel::sim::fiber_san
