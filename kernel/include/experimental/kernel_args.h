// TT-Metalium's named kernel arguments (Metal 2.0): get_arg(args::<name>)
// reads a runtime argument, a common runtime argument or a compile-time
// value, whichever the host bound the name to (KernelBindings,
// include/tessel/program.hpp). The args:: constants come from the JIT
// (tessel/kernel_bindings.h).
#ifndef TESSEL_EXPERIMENTAL_KERNEL_ARGS_H
#define TESSEL_EXPERIMENTAL_KERNEL_ARGS_H

#include "tessel/kernel_common.h"

namespace experimental {

template <typename T>
struct RtaArg {
  uint32_t byte_offset;
};
template <typename T>
struct CrtaArg {
  uint32_t byte_offset;
};
template <typename T>
struct CtaVal {
  T value;
};

template <typename T>
inline T get_arg(RtaArg<T> arg, TESSEL_SITE_PARAMS) {
  static_assert(sizeof(T) == 4, "get_arg: named arguments are 32-bit words");
  return get_arg_val<T>(int(arg.byte_offset / 4), TESSEL_SITE);
}
template <typename T>
inline T get_arg(CrtaArg<T> arg, TESSEL_SITE_PARAMS) {
  static_assert(sizeof(T) == 4, "get_arg: named arguments are 32-bit words");
  return get_common_arg_val<T>(int(arg.byte_offset / 4), TESSEL_SITE);
}
template <typename T>
constexpr T get_arg(CtaVal<T> arg) {
  return arg.value;
}

} // namespace experimental

#endif // TESSEL_EXPERIMENTAL_KERNEL_ARGS_H
