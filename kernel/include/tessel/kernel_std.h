// The C++ standard headers TT-Metalium's kernel headers include
// (dataflow_api.h: <cstdint>, <tuple>, <utility>, <type_traits>; the compute
// API's ckernel headers: <array>, <limits>, ...), so that kernels using
// std::array, std::is_same_v or std::uint32_t without an #include of their
// own compile as they do there.
//
// They cost about as much to parse as the rest of a kernel, so they come
// only to kernels that name `std::` (or the accessor tuples built on them,
// tessel/tensor_tuples.h): the JIT defines TESSEL_KERNEL_STD for a kernel
// whose source, or a header of its own it includes, does
// (src/jit/kernel_scan.hpp). The RISC-V size estimate has the freestanding
// subset only (tessel/freestanding/README.md).
#ifndef TESSEL_KERNEL_STD_H
#define TESSEL_KERNEL_STD_H

// Brace lists in range-for (`for (uint32_t cb : {a, b})`) need
// <initializer_list> whatever the kernel names; it is small.
#include <initializer_list>

#if defined(TESSEL_KERNEL_STD)
#include <type_traits>
#include <utility>
#if !defined(TESSEL_CROSS_ESTIMATE)
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#endif
#endif

#endif // TESSEL_KERNEL_STD_H
