#include "sim/fault.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cxxabi.h>
#include <link.h>
#include <unwind.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <vector>

#include "sim/chip.hpp"
#include "sim/l1_window.hpp"
#include "sim/watchdog.hpp"

extern "C" [[noreturn]] void tessel_fault_landing(tessel::sim::Fiber* f);

namespace tessel::sim {

namespace {
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, kWatchdogSignal};
constexpr size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction g_previous[kSignalCount];
std::terminate_handler g_previous_terminate = nullptr;

const struct sigaction& previous_action(int sig) {
  size_t i = 0;
  while (kSignals[i] != sig)
    ++i;
  return g_previous[i];
}

// The executable segments of the runtime itself and of the C and C++
// libraries (found once, before any signal): code a kernel calls into, where
// a fiber may hold a lock.
struct CodeRange {
  uintptr_t lo = 0, hi = 0;
  bool contains(uintptr_t a) const { return a >= lo && a < hi; }
};
std::array<CodeRange, 3> g_runtime_code;

bool in_runtime_code(uintptr_t pc) {
  for (const CodeRange& r : g_runtime_code)
    if (r.contains(pc)) return true;
  return false;
}

void find_runtime_code() {
  const void* codes[] = {reinterpret_cast<const void*>(&install_fault_handler), dlsym(RTLD_DEFAULT, "malloc"),
                         dlsym(RTLD_DEFAULT, "_ZSt9terminatev")};
  for (size_t i = 0; i < g_runtime_code.size(); ++i)
    if (codes[i]) kernel_code_range(codes[i], &g_runtime_code[i].lo, &g_runtime_code[i].hi);
}

// Hands a signal that is not for a running kernel to the handler that was
// there before; false when that is the default action.
bool chain_to_previous(int sig, siginfo_t* info, void* uc_raw) {
  const struct sigaction& prev = previous_action(sig);
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction == nullptr) return false;
    prev.sa_sigaction(sig, info, uc_raw);
    return true;
  }
  if (prev.sa_handler == SIG_DFL) return false;
  if (prev.sa_handler != SIG_IGN) prev.sa_handler(sig);
  return true;
}

void on_fault(int sig, siginfo_t* info, void* uc_raw) {
  Fiber* f = running_fiber();
  auto* uc = static_cast<ucontext_t*>(uc_raw);
  bool in_flight = false;
  if (sig == SIGSEGV && (f == nullptr || f->fault_signal == 0)) {
    // Pages the checked NoC mode guards (checked_noc.hpp).
#if defined(__x86_64__)
    const uintptr_t pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
    const int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0; // the page fault's W/R bit
#else
    const uintptr_t pc = uintptr_t(uc->uc_mcontext.pc);
    const int write = -1;
#endif
    switch (checked_noc_fault(f, reinterpret_cast<uintptr_t>(info->si_addr), pc, write)) {
    case GuardedFault::Landed: return; // the access runs again
    case GuardedFault::InFlight: in_flight = true; break;
    case GuardedFault::NotGuarded: break;
    }
    // An L1 offset used as a pointer (l1_window.hpp).
    if (f != nullptr && !in_flight &&
        l1_window_map(f, reinterpret_cast<uintptr_t>(info->si_addr), &f->l1_window_refusal))
      return; // the access runs again
  }
  // W4 (watchdog.hpp): the run must stop. Dropped (the watchdog signals
  // again while the thread goes on) when it finds no fiber, when the stop
  // time moved since it was sent (the command completed), or when it lands in
  // the runtime's own code, which may hold a lock the stop would never free.
  const bool stopping = sig == kWatchdogSignal && t_watch && t_watch->stopping.exchange(0, std::memory_order_relaxed);
  if (stopping) {
    if (f == nullptr || f->fault_signal != 0) return;
    const int64_t stop_at = t_watch->stop_at_ns.load(std::memory_order_relaxed);
    struct timespec now {};
    clock_gettime(CLOCK_MONOTONIC, &now); // steady_clock's, async-signal-safe
    if (stop_at == 0 || int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec < stop_at) return;
#if defined(__x86_64__)
    if (in_runtime_code(uintptr_t(uc->uc_mcontext.gregs[REG_RIP]))) return;
#elif defined(__aarch64__)
    if (in_runtime_code(uintptr_t(uc->uc_mcontext.pc))) return;
#endif
  }
  if (f == nullptr || f->fault_signal != 0) {
    // Not kernel code, or a fault while recovering from one.
    if (sig == kWatchdogSignal) {
      // The kernel moved on meanwhile, or the signal is the host program's own.
      chain_to_previous(sig, info, uc_raw);
      return;
    }
    if (sig == SIGABRT) {
      // The host's own abort(): its handler, or the default action now.
      if (chain_to_previous(sig, info, uc_raw)) return;
      sigaction(sig, &previous_action(sig), nullptr);
      raise(sig);
      return;
    }
    sigaction(sig, &previous_action(sig), nullptr);
    return; // the instruction faults again under the previous action
  }
  f->fault_signal = in_flight ? kInFlightSignal : stopping ? kStoppedSignal : sig;
  f->fault_address = reinterpret_cast<uintptr_t>(info->si_addr);
#if defined(__x86_64__)
  f->fault_pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
  f->fault_sp = uintptr_t(uc->uc_mcontext.gregs[REG_RSP]);
  // Emergency stack: top of the slot's header page, 16-byte aligned, as if
  // tessel_fault_landing had been called.
  uintptr_t top = (reinterpret_cast<uintptr_t>(f->slot) + 4096) & ~uintptr_t(15);
  uc->uc_mcontext.gregs[REG_RSP] = greg_t(top - 8);
  uc->uc_mcontext.gregs[REG_RIP] = greg_t(reinterpret_cast<uintptr_t>(&tessel_fault_landing));
  uc->uc_mcontext.gregs[REG_RDI] = greg_t(reinterpret_cast<uintptr_t>(f));
#elif defined(__aarch64__)
  f->fault_pc = uintptr_t(uc->uc_mcontext.pc);
  f->fault_sp = uintptr_t(uc->uc_mcontext.sp);
  uintptr_t top = (reinterpret_cast<uintptr_t>(f->slot) + 4096) & ~uintptr_t(15);
  uc->uc_mcontext.sp = top;
  uc->uc_mcontext.pc = reinterpret_cast<uintptr_t>(&tessel_fault_landing);
  uc->uc_mcontext.regs[0] = reinterpret_cast<uintptr_t>(f);
#else
#error "fault recovery is implemented for x86-64 and aarch64"
#endif
}

// std::terminate in a kernel fiber: an exception escaped kernel_main (the
// C++ runtime calls terminate with the throwing frames still on the stack),
// or the kernel called terminate itself. The fiber is stopped with a report;
// anywhere else the previous handler runs.
[[noreturn]] void on_terminate() {
  Fiber* f = running_fiber();
  if (f == nullptr || f->fault_signal != 0) {
    if (g_previous_terminate) g_previous_terminate();
    std::abort();
  }
  std::string what = "std::terminate() was called";
  if (std::exception_ptr ep = std::current_exception()) {
    what = "an exception escaped kernel_main: ";
    if (const std::type_info* type = abi::__cxa_current_exception_type()) {
      int status = 0;
      char* name = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
      what += status == 0 && name ? name : type->name();
      std::free(name);
    }
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what += std::string(": ") + e.what();
    } catch (...) {
    }
    ep = nullptr;
    // The C++ runtime began a catch of the exception before calling
    // terminate; end it so that the exception is freed and this thread's
    // exception state is as it was (the fiber's frames are abandoned).
    abi::__cxa_end_catch();
  }
  const uintptr_t caller = kernel_caller_from_here(reinterpret_cast<const void*>(f->entry));
  std::string report =
      f->core->chip->where_at(f, caller) + "kernel '" + (f->kernel_name ? f->kernel_name : "?") + "' crashed: " + what;
  std::string().swap(what);
  f->core->chip->fail_report(f, std::move(report), true);
}

} // namespace

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    l1_window_reserve();
    find_runtime_code();
    struct sigaction sa = {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignalCount; ++i)
      sigaction(kSignals[i], &sa, &g_previous[i]);
    g_previous_terminate = std::set_terminate(on_terminate);
  });
}

void ensure_fault_stack() {
  thread_local bool done = false;
  if (done) return;
  stack_t current = {};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE) && current.ss_size >= 32768) {
    done = true;
    return;
  }
  constexpr size_t kBytes = 64 * 1024;
  void* mem = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  stack_t ss = {};
  ss.ss_sp = mem;
  ss.ss_size = kBytes;
  sigaltstack(&ss, nullptr);
  done = true; // the stack lives as long as the thread (deliberately not freed)
}

namespace {
// Runs `addr2line -i -e so 0xOFFSET` (no shell) and returns its output lines:
// the innermost inlined frame first, the function compiled at the PC last.
std::vector<std::string> addr2line_frames(const char* so_path, uintptr_t offset) {
  std::vector<std::string> frames;
  int fds[2];
  if (pipe(fds) != 0) return frames;
  char hex_offset[32];
  std::snprintf(hex_offset, sizeof hex_offset, "0x%zx", size_t(offset));
  char* const argv[] = {const_cast<char*>("addr2line"),
                        const_cast<char*>("-i"),
                        const_cast<char*>("-e"),
                        const_cast<char*>(so_path),
                        hex_offset,
                        nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc == 0) {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
      text.append(buf, size_t(n));
    waitpid(pid, nullptr, 0);
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      // "file:line (discriminator n)" -> "file:line"
      if (auto sp = line.find(' '); sp != std::string::npos) line.resize(sp);
      if (!line.empty() && line.rfind("??", 0) != 0) frames.push_back(line);
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
  }
  close(fds[0]);
  return frames;
}
} // namespace

std::string source_location_of(uintptr_t pc) {
  Dl_info info = {};
  if (pc == 0 || dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) return {};
  const std::vector<std::string> frames =
      addr2line_frames(info.dli_fname, pc - reinterpret_cast<uintptr_t>(info.dli_fbase));
  if (frames.empty()) return {};
  // The innermost frame in the kernel's own source, not in a kernel API header.
  std::string out = frames.front();
  for (const std::string& f : frames) {
    const auto colon = f.rfind(':');
    const std::string file = f.substr(0, colon);
    if (file.size() < 2 || file.compare(file.size() - 2, 2, ".h") != 0) {
      out = f;
      break;
    }
  }
  // Kernels given as source text are compiled from <cache>/sources/<hash>/<name>:
  // report them by name, as their other messages do.
  if (auto at = out.find("/sources/"); at != std::string::npos) {
    auto name = out.find('/', at + 9);
    if (name != std::string::npos) out = out.substr(name + 1);
  }
  return out;
}

namespace {

// The executable segment of the loaded object that holds `code`.
CodeRange code_range_of(const void* code) {
  struct Search {
    uintptr_t address;
    CodeRange found;
  } search{reinterpret_cast<uintptr_t>(code), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
          const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          if (s->address >= lo && s->address < lo + ph.p_memsz) {
            s->found = {lo, lo + ph.p_memsz};
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.found;
}

// Whether the instruction before `ret` in `code` is a call (so `ret` is a
// return address and not a stray code pointer).
bool follows_call(uintptr_t ret, const CodeRange& code) {
#if defined(__x86_64__)
  if (ret < code.lo + 7) return false;
  const auto* b = reinterpret_cast<const uint8_t*>(ret);
  if (b[-5] == 0xE8) return true; // call rel32
  // call r/m64 (FF /2) with a register, [reg], disp8, disp32 or rip-relative operand, maybe after a REX prefix.
  for (int len : {2, 3, 4, 6, 7}) {
    const uint8_t* op = b - len;
    if (op[0] == 0xFF && ((op[1] >> 3) & 7) == 2) return true;
  }
  return false;
#elif defined(__aarch64__)
  if (ret < code.lo + 4 || (ret & 3)) return false;
  const uint32_t insn = *reinterpret_cast<const uint32_t*>(ret - 4);
  return (insn & 0xFC000000u) == 0x94000000u || (insn & 0xFFFFFC1Fu) == 0xD63F0000u; // bl, blr
#else
  (void)ret;
  (void)code;
  return true;
#endif
}

// The stack of a crashed fiber is read as plain words, redzones and all.
__attribute__((no_sanitize("address"))) uintptr_t scan_for_return(uintptr_t sp, uintptr_t stack_end,
                                                                  const CodeRange& code) {
  for (uintptr_t a = sp & ~uintptr_t(7); a + 8 <= stack_end; a += 8) {
    const uintptr_t word = *reinterpret_cast<const uintptr_t*>(a);
    if (code.contains(word) && follows_call(word, code)) return word;
  }
  return 0;
}

std::string object_name_of(uintptr_t pc) {
  Dl_info info = {};
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr || !*info.dli_fname)
    return "the host program";
  std::string name = info.dli_fname;
  if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  return name;
}

} // namespace

KernelFrame kernel_frame(const void* kernel_code, uintptr_t pc, uintptr_t sp, uintptr_t stack_end) {
  const CodeRange code = code_range_of(kernel_code);
  if (code.contains(pc) || code.lo == 0) return {pc, false, {}};
  KernelFrame frame{scan_for_return(sp, stack_end, code), true, object_name_of(pc)};
  if (frame.pc == 0) frame.return_address = false;
  return frame;
}

void kernel_code_range(const void* code, uintptr_t* lo, uintptr_t* hi) {
  const CodeRange range = code_range_of(code);
  *lo = range.lo;
  *hi = range.hi;
}

uintptr_t kernel_caller_from_here(const void* kernel_code) {
  struct Walk {
    CodeRange code;
    uintptr_t found = 0;
  } walk{code_range_of(kernel_code)};
  _Unwind_Backtrace(
      [](_Unwind_Context* ctx, void* data) {
        auto* w = static_cast<Walk*>(data);
        const uintptr_t ip = _Unwind_GetIP(ctx);
        if (w->code.contains(ip)) {
          w->found = ip;
          return _URC_END_OF_STACK;
        }
        return _URC_NO_REASON;
      },
      &walk);
  return walk.found;
}

} // namespace tessel::sim
