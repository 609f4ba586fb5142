// Faults in kernel code (design §8): a SIGSEGV/SIGBUS/SIGFPE/SIGILL raised
// while a kernel fiber runs becomes a KernelFault naming core, RISC and the
// source line, instead of a dead process.
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

} // namespace tessel::sim
