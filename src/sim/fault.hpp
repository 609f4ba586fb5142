// Faults in kernel code (design §8): a SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT
// raised while a kernel fiber runs, and std::terminate (an exception that
// escapes kernel_main, or a direct call), become a KernelFault naming core,
// RISC and the kernel's source line, instead of a dead process. (A kernel's
// own calls to abort, exit, assert's failure and the like never reach the C
// library: the JIT links them to the prelude's replacements, see
// kernel_prelude.h.)
//
// Mechanism: the handler runs on a per-thread alternate stack. If the
// faulting thread is running a kernel fiber, it records the signal, address
// and PC in the fiber and rewrites the interrupted context so that, on
// return, execution continues in tessel_fault_landing() on the fiber slot's
// emergency stack (its header page), which switches back to the scheduler.
// The fiber's own stack is abandoned. Any other fault gets the default action.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::sim {

struct Fiber;

// Install the process-wide handler (idempotent).
void install_fault_handler();
// Give the calling thread an alternate signal stack (idempotent per thread).
void ensure_fault_stack();
// The fiber running on this thread, or null.
Fiber* running_fiber();
// "file:line" of a code address inside a loaded kernel, or "" if unknown.
std::string source_location_of(uintptr_t pc);

// Where a crash is blamed: the innermost frame in the kernel's own code.
struct KernelFrame {
  uintptr_t pc = 0; // the faulting instruction, or a return address (return_address set)
  bool return_address = false;
  std::string outside; // file name of the object the crash happened in, when not the kernel's
};
// `kernel_code` is any address in the kernel's object (its entry point);
// `pc`/`sp` are the registers at the crash, `stack_end` the top of the
// fiber's stack. When pc is outside the kernel, the stack is scanned for the
// innermost return address into the kernel's code.
KernelFrame kernel_frame(const void* kernel_code, uintptr_t pc, uintptr_t sp, uintptr_t stack_end);
// The executable segment [*lo, *hi) of the loaded object holding `code`
// (both 0 when unknown). Not for signal handlers.
void kernel_code_range(const void* code, uintptr_t* lo, uintptr_t* hi);
// The innermost return address into the kernel's code on the calling stack
// (unwinding from here), or 0.
uintptr_t kernel_caller_from_here(const void* kernel_code);

} // namespace tessel::sim
