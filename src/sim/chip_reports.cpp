// The chip's reports: what each blocked RISC waits for (a deadlock), what a
// crash was and where (a fault), and the words of an interrupted run; and
// the exceptions that end a failed run with them.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "sim/checked_noc.hpp"
#include "sim/chip.hpp"
#include "sim/fault.hpp"
#include "sim/watchdog.hpp"
#include "tessel/error.hpp"
#include "tessel/interrupt.hpp"

namespace tessel::sim {

namespace {
constexpr size_t kPage = 4096;
constexpr size_t kSlot = TESSEL_FIBER_SLOT_BYTES;

std::string hex(uintptr_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%zx", size_t(value));
  return buf;
}

// An access at a low address the L1 window did not map (l1_window.hpp): why.
std::string l1_offset_refusal(const Fiber* f) {
  const std::string advice =
      "; pointers into L1 come from get_write_ptr/get_read_ptr/get_semaphore or from an L1 address the host gave";
  switch (f->l1_window_refusal) {
  case L1WindowRefusal::PastL1:
    return "an L1 offset used as a pointer, past the end of L1 (" + hex(f->core->chip->memory().l1_size_bytes()) +
           " bytes)" + advice;
  case L1WindowRefusal::BelowFloor:
    return "an L1 offset used as a pointer, below " + hex(l1_window_floor()) +
           " (vm.mmap_min_addr), where this process cannot map L1; L1 there holds runtime arguments, semaphores and "
           "the first circular buffers" +
           advice;
  case L1WindowRefusal::ManyThreads:
    return "an L1 offset used as a pointer while more than one thread runs kernels (the parallel policy, or two "
           "devices at once): tessel maps L1 offsets as pointers only while one thread runs kernels; run under the "
           "deterministic policy, or use the pointer from get_write_ptr/get_read_ptr";
  case L1WindowRefusal::Unsupported:
    return "an L1 offset used as a pointer; this host cannot map L1 at its offsets (no memfd, or the low addresses "
           "are taken)" +
           advice;
  case L1WindowRefusal::None: break;
  }
  return "this looks like an L1 offset used as a pointer" + advice;
}
} // namespace

std::string Chip::interrupted_report(size_t launches) const {
  return "the run was interrupted (tessel::request_interrupt, Ctrl-C) after " + std::to_string(switches_) +
         " fiber switches of its " + std::to_string(launches) + " kernels; it was stopped and the device stays usable";
}

std::string Chip::watchdog_seconds_text() const { return std::to_string(watchdog_timeout_ms_ / 1000.0).substr(0, 4); }

std::string Chip::describe_wait(const Fiber* f) const {
  const WaitInfo& w = f->wait;
  const Core& c = *f->core;
  std::ostringstream os;
  switch (w.kind) {
  case WaitKind::CbFront:
  case WaitKind::CbBack: {
    const tessel_cb_iface& cb = c.cbs[w.cb];
    uint32_t visible = uint16_t(cb.received - cb.acked);
    os << (w.kind == WaitKind::CbFront ? "cb_wait_front" : "cb_reserve_back") << "(cb=" << w.cb << ", pages=" << w.pages
       << "): CB " << w.cb << " has " << visible << " visible, " << cb.reserved_pages << " reserved, "
       << (cb.num_pages - visible) << " free of " << cb.num_pages << " pages";
    break;
  }
  case WaitKind::SemEqual:
  case WaitKind::SemAtLeast: {
    uint32_t offset = uint32_t(reinterpret_cast<uintptr_t>(w.sem)) & TESSEL_L1_SLOT_MASK;
    os << (w.kind == WaitKind::SemEqual ? "noc_semaphore_wait" : "noc_semaphore_wait_min") << "(L1 0x" << std::hex
       << offset << std::dec << "): value " << *w.sem << ", waiting for "
       << (w.kind == WaitKind::SemEqual ? "== " : ">= ") << w.value;
    break;
  }
  case WaitKind::Card: os << "its next command (the card's mailbox)"; break;
  default: os << "(not waiting)"; break;
  }
  return os.str();
}

namespace {
std::string format_core_set(std::vector<std::pair<uint32_t, uint32_t>> cores) {
  std::sort(cores.begin(), cores.end(),
            [](auto a, auto b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
  if (cores.size() == 1) return "core (" + std::to_string(cores[0].first) + "," + std::to_string(cores[0].second) + ")";
  uint32_t x0 = ~0u, y0 = ~0u, x1 = 0, y1 = 0;
  for (auto [x, y] : cores) {
    x0 = std::min(x0, x);
    y0 = std::min(y0, y);
    x1 = std::max(x1, x);
    y1 = std::max(y1, y);
  }
  if (size_t(x1 - x0 + 1) * (y1 - y0 + 1) == cores.size())
    return "cores (" + std::to_string(x0) + "," + std::to_string(y0) + ")-(" + std::to_string(x1) + "," +
           std::to_string(y1) + ")";
  std::string s = "cores ";
  for (size_t i = 0; i < cores.size() && i < 8; ++i)
    s += (i ? ", (" : "(") + std::to_string(cores[i].first) + "," + std::to_string(cores[i].second) + ")";
  if (cores.size() > 8) s += " and " + std::to_string(cores.size() - 8) + " more";
  return s;
}
} // namespace

std::string Chip::deadlock_rows(const std::string& prefix, size_t& blocked) const {
  // Rows with the same RISC, call site and wait description are merged over cores.
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>> rows;
  std::vector<std::string> order;
  for (const Fiber* f : active_) {
    if (f->state != FiberState::Blocked) continue;
    ++blocked;
    std::string key = std::string(risc_name(f->risc)) + " at " + (f->wait.file ? f->wait.file : "?") + ":" +
                      std::to_string(f->wait.line) + " in " + describe_wait(f);
    auto [it, fresh] = rows.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.emplace_back(f->core->logical_x, f->core->logical_y);
  }
  std::string s;
  for (const std::string& key : order)
    s += "\n  " + prefix + format_core_set(rows.at(key)) + " " + key;
  return s;
}

std::string Chip::deadlock_report() const {
  size_t blocked = 0;
  const std::string rows = deadlock_rows(label_, blocked);
  return "deadlock: no RISC can make progress (" + std::to_string(blocked) + " blocked):" + rows;
}

std::string Chip::kernel_location(const Fiber* f) const {
  const KernelFrame frame = kernel_frame(reinterpret_cast<const void*>(f->entry), f->fault_pc, f->fault_sp,
                                         reinterpret_cast<uintptr_t>(f->slot) + kSlot);
  return frame.pc ? source_location_of(frame.pc) : std::string();
}

std::string Chip::fault_report(const Fiber* f) const {
  const KernelFrame frame = kernel_frame(reinterpret_cast<const void*>(f->entry), f->fault_pc, f->fault_sp,
                                         reinterpret_cast<uintptr_t>(f->slot) + kSlot);
  // Where the crash happened when it was not in the kernel's own code.
  const std::string inside = frame.outside.empty() ? "" : " (in " + frame.outside + ", called from here)";
  const std::string timeout_s = watchdog_seconds_text();
  std::string what;
  const uintptr_t addr = f->fault_address;
  const uintptr_t slot = reinterpret_cast<uintptr_t>(f->slot);
  if (f->fault_signal == SIGSEGV || f->fault_signal == SIGBUS) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "0x%zx", size_t(addr));
    if (addr >= slot + kPage && addr < slot + 2 * kPage)
      what = "stack overflow (the kernel's stack is " + std::to_string((kSlot - 2 * kPage) / 1024) + " KiB)" + inside;
    else if (addr < 16)
      what = std::string("null pointer dereference (address ") + buf + ")" + inside;
    else if (addr < DeviceMemory::kSlotBytes)
      what = std::string("invalid memory access at ") + buf + inside + ": " + l1_offset_refusal(f);
    else
      what = std::string("invalid memory access at ") + buf + inside;
  } else if (f->fault_signal == kWatchdogSignal && inside.empty()) {
    what = "ran for more than " + timeout_s +
           " s without calling the kernel API (a raw spin loop on L1? kernels share their core's host thread: "
           "wait with noc_semaphore_wait or cb_wait_front, which yield; TESSEL_WATCHDOG_S sets the limit)";
  } else if (f->fault_signal == kWatchdogSignal) {
    what = "ran for more than " + timeout_s + " s without progress" + inside +
           ": kernels share their core's host thread, so a call that sleeps or blocks stops the simulation; wait "
           "with noc_semaphore_wait or cb_wait_front, which yield; TESSEL_WATCHDOG_S sets the limit";
  } else if (f->fault_signal == SIGABRT) {
    what = "aborted (SIGABRT)" + inside +
           ": the C library or C++ runtime found an error it cannot continue from (its message, if any, is above)";
  } else if (f->fault_signal == SIGFPE) {
    what = "arithmetic fault (integer division by zero?)" + inside;
  } else if (f->fault_signal == SIGILL) {
    what = "illegal instruction (reached __builtin_unreachable or a trap?)" + inside;
  } else {
    what = "signal " + std::to_string(f->fault_signal) + inside;
  }
  std::string s;
  if (frame.return_address) {
    s = where_at(f, frame.pc);
  } else {
    const std::string location = source_location_of(frame.pc);
    s = (location.empty() ? "" : location + ": ") + where(f, nullptr, 0);
  }
  return s + "kernel '" + (f->kernel_name ? f->kernel_name : "?") + "' crashed: " + what;
}

void Chip::throw_failure(Fiber* f, std::span<const Launch> launches) {
  if (f->state == FiberState::Failed) {
    std::string msg = std::move(f->error_message);
    abort_run(launches);
    throw KernelError(msg);
  }
  if (f->fault_signal == kInFlightSignal) {
    std::string msg = checked_->in_flight_report(*f);
    abort_run(launches);
    throw KernelError(msg);
  }
  // The watchdog stopped a fiber that did not switch after the request.
  if (f->fault_signal == kWatchdogSignal && interrupt_requested()) throw_interrupted(launches);
  std::string msg = f->fault_signal == kCrashSignal ? std::move(f->error_message) : fault_report(f);
  abort_run(launches);
  throw KernelFault(msg);
}

void Chip::throw_interrupted(std::span<const Launch> launches) {
  abort_run(launches);
  throw Interrupted(interrupted_report(launches.size()));
}

void Chip::throw_stopped(std::span<const Launch> launches) {
  std::string reason = std::move(stop_reason_);
  abort_run(launches);
  throw RunStopped(reason);
}

void Chip::throw_deadlock(std::span<const Launch> launches) {
  std::string report = deadlock_report(); // before abort_run clears what it describes
  abort_run(launches);
  throw DeadlockError(report);
}

} // namespace tessel::sim
