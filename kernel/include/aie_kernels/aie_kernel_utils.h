// Loop hints of IRON's kernels (AIE_PREPARE_FOR_PIPELINING, AIE_LOOP_RANGE,
// ...) for tessel's host build: the AIE compilers schedule loops by them, a
// host build has nothing to do with them, so each expands to nothing.
// VERSIONED_LOOP(min, count, body, ...) runs body() count times.
// Kernels include this as "../aie_kernel_utils.h" from aie_kernels/<arch>/
// or as <aie_kernel_utils.h>.
#ifndef TESSEL_AIE_KERNEL_UTILS_H
#define TESSEL_AIE_KERNEL_UTILS_H

#define AIE_LOOP_UNROLL(x)
#define AIE_LOOP_UNROLL_FULL
#define AIE_LOOP_NO_UNROLL
#define AIE_LOOP_MIN_ITERATION_COUNT(x)
#define AIE_LOOP_MAX_ITERATION_COUNT(x)
#define AIE_LOOP_RANGE(...)
#define AIE_PREPARE_FOR_PIPELINING
#define AIE_NO_PREPARE_FOR_PIPELINING
#define AIE_PREPARE_FOR_POSTPIPELINING
#define AIE_MODULO_SCHEDULING_BUDGET_RATIO(x)
#define AIE_KEEP_SW_LOOP
#define AIE_PEEL_PIPELINED_LOOP(x)
#define AIE_KEEP_FREE_FOR_PIPELINING(x)
#define AIE_ALLOCATE(x)
#define AIE_NO_HW_LOOP
#define AIE_TRY_INITIATION_INTERVAL(x)
#define AIE_LOOP_FLATTEN
#define AIE_LOOP_HINT(k, v)
#define AIE_LOOP_GPR_REALLOC

#define VERSIONED_LOOP(MinIters, count, body, ...)                                                                     \
  do {                                                                                                                 \
    for (int tessel_vl_i = 0; tessel_vl_i < (count); ++tessel_vl_i)                                                    \
      (body)();                                                                                                        \
  } while (0)

#endif
