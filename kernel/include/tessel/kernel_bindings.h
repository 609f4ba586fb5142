// The names a kernel with bindings (KernelBindings, include/tessel/program.hpp)
// reads: args::, dfb::, sem::, tensor::, scratch::, get_vararg and get_common_vararg,
// which the runtime writes as one line into TESSEL_KERNEL_BINDINGS
// (src/runtime/kernel_bindings.cpp). Included by the prelude, before the
// kernel's source, for such kernels only.
#ifndef TESSEL_KERNEL_BINDINGS_H
#define TESSEL_KERNEL_BINDINGS_H

#include "experimental/kernel_args.h"
#include "tessel/dataflow_buffer_object.h"
#include "tessel/scratchpad_binding_token.h"
#if defined(TESSEL_KERNEL_DATA_MOVEMENT)
#include "tessel/dataflow.h"
#else
namespace tensor_accessor {
// Compute kernels have no NoC: a tensor bound to one is named, not read.
template <uint32_t CTA_OFFSET, uint32_t ADDR_CRTA_OFFSET>
struct TensorBindingToken {};
} // namespace tensor_accessor
#endif

TESSEL_KERNEL_BINDINGS

#endif // TESSEL_KERNEL_BINDINGS_H
