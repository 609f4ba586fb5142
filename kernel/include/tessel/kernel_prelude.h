// Force-included (-include) before every kernel source by the JIT.
//
// It defines the kernel's entry point, `tessel_kernel_entry`, which calls the
// user's `kernel_main` in either spelling TT-Metalium accepts:
//   void kernel_main() { ... }                       (data movement, new compute)
//   namespace NAMESPACE { void MAIN { ... } }         (older compute)
// Both are declared weak here so that whichever the source defines is called.
//
// Compile-time arguments arrive from the JIT as -DTESSEL_CTA_LIST=a,b,c and
// named ones as -DTESSEL_NAMED_CTA_LIST={"name",value},...
#ifndef TESSEL_KERNEL_PRELUDE_H
#define TESSEL_KERNEL_PRELUDE_H

#include "tessel/kernel_abi.h"

#ifndef NAMESPACE
#define NAMESPACE tessel_kernel
#endif
#ifndef MAIN
#define MAIN kernel_main()
#endif

#ifdef TESSEL_CTA_LIST
constexpr uint32_t kernel_compile_time_args[] = {TESSEL_CTA_LIST};
constexpr uint32_t tessel_compile_time_arg_count = sizeof(kernel_compile_time_args) / sizeof(uint32_t);
#else
constexpr uint32_t kernel_compile_time_args[1] = {0};
constexpr uint32_t tessel_compile_time_arg_count = 0;
#endif

namespace tessel_detail {
struct NamedArg {
  const char* name;
  uint32_t value;
};
#ifdef TESSEL_NAMED_CTA_LIST
constexpr NamedArg named_compile_time_args[] = {TESSEL_NAMED_CTA_LIST};
constexpr uint32_t named_compile_time_arg_count = sizeof(named_compile_time_args) / sizeof(NamedArg);
#else
constexpr NamedArg named_compile_time_args[1] = {{"", 0}};
constexpr uint32_t named_compile_time_arg_count = 0;
#endif
constexpr bool str_eq(const char* a, const char* b) {
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
// Not constexpr on purpose: reaching one of these during constant evaluation
// makes the compiler reject the kernel with the function's name in the error.
inline uint32_t error_no_compile_time_arg_with_this_name() { return 0; }
inline uint32_t error_compile_time_arg_index_out_of_range(uint32_t index, const char* file = __builtin_FILE(),
                                                          uint32_t line = __builtin_LINE()) {
  (void)index;
  tessel_kernel_ctx* ctx = tessel_ctx();
  ctx->api->fail(ctx, "get_compile_time_arg_val: index beyond the kernel's compile-time arguments", file, line);
  return 0;
}
consteval uint32_t named_arg(const char* name) {
  for (uint32_t i = 0; i < named_compile_time_arg_count; ++i)
    if (str_eq(named_compile_time_args[i].name, name)) return named_compile_time_args[i].value;
  return error_no_compile_time_arg_with_this_name();
}
constexpr uint32_t cta(uint32_t index) {
  return index < tessel_compile_time_arg_count ? kernel_compile_time_args[index]
                                               : error_compile_time_arg_index_out_of_range(index);
}
} // namespace tessel_detail

#define get_compile_time_arg_val(i) (tessel_detail::cta(i))
#define get_named_compile_time_arg_val(name) (tessel_detail::named_arg(name))

__attribute__((weak)) void kernel_main();
namespace NAMESPACE {
__attribute__((weak)) void kernel_main();
}

extern "C" {
__attribute__((visibility("default"))) extern const uint32_t tessel_kernel_abi_version;
const uint32_t tessel_kernel_abi_version = TESSEL_KERNEL_ABI_VERSION;

// 1 if the source defines a kernel_main in either spelling (checked at load).
__attribute__((visibility("default"))) int tessel_kernel_has_main(void) {
  return &::kernel_main != nullptr || &NAMESPACE::kernel_main != nullptr;
}

// Returns 0 when it ran the kernel, 1 when the source defines no kernel_main.
__attribute__((visibility("default"))) int tessel_kernel_entry(void) {
  if (&::kernel_main != nullptr) {
    ::kernel_main();
    return 0;
  }
  if (&NAMESPACE::kernel_main != nullptr) {
    NAMESPACE::kernel_main();
    return 0;
  }
  return 1;
}
}

#endif // TESSEL_KERNEL_PRELUDE_H
