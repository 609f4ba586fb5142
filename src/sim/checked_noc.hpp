// The checked NoC completion mode (design §1.3, docs/guide.md "NoC modes").
//
// In the default eager mode a NoC transfer's data moves when the transfer is
// issued. In checked mode it moves later, as silicon may deliver it:
//  - a read lands at the issuing RISC's read barrier (noc_async_read_barrier
//    or the full barrier), and no sooner unless something else needs its
//    bytes (below);
//  - a write lands at the writer's write barrier or flush, before the same
//    RISC's next semaphore or inline write (they follow it on the NoC), and
//    at the writer's scheduling points (it blocks or yields): silicon
//    completes a write whether or not the kernel waits for it.
// Until then a read's destination holds its old bytes and a write's
// destination (another core's L1, or DRAM) too.
//
// Catching the kernel that does not wait. The L1 pages under a read's
// destination are made inaccessible, and those under a write's source
// read-only (mprotect), until the transfer lands. A kernel's own load from
// the destination range, or store into the source range, then faults; the
// fault handler (fault.cpp) asks on_fault() what it was:
//  - an access by kernel code (a RISC of that core) inside the range: the
//    run stops with a KernelError naming the core, the RISC, the access's
//    source line and the transfer's;
//  - anything else that touched those pages (another address on a shared
//    page, the simulator's own code, the card agent): the transfers on the
//    page land now, in each RISC's issue order, and the access is retried.
//    That is never wrong: data may land at any time before its barrier.
//
// Cost: two mprotect calls per transfer (the mode is for finding bugs;
// `tessel bench checked_noc` measures it: 12-25x on 120-core copies and
// adds). Nothing in eager mode changes.
//
// Thread-safety: checked mode runs under the single-threaded policies only
// (Chip::set_noc_mode refuses the parallel one), so a chip's state here is
// touched by its run's thread, in kernel calls and in the synchronous fault
// handler on the same thread. The handler allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessel::sim {

class Chip;
struct Core;
struct Fiber;

enum class NocMode : uint8_t { Eager, Checked };

// "eager" or "checked"; throws ValidationError naming `where` otherwise.
NocMode parse_noc_mode(const std::string& text, const char* where);
const char* noc_mode_name(NocMode mode);

// One transfer issued and not landed yet.
struct PendingTransfer {
  uint8_t* dst = nullptr;
  const uint8_t* src = nullptr;
  Core* dst_core = nullptr; // the destination core, whose waiters are woken when it lands (null: DRAM)
  uint32_t size = 0;
  uint32_t lo = 0, hi = 0; // the guarded L1 offsets of the issuer's core: a read's destination, a write's source
  bool read = false;
  const char* call = nullptr;
  const char* file = nullptr;
  uint32_t line = 0;
};

// What the fault handler should do with a fault on an address.
enum class GuardedFault : uint8_t {
  NotGuarded, // no pending transfer guards it: a real fault
  Landed,     // transfers landed; retry the access
  InFlight,   // a kernel's access to a transfer's range: report (Fiber::in_flight)
};

class CheckedNoc {
public:
  explicit CheckedNoc(Chip& chip);
  ~CheckedNoc();
  CheckedNoc(const CheckedNoc&) = delete;
  CheckedNoc& operator=(const CheckedNoc&) = delete;

  // On the issuing RISC's fiber, after the transfer was checked. `lo` is the
  // L1 offset on the issuer's core of the read's destination / write's source.
  void issue(Fiber& f, const PendingTransfer& t);
  // Lands f's pending reads and/or writes, in issue order.
  void land(Fiber& f, bool reads, bool writes);
  // The run ended (either way): every transfer of its fibers lands.
  void end_run(const std::vector<Fiber*>& fibers);

  // From the fault handler, on the faulting thread. `running` may be null;
  // `write` is 1 / 0 when the hardware said whether the access was a store,
  // -1 when unknown. On InFlight, running->in_flight holds the transfer.
  GuardedFault on_fault(Fiber* running, uintptr_t address, uintptr_t pc, int write);

  // The report for a fiber stopped by GuardedFault::InFlight (host thread).
  std::string in_flight_report(const Fiber& f) const;

private:
  struct Guards; // per core: page counts
  Guards& guards_of(const Core& core);
  void guard(const Core& core, uint32_t lo, uint32_t hi, bool read, int delta);
  void land_one(const PendingTransfer& t);
  void set_span(const uint8_t* lo, const uint8_t* hi, bool open);

  Chip& chip_;
  std::vector<std::unique_ptr<Guards>> guards_; // per core, made on its first transfer
  uint32_t slot_ = 0;                           // this chip's entry in the handler's registry
};

// Finds the checked chip whose L1 holds `address` and asks it (fault.cpp).
GuardedFault checked_noc_fault(Fiber* running, uintptr_t address, uintptr_t pc, int write);

} // namespace tessel::sim
