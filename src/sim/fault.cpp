#include "sim/fault.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "sim/chip.hpp"
#include "sim/watchdog.hpp"

extern "C" [[noreturn]] void tessel_fault_landing(tessel::sim::Fiber* f);

namespace tessel::sim {

namespace {
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, kWatchdogSignal};
constexpr size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction g_previous[kSignalCount];

void on_fault(int sig, siginfo_t* info, void* uc_raw) {
  Fiber* f = running_fiber();
  if (sig == kWatchdogSignal && (f == nullptr || f->fault_signal != 0)) {
    // Not for a running kernel: the kernel moved on meanwhile, or the signal
    // is the host program's own. Hand it to the handler that was there before.
    const struct sigaction& prev = g_previous[kSignalCount - 1];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) prev.sa_sigaction(sig, info, uc_raw);
    else if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN)
      prev.sa_handler(sig);
    return;
  }
  if (f == nullptr || f->fault_signal != 0) {
    // Not kernel code (or a fault while recovering): restore and re-raise.
    for (size_t i = 0; i < kSignalCount; ++i)
      if (kSignals[i] == sig) sigaction(sig, &g_previous[i], nullptr);
    return; // the instruction faults again under the previous action
  }
  auto* uc = static_cast<ucontext_t*>(uc_raw);
  f->fault_signal = sig;
  f->fault_address = reinterpret_cast<uintptr_t>(info->si_addr);
#if defined(__x86_64__)
  f->fault_pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
  // Emergency stack: top of the slot's header page, 16-byte aligned, as if
  // tessel_fault_landing had been called.
  uintptr_t top = (reinterpret_cast<uintptr_t>(f->slot) + 4096) & ~uintptr_t(15);
  uc->uc_mcontext.gregs[REG_RSP] = greg_t(top - 8);
  uc->uc_mcontext.gregs[REG_RIP] = greg_t(reinterpret_cast<uintptr_t>(&tessel_fault_landing));
  uc->uc_mcontext.gregs[REG_RDI] = greg_t(reinterpret_cast<uintptr_t>(f));
#elif defined(__aarch64__)
  f->fault_pc = uintptr_t(uc->uc_mcontext.pc);
  uintptr_t top = (reinterpret_cast<uintptr_t>(f->slot) + 4096) & ~uintptr_t(15);
  uc->uc_mcontext.sp = top;
  uc->uc_mcontext.pc = reinterpret_cast<uintptr_t>(&tessel_fault_landing);
  uc->uc_mcontext.regs[0] = reinterpret_cast<uintptr_t>(f);
#else
#error "fault recovery is implemented for x86-64 and aarch64"
#endif
}

// Keep the low 2 MiB of the address space unmapped so L1 offsets used as
// pointers fault deterministically.
void reserve_low_addresses() {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t lo = 0x10000; // vm.mmap_min_addr's usual value; below it nothing maps
  for (uintptr_t a = lo; a < 2u * 1024 * 1024; a += uintptr_t(page)) {
    void* p = mmap(reinterpret_cast<void*>(a), size_t(page), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED && p != reinterpret_cast<void*>(a)) munmap(p, size_t(page));
  }
}
} // namespace

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    reserve_low_addresses();
    struct sigaction sa = {};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignalCount; ++i) sigaction(kSignals[i], &sa, &g_previous[i]);
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

std::string source_location_of(uintptr_t pc) {
  Dl_info info = {};
  if (pc == 0 || dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) return {};
  uintptr_t offset = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
  char cmd[4096];
  std::snprintf(cmd, sizeof cmd, "addr2line -e '%s' 0x%zx 2>/dev/null", info.dli_fname, size_t(offset));
  FILE* p = popen(cmd, "r");
  if (!p) return {};
  std::array<char, 4096> line{};
  std::string out;
  if (std::fgets(line.data(), int(line.size()), p)) out = line.data();
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  // "file:line (discriminator n)" -> "file:line"
  if (auto sp = out.find(' '); sp != std::string::npos) out.resize(sp);
  if (out.empty() || out.rfind("??", 0) == 0) return {};
  // Kernels given as source text are compiled from <cache>/sources/<hash>/<name>:
  // report them by name, as their other messages do.
  if (auto at = out.find("/sources/"); at != std::string::npos) {
    auto name = out.find('/', at + 9);
    if (name != std::string::npos) out = out.substr(name + 1);
  }
  return out;
}

} // namespace tessel::sim
