// The AIE compilers' own names, which AIE kernels use without including
// anything: chess's loop and storage hints (no effect on a host build),
// `restrict`, and the profiling markers event0()/event1(). tessel.iron puts
// this before every external kernel's source; the AIE API includes it too.
#ifndef TESSEL_AIE_API_DETAIL_BUILTINS_HPP
#define TESSEL_AIE_API_DETAIL_BUILTINS_HPP

#define chess_prepare_for_pipelining
#define chess_loop_range(...)
#define chess_loop_count(...)
#define chess_flatten_loop
#define chess_unroll_loop(...)
#define chess_no_hw_loop
#define chess_modulo_scheduling_budget_ratio(...)
#define chess_peel_pipelined_loop(...)
#define chess_min_loop_count(...)
#define chess_storage(...)
#define chess_protect_access
#define chess_copy(x) (x)
#define chess_dont_warn_range(...)
#define chess_separator_scheduler(...)
#define chess_report(...)
#define chess_memory_fence()
#ifndef restrict
#define restrict __restrict
#endif

// Profiling markers: the AIE raises a trace event; tessel traces kernels by
// other means, so they do nothing.
inline void event0() {}
inline void event1() {}

#endif
