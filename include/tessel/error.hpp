// tessel's one exception hierarchy.
//
// Every public call reports misuse by throwing a subclass of tessel::Error.
// A message names what was wrong, where (core, RISC, kernel file:line, CB
// index, address) and what was expected. A call that throws leaves the
// device, the caches and the caller's objects as they were.
#pragma once

#include <stdexcept>
#include <string>

namespace tessel {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A kernel failed to compile or load; what() carries the compiler output and kernel path.
class ProgramError : public Error {
public:
  using Error::Error;
};

// Invalid input to a host call, found before anything was changed.
class ValidationError : public Error {
public:
  using Error::Error;
};

// Allocation failed: not enough DRAM or L1.
class OutOfMemoryError : public Error {
public:
  using Error::Error;
};

// No simulated RISC could make progress; what() is the per-RISC report.
class DeadlockError : public Error {
public:
  using Error::Error;
};

// A kernel broke a device rule at run time (CB protocol, NoC alignment or
// bounds, argument index, ...); what() names core, RISC and source line.
class KernelError : public Error {
public:
  using Error::Error;
};

// A kernel crashed (bad pointer, stack overflow, ...); what() names core,
// RISC and the source line of the faulting instruction when known.
class KernelFault : public Error {
public:
  using Error::Error;
};

// A run stopped by tessel::request_interrupt() (interrupt.hpp; Ctrl-C in
// Python). The device stays usable.
class Interrupted : public Error {
public:
  using Error::Error;
};

} // namespace tessel
