#include "sim/fault.hpp"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

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
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction)
      prev.sa_sigaction(sig, info, uc_raw);
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
    for (size_t i = 0; i < kSignalCount; ++i)
      sigaction(kSignals[i], &sa, &g_previous[i]);
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

} // namespace tessel::sim
