// The declarations a kernel with named bindings (KernelBindings, program.hpp)
// sees before its source: args::, dfb::, sem::, tensor:: and the vararg
// readers, as one line of C++ the JIT passes in TESSEL_KERNEL_BINDINGS
// (kernel/include/tessel/kernel_bindings.h expands it).
#pragma once

#include <string>
#include <vector>

#include "tessel/program.hpp"

namespace tessel::runtime {

// The define's value. Throws ValidationError naming the binding for a name
// that is not a C++ identifier or is bound twice, a CB index or semaphore id
// out of range, or a tensor whose compile-time args would lie past the
// kernel's. `compile_args`: the kernel's positional compile-time args.
std::string kernel_bindings_source(const KernelBindings& bindings, const NamedCompileArgs& named_compile_args,
                                   const std::vector<uint32_t>& compile_args);

} // namespace tessel::runtime
