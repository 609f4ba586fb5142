// Force-included (-include) before every kernel source by the JIT.
//
// It defines the kernel's entry point, `tessel_kernel_entry`, which calls the
// user's `kernel_main` in either spelling TT-Metalium accepts:
//   void kernel_main() { ... }                       (data movement, new compute)
//   namespace NAMESPACE { void MAIN { ... } }         (older compute)
// Both are declared weak here so that whichever the source defines is called.
//
// It also replaces, in kernel code, the calls that would end the process or
// its thread (abort, exit, _exit, _Exit, quick_exit, assert's failure,
// std::terminate, __stack_chk_fail, pthread_exit): the JIT links the kernel
// with --wrap for each, so they reach tessel_wrap_* below, which stop the
// kernel with a report naming its source line. (Such calls made inside host
// libraries are caught as signals or by the terminate handler, sim/fault.hpp.)
//
// Last, it includes what Metalium's firmware includes before a kernel (the
// end of this file).
//
// Compile-time arguments arrive from the JIT as -DTESSEL_CTA_LIST=a,b,c and
// named ones as -DTESSEL_NAMED_CTA_LIST={"name",value},...
#ifndef TESSEL_KERNEL_PRELUDE_H
#define TESSEL_KERNEL_PRELUDE_H

#include "tessel/kernel_abi.h"

#ifndef NAMESPACE
#define NAMESPACE tessel_kernel
#endif
// Metalium's build defines KERNEL_BUILD for kernels (firmware has FW_BUILD);
// headers shared with the host test it.
#ifndef KERNEL_BUILD
#define KERNEL_BUILD 1
#endif

// One compute context plays UNPACK, MATH and PACK (tessel/compute.h); of the
// three thread macros Metalium defines one per build, a compute kernel here
// sees TRISC_MATH, the thread whose code uses the SFPU (SFPI kernels put it
// under #ifdef TRISC_MATH). Code only under TRISC_UNPACK or TRISC_PACK is
// not compiled. The RISC-V size estimate (TESSEL_CROSS_ESTIMATE,
// src/jit/cross_build.hpp) builds each TRISC thread apart, as Metalium does,
// and defines the thread's macro itself.
// Metalium's build also names the thread as UCK_CHLKC_MATH and
// COMPILE_FOR_TRISC=1 (0 unpack, 2 pack); kernels test those too.
#if defined(TESSEL_KERNEL_COMPUTE) && !defined(TRISC_MATH) && !defined(TESSEL_CROSS_ESTIMATE)
#define TRISC_MATH 1
#define UCK_CHLKC_MATH 1
#define COMPILE_FOR_TRISC 1
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
inline uint32_t error_no_compile_time_arg_with_this_name(const char* file = __builtin_FILE(),
                                                         uint32_t line = __builtin_LINE()) {
  tessel_kernel_ctx* ctx = tessel_ctx();
  ctx->api->fail(ctx, "get_named_compile_time_arg_val: no compile-time argument has this name", file, line);
  return 0;
}
inline uint32_t error_compile_time_arg_index_out_of_range(uint32_t index, const char* file = __builtin_FILE(),
                                                          uint32_t line = __builtin_LINE()) {
  (void)index;
  tessel_kernel_ctx* ctx = tessel_ctx();
  ctx->api->fail(ctx, "get_compile_time_arg_val: index beyond the kernel's compile-time arguments", file, line);
  return 0;
}
// constexpr, as Metalium's is: a kernel may look names up inside its own
// constexpr helpers. In a constant expression an unknown name fails the
// build; reached at run time, it stops the kernel with a report.
constexpr uint32_t named_arg(const char* name, const char* file = __builtin_FILE(), uint32_t line = __builtin_LINE()) {
  for (uint32_t i = 0; i < named_compile_time_arg_count; ++i)
    if (str_eq(named_compile_time_args[i].name, name)) return named_compile_time_args[i].value;
  return error_no_compile_time_arg_with_this_name(file, line);
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

// ---------------------------------------------------------------------------
// Calls that would end the process (see the top of this file). The names are
// the linker's: --wrap=abort sends the kernel's calls to abort to __wrap_abort.
// Each passes its own first four arguments, which function it replaces and its
// return address (the kernel's call site) to the simulator's kernel_exit.
//
// On x86-64 they are assembly stubs: nine C++ functions would add ~10 ms to
// every kernel's compile, the stubs nothing measurable.

#if defined(__x86_64__)
static_assert(TESSEL_FIBER_SLOT_BYTES == 524288u, "the stubs' slot mask");
#define TESSEL_ASM_STR2(x) #x
#define TESSEL_ASM_STR(x) TESSEL_ASM_STR2(x)
#define TESSEL_EXIT_STUB(name, how)                                                                                    \
  ".globl " #name "\n.hidden " #name "\n.type " #name ",@function\n" #name ":\n  movl $" #how                          \
  ", %eax\n  jmp tessel_exit_stub\n"
// tessel_exit_stub: kernel_exit(ctx, how = eax, a0..a3 = rdi, rsi, rdx, rcx,
// caller = the return address on top of the stack). The context is found from
// the stack pointer (kernel_abi.h); pushing the 7th argument aligns the stack.
// clang-format off
asm(".pushsection .text\n.p2align 4\n"
    TESSEL_EXIT_STUB(__wrap_abort, 0) TESSEL_EXIT_STUB(__wrap_exit, 1) TESSEL_EXIT_STUB(__wrap__exit, 2)
    TESSEL_EXIT_STUB(__wrap__Exit, 3) TESSEL_EXIT_STUB(__wrap_quick_exit, 4)
    TESSEL_EXIT_STUB(__wrap___assert_fail, 5) TESSEL_EXIT_STUB(__wrap__ZSt9terminatev, 6)
    TESSEL_EXIT_STUB(__wrap___stack_chk_fail, 7) TESSEL_EXIT_STUB(__wrap_pthread_exit, 8)
    ".type tessel_exit_stub,@function\n"
    "tessel_exit_stub:\n"
    "  mov %rcx, %r9\n  mov %rdx, %r8\n  mov %rsi, %rcx\n  mov %rdi, %rdx\n  mov %eax, %esi\n"
    "  mov %rsp, %rdi\n  and $-524288, %rdi\n  mov (%rdi), %rdi\n"
    "  mov (%rsp), %rax\n  push %rax\n"
    "  mov " TESSEL_ASM_STR(TESSEL_CTX_API_OFFSET) "(%rdi), %rax\n"
    "  call *" TESSEL_ASM_STR(TESSEL_API_KERNEL_EXIT_OFFSET) "(%rax)\n"
    "  ud2\n"
    ".popsection\n");
// clang-format on
#undef TESSEL_EXIT_STUB
#else
[[noreturn]] __attribute__((noinline)) inline void tessel_kernel_exit(uint32_t how, uintptr_t a0, uintptr_t a1,
                                                                      uintptr_t a2, uintptr_t a3, void* caller) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->kernel_exit(k, how, a0, a1, a2, a3, (uintptr_t)caller);
  __builtin_trap();
}
#define TESSEL_WRAPPER(name, how, params, ...)                                                                         \
  extern "C" [[noreturn]] __attribute__((visibility("hidden"), noinline)) void name params {                           \
    tessel_kernel_exit(how, __VA_ARGS__, __builtin_return_address(0));                                                 \
  }
TESSEL_WRAPPER(__wrap_abort, TESSEL_EXIT_ABORT, (void), 0, 0, 0, 0)
TESSEL_WRAPPER(__wrap_exit, TESSEL_EXIT_EXIT, (int s), (uintptr_t)s, 0, 0, 0)
TESSEL_WRAPPER(__wrap__exit, TESSEL_EXIT_UNDERSCORE, (int s), (uintptr_t)s, 0, 0, 0)
TESSEL_WRAPPER(__wrap__Exit, TESSEL_EXIT_UPPER, (int s), (uintptr_t)s, 0, 0, 0)
TESSEL_WRAPPER(__wrap_quick_exit, TESSEL_EXIT_QUICK, (int s), (uintptr_t)s, 0, 0, 0)
TESSEL_WRAPPER(__wrap___assert_fail, TESSEL_EXIT_ASSERT, (const char* e, const char* f, unsigned l, const char* fn),
               (uintptr_t)e, (uintptr_t)f, l, (uintptr_t)fn)
TESSEL_WRAPPER(__wrap__ZSt9terminatev, TESSEL_EXIT_TERMINATE, (void), 0, 0, 0, 0)
TESSEL_WRAPPER(__wrap___stack_chk_fail, TESSEL_EXIT_STACK_SMASH, (void), 0, 0, 0, 0)
TESSEL_WRAPPER(__wrap_pthread_exit, TESSEL_EXIT_THREAD_EXIT, (void* v), (uintptr_t)v, 0, 0, 0)
#undef TESSEL_WRAPPER
#endif

// ---------------------------------------------------------------------------
// What TT-Metalium's firmware includes before every kernel of its kind, so a
// kernel may call these APIs without including them: the dataflow API and
// DPRINT for data-movement kernels, DPRINT for compute kernels, and the
// device profiler's macros for both.
#if defined(TESSEL_KERNEL_DATA_MOVEMENT)
#include "api/dataflow/dataflow_api.h"
#endif
#include "api/debug/dprint.h"
#include "tessel/profiler.h"
// A kernel with named bindings gets their declarations, as Metalium's JIT
// includes its generated headers before such a kernel.
#ifdef TESSEL_KERNEL_BINDINGS
#include "tessel/kernel_bindings.h"
#endif

#endif // TESSEL_KERNEL_PRELUDE_H
