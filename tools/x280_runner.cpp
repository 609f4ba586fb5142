// tessel-x280-runner: runs one X280 thread (tessel/x280.h) in a process of
// its own, so that whatever the thread does (crash, exit, abort, hang) ends
// this process and never the host's.
//
//   tessel-x280-runner --block-bytes N --object NAME
//
// The host (src/dispatch/x280_thread.cpp) spawns it with three inherited
// descriptors (x280_shared.hpp): kBlockFd, the shared block the host laid
// out; kObjectFd, the thread's shared object, opened and verified by the
// host; kLifeFd, the read end of a pipe the host holds open. NAME is the
// object's path, for messages only.
//
// The runner maps the block, loads the object, fills a tessel_x280_api and
// calls the entry on its main thread, then records Done and the result word
// (or Failed and why) and ends with _exit(0). The thread's own exit(), a
// fatal signal or a kill end it otherwise; the host tells them apart by the
// state word and the wait status. A fatal signal is recorded (the fault
// record) before the process dies of it. When the host process is gone, a
// watcher thread sees end of file on kLifeFd and ends the runner.
//
// The command state below (tickets, the results window) belongs to the
// thread's OS thread alone: every API call checks that it is that thread.
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dispatch/x280_shared.hpp"

namespace {

using namespace tessel::dispatch::x280_shared;

// Results of the last kResultWindow tickets, by ticket % kResultWindow.
constexpr uint32_t kResultWindow = 256;
static_assert(KM_X280_INFLIGHT < kResultWindow);
// Checks before a wait parks (each a pause; the rest of the wait sleeps).
constexpr uint32_t kSpinChecks = 256;
constexpr int kBacktraceFrames = 64;

enum SlotState : uint32_t { kFree = 0, kInFlight = 1, kCompleted = 2, kTaken = 3 };
struct ResultSlot {
  uint32_t ticket = 0;
  uint32_t state = kFree;
  uint32_t result = 0;
};

Header* g_block = nullptr;
const char* g_object_name = "";
pthread_t g_thread_id;
uintptr_t g_object_begin = 0, g_object_end = 0, g_object_base = 0;

ResultSlot g_slots[kResultWindow];
uint32_t g_last_ticket = 0;
uint32_t g_in_flight = 0;

[[noreturn]] void setup_failure(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "tessel-x280-runner: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, "\n");
  va_end(ap);
  _exit(kRunnerSetupExit);
}

// Ends the thread with status Failed (W2).
[[noreturn]] void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(g_block->failure, kFailureBytes, fmt, ap);
  va_end(ap);
  g_block->state.store(kFailed, std::memory_order_release);
  std::fflush(nullptr);
  _exit(0);
}

void check_caller(const char* call) {
  if (!pthread_equal(pthread_self(), g_thread_id))
    fail("x280::%s was called from another OS thread than the thread's own (the API serves the thread that runs its "
         "function)",
         call);
}

// ---- fatal signals -------------------------------------------------------

bool in_object(uintptr_t pc) { return pc >= g_object_begin && pc < g_object_end; }

uintptr_t context_pc(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  return uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return uintptr_t(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

void on_fatal_signal(int signal, siginfo_t* info, void* context) {
  FaultRecord& f = g_block->fault;
  f.signal = uint32_t(signal);
  f.code = info->si_code;
  f.address = uint64_t(uintptr_t(info->si_addr));
  f.pc = context_pc(context);
  if (in_object(f.pc)) {
    f.object_offset = f.pc - g_object_base;
    f.has_location = 1;
  } else {
    // In a library (abort, memcpy): the innermost caller inside the thread's
    // object. Return addresses point after the call, hence the minus one.
    void* frames[kBacktraceFrames];
    const int n = backtrace(frames, kBacktraceFrames);
    for (int i = 0; i < n; ++i) {
      const uintptr_t pc = uintptr_t(frames[i]);
      if (in_object(pc)) {
        f.object_offset = pc - 1 - g_object_base;
        f.has_location = 1;
        break;
      }
    }
  }
  f.valid = 1;
  // Die of the signal itself, so the host's wait status names it.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(signal);
}

void install_fatal_signal_handlers() {
  // An alternate stack, so a stack overflow is recorded too.
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  // backtrace() loads the unwinder on its first call; not in a signal handler.
  void* warm[1];
  backtrace(warm, 1);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
    sigaction(signal, &sa, nullptr);
}

// ---- the host is gone ----------------------------------------------------

void* watch_host(void*) {
  // kLifeFd's write end lives in the host only: end of file (or an error)
  // means the host process has ended.
  char byte;
  for (;;) {
    ssize_t n = read(kLifeFd, &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(kRunnerSetupExit);
  }
}

// ---- the API -------------------------------------------------------------

bool stop_flag() { return g_block->stop.load(std::memory_order_acquire) != 0; }

bool completion_pending() {
  return g_block->completion_head.load(std::memory_order_acquire) !=
         g_block->completion_tail.load(std::memory_order_relaxed);
}

void drain_completions() {
  Header& b = *g_block;
  uint32_t tail = b.completion_tail.load(std::memory_order_relaxed);
  const uint32_t head = b.completion_head.load(std::memory_order_acquire);
  for (; tail != head; ++tail) {
    const CompletionLine line = b.completion[tail % kCompletionSlots];
    ResultSlot& slot = g_slots[line.ticket % kResultWindow];
    if (slot.ticket != line.ticket || slot.state != kInFlight)
      fail("the card completed ticket %u, which is not in flight (runtime error)", line.ticket);
    slot.state = kCompleted;
    slot.result = line.result;
    --g_in_flight;
  }
  b.completion_tail.store(tail, std::memory_order_release);
}

// Waits until ready(): true, or false once the stop flag is set first.
template <typename Ready>
bool wait_until(Ready ready) {
  for (uint32_t checks = 0;; ++checks) {
    drain_completions();
    if (ready()) return true;
    if (stop_flag()) return false;
    if (checks < kSpinChecks) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      continue;
    }
    park_shared(g_block->thread_parked, kParkTimeoutUs, [] { return completion_pending() || stop_flag(); });
  }
}

uint32_t api_word(uint32_t index) {
  check_caller("word");
  if (index >= g_block->word_count)
    fail("x280::word(%u): the thread has %u words (program.thread's words)", index, g_block->word_count);
  return words_of(*g_block)[index];
}

void* api_region(const char* name, uint64_t* size_bytes) {
  check_caller("region");
  if (size_bytes) *size_bytes = 0;
  if (name == nullptr) return nullptr;
  const RegionEntry* entries = regions_of(*g_block);
  for (uint32_t i = 0; i < g_block->region_count; ++i) {
    if (std::strncmp(entries[i].name, name, kRegionNameBytes) != 0) continue;
    if (size_bytes) *size_bytes = entries[i].size_bytes;
    return reinterpret_cast<uint8_t*>(g_block) + entries[i].offset_bytes;
  }
  return nullptr;
}

uint32_t api_submit(uint32_t handler, uint32_t first, uint32_t count, const uint32_t* args, uint32_t arg_count,
                    uint32_t flags) {
  check_caller("submit");
  constexpr uint32_t kAllowedFlags = KM_FLAG_EXCLUSIVE | KM_FLAG_RESULT | KM_FLAG_QUEUE;
  if (arg_count > KM_ARGS_MAX)
    fail("x280::submit(handler %u): %u arguments, at most %u", handler, arg_count, KM_ARGS_MAX);
  if (arg_count > 0 && args == nullptr) fail("x280::submit(handler %u): %u arguments at NULL", handler, arg_count);
  if (flags & ~kAllowedFlags)
    fail("x280::submit(handler %u): flags 0x%x; expected KM_FLAG_EXCLUSIVE, KM_FLAG_RESULT and KM_FLAG_QUEUE "
         "(0x%x)",
         handler, flags, kAllowedFlags);
  if (handler > KM_HANDLER_LAST)
    fail("x280::submit(handler %u): a program's handlers are %u..%u", handler, KM_HANDLER_NOP, KM_HANDLER_LAST);
  if (!wait_until([] { return g_in_flight < KM_X280_INFLIGHT; })) return 0;

  uint32_t ticket = g_last_ticket + 1;
  if (ticket == 0) ticket = 1; // 0 is no ticket
  g_last_ticket = ticket;
  g_slots[ticket % kResultWindow] = {ticket, kInFlight, 0};
  ++g_in_flight;

  Header& b = *g_block;
  const uint32_t head = b.submit_head.load(std::memory_order_relaxed);
  SubmitLine& line = b.submit[head % kSubmitSlots];
  line.handler = handler;
  line.flags = flags;
  line.first = first;
  line.count = count;
  line.arg_count = arg_count;
  for (uint32_t i = 0; i < KM_ARGS_MAX; ++i)
    line.args[i] = i < arg_count ? args[i] : 0;
  line.ticket = ticket;
  b.submit_head.store(head + 1, std::memory_order_release);
  return ticket;
}

int api_wait(uint32_t ticket, uint32_t* result) {
  check_caller("wait");
  if (ticket == 0)
    fail("x280::wait(0): 0 is no ticket (submit returns it when the thread was asked to stop and sent nothing)");
  ResultSlot& slot = g_slots[ticket % kResultWindow];
  if (slot.ticket != ticket || slot.state == kFree) {
    if (int32_t(ticket - g_last_ticket) > 0)
      fail("x280::wait(%u): no such ticket (the last submitted is %u)", ticket, g_last_ticket);
    fail("x280::wait(%u): its result is no longer kept (the thread keeps the last %u tickets' results)", ticket,
         kResultWindow);
  }
  if (slot.state == kTaken) fail("x280::wait(%u): its result was taken already", ticket);
  if (!wait_until([&] { return slot.state == kCompleted; })) return 0;
  slot.state = kTaken;
  if (result) *result = slot.result;
  return 1;
}

int api_wait_all() {
  check_caller("wait_all");
  return wait_until([] { return g_in_flight == 0; }) ? 1 : 0;
}

int api_stop_requested() { return stop_flag() ? 1 : 0; }

uint64_t api_ticks() {
  const int64_t ns = monotonic_ns() - g_block->clock_base_ns;
  return ns <= 0 ? 0 : uint64_t(ns) * KM_TIMER_MHZ / 1000;
}

void append_log_line(const char* text, size_t length_bytes) {
  Header& b = *g_block;
  const uint32_t head = b.log_head.load(std::memory_order_relaxed);
  if (head - b.log_tail.load(std::memory_order_acquire) >= kLogSlots) {
    b.log_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  LogLine& line = b.log[head % kLogSlots];
  const size_t n = length_bytes < KM_X280_LOG_LINE_BYTES ? length_bytes : KM_X280_LOG_LINE_BYTES;
  std::memcpy(line.text, text, n);
  line.length_bytes = uint32_t(n);
  b.log_head.store(head + 1, std::memory_order_release);
}

void api_log(const char* text) {
  check_caller("log");
  if (text == nullptr) return;
  for (;;) {
    const char* end = std::strchr(text, '\n');
    if (end == nullptr) {
      append_log_line(text, std::strlen(text));
      return;
    }
    append_log_line(text, size_t(end - text));
    text = end + 1;
    if (*text == '\0') return;
  }
}

void api_fail(const char* text) {
  check_caller("fail");
  fail("%s", text ? text : "x280::fail");
}

// ---- loading -------------------------------------------------------------

// The address range of the loaded object whose name is `name`.
struct ObjectRange {
  const char* name;
  uintptr_t begin = 0, end = 0, base = 0;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* range = static_cast<ObjectRange*>(data);
  if (info->dlpi_name == nullptr || std::strcmp(info->dlpi_name, range->name) != 0) return 0;
  range->base = info->dlpi_addr;
  range->begin = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t b = info->dlpi_addr + ph.p_vaddr;
    if (b < range->begin) range->begin = b;
    if (b + ph.p_memsz > range->end) range->end = b + ph.p_memsz;
  }
  return 1;
}

Header* map_block(uint64_t block_bytes) {
  void* p = mmap(nullptr, block_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, kBlockFd, 0);
  if (p == MAP_FAILED)
    setup_failure("mmap of the shared block (%llu bytes): %s", (unsigned long long)block_bytes, std::strerror(errno));
  auto* block = static_cast<Header*>(p);
  if (block->magic != kMagic || block->version != kVersion || block->block_bytes != block_bytes)
    setup_failure("the shared block is not one this runner knows (magic 0x%x version %u, %llu bytes; expected "
                  "0x%x version %u)",
                  block->magic, block->version, (unsigned long long)block->block_bytes, kMagic, kVersion);
  return block;
}

} // namespace

int main(int argc, char** argv) {
  uint64_t block_bytes = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--block-bytes") == 0)
      block_bytes = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--object") == 0)
      g_object_name = argv[i + 1];
    else
      setup_failure("unknown argument '%s' (usage: tessel-x280-runner --block-bytes N --object NAME)", argv[i]);
  }
  if (block_bytes < sizeof(Header)) setup_failure("--block-bytes %llu: too small", (unsigned long long)block_bytes);
  g_block = map_block(block_bytes);

  pthread_t watcher;
  if (pthread_create(&watcher, nullptr, watch_host, nullptr) != 0) setup_failure("the host watcher did not start");
  pthread_detach(watcher);
  g_thread_id = pthread_self();
  install_fatal_signal_handlers();

  // Loaded through the descriptor the host verified, not by path: another
  // build may publish the cache entry again meanwhile.
  const std::string fd_path = "/proc/self/fd/" + std::to_string(kObjectFd);
  void* handle = dlopen(fd_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) fail("the thread's object %s did not load: %s", g_object_name, dlerror());
  auto* version = static_cast<const uint32_t*>(dlsym(handle, "tessel_x280_api_version"));
  auto* entry = reinterpret_cast<uint32_t (*)(const tessel_x280_api*)>(dlsym(handle, "tessel_x280_entry"));
  if (entry == nullptr || version == nullptr)
    fail("the thread's sources define no entry: one of them must use TESSEL_X280_THREAD(fn) (tessel/x280.h)");
  if (*version != TESSEL_X280_API_VERSION)
    fail("the thread was built against tessel/x280.h API version %u; this runner serves version %u", *version,
         TESSEL_X280_API_VERSION);
  ObjectRange range{fd_path.c_str()};
  dl_iterate_phdr(find_object, &range);
  g_object_begin = range.begin;
  g_object_end = range.end;
  g_object_base = range.base;

  static tessel_x280_api api{};
  api.version = TESSEL_X280_API_VERSION;
  api.cluster = g_block->cluster;
  api.words = words_of(*g_block);
  api.word_count = g_block->word_count;
  api.word = api_word;
  api.region = api_region;
  api.submit = api_submit;
  api.wait = api_wait;
  api.wait_all = api_wait_all;
  api.stop_requested = api_stop_requested;
  api.ticks = api_ticks;
  api.log = api_log;
  api.fail = api_fail;

  g_block->state.store(kRunning, std::memory_order_release);
  const uint32_t result = entry(&api);
  g_block->result = result;
  g_block->state.store(kDone, std::memory_order_release);
  // The thread's buffered output; then no static destructor of its code runs.
  std::fflush(nullptr);
  _exit(0);
}
