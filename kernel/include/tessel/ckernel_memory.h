// The parts of tt-llk's ckernel.h and ckernel_defs.h that data-movement and
// compute kernels alike reach for. ckernel::load_blocking: a load that
// completes before the next instruction (on silicon it drains the core's
// earlier stores to the same memory first); each simulated RISC's loads and
// stores complete in program order, so it is a plain volatile load.
#ifndef TESSEL_CKERNEL_MEMORY_H
#define TESSEL_CKERNEL_MEMORY_H

#include <stdint.h>

#include "tessel/kernel_abi.h"

namespace ckernel {
template <typename T>
inline T load_blocking(volatile T* ptr) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "load_blocking: operand must be 16-bit or 32-bit");
  return *ptr;
}

// Waits for the Tensix pipeline to drain; each simulated call completes
// before the next, so there is nothing to wait for.
inline void tensix_sync() {}

// The RISCs' mailboxes (BRISC to each TRISC thread): named so that kernels
// with a mailbox path compile; a kernel that reaches one stops with an error
// (tessel's compute context plays the three TRISCs, and RISC-to-RISC
// mailboxes are not modelled).
enum ThreadId { BriscThreadId = 0, UnpackThreadId = 1, MathThreadId = 2, PackThreadId = 3 };
[[noreturn]] __attribute__((noinline, cold)) inline void mailbox_unsupported(const char* call, const char* file,
                                                                             uint32_t line) {
  char message[200];
  __builtin_snprintf(message, sizeof message,
                     "ckernel::%s: the mailboxes between a core's RISCs are not modelled by tessel (use a CB or a "
                     "semaphore to pass the value)",
                     call);
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k, message, file, line);
  __builtin_unreachable();
}
inline void mailbox_write(uint8_t thread, uint32_t data, const char* file = __builtin_FILE(),
                          uint32_t line = __builtin_LINE()) {
  (void)thread, (void)data;
  mailbox_unsupported("mailbox_write", file, line);
}
inline uint32_t mailbox_read(uint8_t thread, const char* file = __builtin_FILE(), uint32_t line = __builtin_LINE()) {
  (void)thread;
  mailbox_unsupported("mailbox_read", file, line);
}
} // namespace ckernel

#endif // TESSEL_CKERNEL_MEMORY_H
