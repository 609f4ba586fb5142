// The host's side of an X280 thread: its validation and shared block (its
// object's build and cache are x280_object.cpp), the child process and the
// end of the thread.
//
//
// The child. Spawned in a process group of its own (a kill reaches anything
// the thread forked), with every signal at its default and none blocked.
// Its exit is observed with waitid(WNOWAIT) first, so the group is killed
// while the child's pid is still held by its zombie, then reaped.
//
// Locking. The card thread (take, complete, finished) and the host thread
// (wait, read_region) share the end state, the log and the output; those
// are under `mutex`. The rings need none (x280_shared.hpp, R1..R3); the log
// ring's consumer is whoever holds the mutex. The stop request is atomic.
#include "dispatch/x280_thread.hpp"

#include "dispatch/x280_object.hpp"
#include "dispatch/x280_shared.hpp"
#include "jit/cache_key.hpp"
#include "jit/compiler.hpp"
#include "jit/cross_elf.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_build.hpp"
#include "jit/process.hpp"

#include "tessel/error.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <set>

extern char** environ;

namespace tessel::dispatch {
namespace {

namespace shared = x280_shared;
using x280_object::build_object;
using x280_object::ThreadObject;
using x280_object::validate_sources;
using x280_object::ValidSources;
using x280_object::who;

static_assert(sizeof(X280Command::args) / sizeof(uint32_t) == KM_ARGS_MAX);

// The output quoted in a failure's error.
constexpr size_t kOutputTailBytes = 2048;
// How often finished() looks at the child (it is called in the card's loop).
constexpr int64_t kPollIntervalNs = 500 * 1000;
// The longest the host's wait() sleeps between looks at the log ring.
constexpr int kWaitSliceMs = 5;

std::string describe_signal(int signal) {
  switch (signal) {
  case SIGSEGV: return "SIGSEGV (segmentation fault)";
  case SIGBUS: return "SIGBUS (bus error)";
  case SIGILL: return "SIGILL (illegal instruction)";
  case SIGFPE: return "SIGFPE (arithmetic exception)";
  case SIGABRT: return "SIGABRT (abort)";
  case SIGTRAP: return "SIGTRAP (trap)";
  case SIGSYS: return "SIGSYS (bad system call)";
  case SIGKILL: return "SIGKILL";
  case SIGTERM: return "SIGTERM";
  case SIGPIPE: return "SIGPIPE (broken pipe)";
  default: return "signal " + std::to_string(signal);
  }
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}
std::string format_seconds(double s) { return format_number(s) + " s"; }

// A C string in shared memory the thread could have scribbled on: at most
// `capacity` bytes.
std::string bounded_string(const char* text, size_t capacity) { return std::string(text, strnlen(text, capacity)); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// ---- validation ----------------------------------------------------------

std::vector<const X280Region*> validate_regions(const X280ThreadSpec& spec,
                                                const std::vector<X280Region>& all_regions) {
  std::vector<const X280Region*> used;
  std::set<std::string> seen;
  for (const std::string& name : spec.regions) {
    if (!seen.insert(name).second)
      throw ValidationError(who(spec.cluster) + ": region '" + name + "' is named twice in regions");
    auto it = std::find_if(all_regions.begin(), all_regions.end(), [&](const X280Region& r) { return r.name == name; });
    if (it == all_regions.end()) {
      std::string names;
      for (const auto& r : all_regions)
        names += (names.empty() ? "'" : ", '") + r.name + "'";
      throw ValidationError(who(spec.cluster) + ": region '" + name + "' is not declared (program.region declares " +
                            (names.empty() ? std::string("none") : names) + ")");
    }
    if (name.empty() || name.size() >= shared::kRegionNameBytes || name.find('\0') != std::string::npos)
      throw ValidationError(who(spec.cluster) + ": region name '" + name + "': expected 1 to " +
                            std::to_string(shared::kRegionNameBytes - 1) + " characters, no NUL");
    used.push_back(&*it);
  }
  return used;
}

void validate_spec(const X280ThreadSpec& spec) {
  if (spec.cluster < KM_X280_CLUSTER_FIRST || spec.cluster > KM_X280_CLUSTER_LAST)
    throw ValidationError(who(spec.cluster) + ": cluster must be 1, 2 or 3 (cluster 0 runs the dispatcher)");
  if (spec.prefetch != "documented" && spec.prefetch != "off")
    throw ValidationError(who(spec.cluster) + ": prefetch='" + spec.prefetch + "': expected 'documented' or 'off'");
  if (!std::isfinite(spec.deadline_s) || spec.deadline_s < 0)
    throw ValidationError(who(spec.cluster) + ": deadline=" + format_number(spec.deadline_s) +
                          ": expected seconds >= 0 (0: none)");
}

void validate_runner(uint32_t cluster) {
  const std::string runner = x280_runner_path();
  if (::access(runner.c_str(), X_OK) != 0)
    throw ProgramError(who(cluster) + ": the X280 thread runner '" + runner +
                       "' is missing or not executable (TESSEL_X280_RUNNER names it; a build tree has it as "
                       "tools/tessel-x280-runner)");
}

// ---- the shared block ----------------------------------------------------

struct RegionPlace {
  std::string name;
  uint64_t offset_bytes = 0;
  uint64_t size_bytes = 0;
};

struct Layout {
  uint64_t words_offset = 0;
  uint64_t regions_offset = 0;
  std::vector<RegionPlace> regions;
  uint64_t block_bytes = 0;
};

Layout lay_out(const X280ThreadSpec& spec, const std::vector<const X280Region*>& regions) {
  Layout layout;
  layout.words_offset = shared::align_up(sizeof(shared::Header), shared::kRegionAlignBytes);
  layout.regions_offset =
      shared::align_up(layout.words_offset + spec.words.size() * sizeof(uint32_t), shared::kRegionAlignBytes);
  uint64_t end = layout.regions_offset + regions.size() * sizeof(shared::RegionEntry);
  for (const X280Region* region : regions) {
    end = shared::align_up(end, shared::kRegionAlignBytes);
    layout.regions.push_back({region->name, end, region->value.size()});
    end += region->value.size();
  }
  layout.block_bytes = shared::align_up(end, uint64_t(::sysconf(_SC_PAGESIZE)));
  return layout;
}

} // namespace

std::string x280_runner_path() {
  if (const char* set = std::getenv("TESSEL_X280_RUNNER"); set != nullptr && *set != '\0') return set;
  return TESSEL_X280_RUNNER_PATH;
}

// ---- the thread ----------------------------------------------------------

struct X280Thread::Impl {
  enum StopCause : uint32_t { kNoStop = 0, kHostStop = 1, kDeadlineStop = 2 };

  X280ThreadSpec spec;
  ThreadObject object;
  Layout layout;
  int block_fd = -1;
  shared::Header* header = nullptr;

  std::atomic<bool> started{false};
  pid_t pid = -1;
  int pidfd = -1;
  int output_fd = -1; // read end of the child's stdout and stderr
  int life_fd = -1;   // write end of the pipe whose end of file ends the runner
  int64_t start_ns = 0;

  // Stop (either side): the first cause and when.
  std::atomic<uint32_t> stop_cause{kNoStop};
  std::atomic<int64_t> stop_ns{0};

  // Card side only.
  std::vector<uint32_t> taken; // tickets in flight
  std::atomic<uint64_t> commands{0};
  int64_t last_poll_ns = 0;

  // Under `mutex`.
  std::mutex mutex;
  std::atomic<bool> ended{false};
  bool killed = false;
  bool corrupt = false;
  int wait_status = -1; // -1: unknown
  int64_t end_ns = 0;
  std::vector<std::string> log;
  uint64_t log_dropped_by_host = 0;
  std::string output;
  size_t output_dropped = 0;
  bool output_eof = false;
  std::optional<X280ThreadResult> result;

  ~Impl();

  double since_start_s(int64_t ns) const { return double(ns - start_ns) / 1e9; }
  void stop(StopCause cause, int64_t now);
  void kill_group();
  // Under the mutex: collects log and output, enforces the deadline, and
  // reaps the child once it has exited.
  void poll_locked(int64_t now);
  void drain_log_locked();
  void drain_output_locked();
  bool reap_locked(int64_t now);
  X280ThreadResult make_result_locked();
  std::string fault_description() const;
};

X280Thread::Impl::~Impl() {
  if (pid > 0 && !ended.load()) {
    kill_group();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close_fd(pidfd);
  close_fd(output_fd);
  close_fd(life_fd);
  close_fd(object.fd);
  if (header != nullptr) ::munmap(header, layout.block_bytes);
  close_fd(block_fd);
}

void X280Thread::Impl::stop(StopCause cause, int64_t now) {
  // A thread that already returned was not stopped.
  const uint32_t state = header->state.load(std::memory_order_acquire);
  if (state == shared::kDone || state == shared::kFailed) return;
  uint32_t expected = kNoStop;
  if (stop_cause.compare_exchange_strong(expected, cause)) stop_ns.store(now);
  header->stop.store(1, std::memory_order_release);
  shared::unpark_shared(header->thread_parked);
}

void X280Thread::Impl::kill_group() {
  // The child leads its own group (setpgid at the spawn); the pid is held
  // until it is reaped, so neither kill can reach another process.
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
}

void X280Thread::Impl::drain_log_locked() {
  uint32_t tail = header->log_tail.load(std::memory_order_relaxed);
  const uint32_t head = header->log_head.load(std::memory_order_acquire);
  // A head further ahead than the ring holds was written over by the thread.
  if (head - tail > shared::kLogSlots) tail = head - shared::kLogSlots;
  for (; tail != head; ++tail) {
    const shared::LogLine& line = header->log[tail % shared::kLogSlots];
    if (log.size() >= kLogLines) {
      ++log_dropped_by_host;
      continue;
    }
    log.emplace_back(line.text, std::min<uint32_t>(line.length_bytes, KM_X280_LOG_LINE_BYTES));
  }
  header->log_tail.store(tail, std::memory_order_release);
}

void X280Thread::Impl::drain_output_locked() {
  if (output_fd < 0 || output_eof) return;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(output_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) output_eof = true; // every writer is gone: wait() stops polling it
    if (n <= 0) return;            // end of file, or EAGAIN: nothing now
    const size_t keep = std::min(size_t(n), kOutputBytes - output.size());
    output.append(buffer, keep);
    output_dropped += size_t(n) - keep;
  }
}

bool X280Thread::Impl::reap_locked(int64_t now) {
  siginfo_t info{};
  int rc = ::waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  if (rc < 0 && errno == EINTR) return false;
  if (rc == 0 && info.si_pid == 0) return false; // still running
  if (rc == 0) {
    kill_group(); // anything the thread forked dies with it
    int status = 0;
    while ((rc = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    wait_status = rc == pid ? status : -1;
  } else {
    wait_status = -1; // ECHILD: reaped by someone else (SIGCHLD ignored, a waitpid(-1) elsewhere)
  }
  end_ns = now;
  // The child is gone: what is left in the pipe and the ring is all there is.
  drain_output_locked();
  drain_log_locked();
  ended.store(true, std::memory_order_release);
  return true;
}

void X280Thread::Impl::poll_locked(int64_t now) {
  if (ended.load()) return;
  drain_log_locked();
  drain_output_locked();
  if (spec.deadline_s > 0 && stop_cause.load() == kNoStop && since_start_s(now) >= spec.deadline_s)
    stop(kDeadlineStop, now);
  if (stop_cause.load() == kDeadlineStop && !killed && double(now - stop_ns.load()) / 1e9 >= kStopGrace_s) {
    kill_group();
    killed = true;
  }
  reap_locked(now);
}

std::string X280Thread::Impl::fault_description() const {
  const shared::FaultRecord& f = header->fault;
  std::string text;
  if (f.valid != 1) return text;
  if (f.signal == SIGSEGV || f.signal == SIGBUS) {
    char address[32];
    std::snprintf(address, sizeof address, "0x%llx", (unsigned long long)f.address);
    text += std::string(" at address ") + address;
  }
  if (f.has_location == 1) {
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%llx", (unsigned long long)f.object_offset);
    // The faulting line, from the object the runner loaded (through this
    // process's descriptor: the cache entry may have been republished).
    // binutils' addr2line names the function an inlined frame was inlined
    // into, so no function is given.
    const std::string loaded = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(object.fd);
    jit::ProcessResult r = jit::run_process({"addr2line", "-e", loaded, offset}, {}, 4096, "addr2line");
    std::string where;
    if (jit::succeeded(r)) {
      auto lines = jit::parse_addr2line_output(r.output, 1);
      if (!lines[0].file.empty())
        where = std::filesystem::path(lines[0].file).lexically_normal().string() + ":" + std::to_string(lines[0].line);
    }
    text += where.empty() ? std::string(", in the thread's object at offset ") + offset : ", in " + where;
  }
  return text;
}

X280ThreadResult X280Thread::Impl::make_result_locked() {
  X280ThreadResult r;
  r.cluster = spec.cluster;
  r.seconds = since_start_s(end_ns);
  r.commands = commands.load();
  r.log = log;
  r.log_dropped = header->log_dropped.load() + log_dropped_by_host;
  r.output = output;
  if (output_dropped != 0) r.output += "\n[" + std::to_string(output_dropped) + " more bytes of output dropped]";

  const uint32_t state = header->state.load(std::memory_order_acquire);
  const uint32_t cause = stop_cause.load();
  const std::string stopped_status = cause == kDeadlineStop ? "deadline" : "stopped";
  const bool exited = wait_status != -1 && WIFEXITED(wait_status);
  const bool signalled = wait_status != -1 && WIFSIGNALED(wait_status);
  auto output_tail = [&] {
    if (output.empty()) return std::string();
    const size_t from = output.size() > kOutputTailBytes ? output.size() - kOutputTailBytes : 0;
    return std::string("\nits output") + (from ? " ended" : "") + ":\n" + output.substr(from);
  };

  if (corrupt) {
    r.status = "failed";
    r.error = "the thread wrote over the runtime's part of its shared memory (its submit ring); it was killed";
  } else if (state == shared::kDone && (wait_status == -1 || (exited && WEXITSTATUS(wait_status) == 0))) {
    r.status = cause == kNoStop ? "done" : stopped_status;
    r.value = header->result;
  } else if (state == shared::kFailed && (wait_status == -1 || exited)) {
    r.status = "failed";
    r.error = bounded_string(header->failure, shared::kFailureBytes);
  } else if (killed && signalled && WTERMSIG(wait_status) == SIGKILL) {
    r.status = stopped_status;
    r.error = "did not return within " + format_seconds(kStopGrace_s) + " of the stop request (" +
              (cause == kDeadlineStop ? "its deadline, " + format_seconds(spec.deadline_s) : "the host's") +
              "); killed";
  } else if (signalled) {
    r.status = "failed";
    r.error = "killed by " + describe_signal(WTERMSIG(wait_status)) + fault_description() + output_tail();
  } else if (exited && state == shared::kStarting && WEXITSTATUS(wait_status) == shared::kRunnerSetupExit) {
    r.status = "failed";
    r.error = "the runner " + x280_runner_path() + " could not start the thread" + output_tail();
  } else if (exited) {
    r.status = "failed";
    r.error = "exited with status " + std::to_string(WEXITSTATUS(wait_status)) +
              " before its function returned (exit(), _exit() or quick_exit() in the thread)" + output_tail();
  } else {
    r.status = "failed";
    r.error = "ended before its function returned; its exit status is unknown (the process's SIGCHLD is ignored, "
              "or another waitpid reaped it)";
  }
  return r;
}

// ---- X280Thread ----------------------------------------------------------

X280Thread::X280Thread(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
X280Thread::~X280Thread() = default;

std::unique_ptr<X280Thread> X280Thread::build(const X280ThreadSpec& spec, const std::vector<X280Region>& all_regions,
                                              const std::string& cache_dir) {
  validate_spec(spec);
  ValidSources sources = validate_sources(spec);
  std::vector<const X280Region*> regions = validate_regions(spec, all_regions);
  validate_runner(spec.cluster);

  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->layout = lay_out(spec, regions);
  impl->object = build_object(spec.cluster, std::move(sources), cache_dir);

  const Layout& layout = impl->layout;
  const std::string name = "tessel-x280-cluster" + std::to_string(spec.cluster);
  impl->block_fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (impl->block_fd < 0 || ::ftruncate(impl->block_fd, off_t(layout.block_bytes)) != 0)
    throw Error(who(spec.cluster) + ": its shared memory (" + std::to_string(layout.block_bytes) +
                " bytes) could not be made: " + std::strerror(errno));
  void* p = ::mmap(nullptr, layout.block_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, impl->block_fd, 0);
  if (p == MAP_FAILED)
    throw Error(who(spec.cluster) + ": its shared memory could not be mapped: " + std::strerror(errno));
  auto* header = new (p) shared::Header{};
  impl->header = header;
  header->magic = shared::kMagic;
  header->version = shared::kVersion;
  header->block_bytes = layout.block_bytes;
  header->cluster = spec.cluster;
  header->word_count = uint32_t(spec.words.size());
  header->region_count = uint32_t(regions.size());
  header->words_offset = layout.words_offset;
  header->regions_offset = layout.regions_offset;
  auto* base = static_cast<uint8_t*>(p);
  if (!spec.words.empty())
    std::memcpy(base + layout.words_offset, spec.words.data(), spec.words.size() * sizeof(uint32_t));
  shared::RegionEntry* entries = shared::regions_of(*header);
  for (size_t i = 0; i < regions.size(); ++i) {
    const RegionPlace& place = layout.regions[i];
    std::memset(&entries[i], 0, sizeof entries[i]);
    std::memcpy(entries[i].name, place.name.data(), place.name.size());
    entries[i].offset_bytes = place.offset_bytes;
    entries[i].size_bytes = place.size_bytes;
    if (place.size_bytes != 0) std::memcpy(base + place.offset_bytes, regions[i]->value.data(), place.size_bytes);
  }
  impl->taken.reserve(shared::kCompletionSlots);
  return std::unique_ptr<X280Thread>(new X280Thread(std::move(impl)));
}

void X280Thread::start() {
  Impl& m = *impl_;
  if (m.started.load()) throw Error(who(m.spec.cluster) + ": start() called twice");
  const std::string runner = x280_runner_path();

  int output_pipe[2] = {-1, -1}, life_pipe[2] = {-1, -1};
  if (::pipe2(output_pipe, O_CLOEXEC) != 0) throw Error(who(m.spec.cluster) + ": pipe: " + std::strerror(errno));
  if (::pipe2(life_pipe, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(output_pipe[0]);
    ::close(output_pipe[1]);
    throw Error(who(m.spec.cluster) + ": pipe: " + std::strerror(e));
  }
  // The child's descriptors are dup2'd from copies above every target
  // number, so no dup2 overwrites a source another one still needs.
  constexpr int kAbove = 10;
  const int sources[] = {output_pipe[1], m.block_fd, m.object.fd, life_pipe[0]};
  int high[4];
  for (int i = 0; i < 4; ++i)
    high[i] = ::fcntl(sources[i], F_DUPFD_CLOEXEC, kAbove);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, high[0], 1);
  posix_spawn_file_actions_adddup2(&actions, high[0], 2);
  posix_spawn_file_actions_adddup2(&actions, high[1], shared::kBlockFd);
  posix_spawn_file_actions_adddup2(&actions, high[2], shared::kObjectFd);
  posix_spawn_file_actions_adddup2(&actions, high[3], shared::kLifeFd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  const std::string block_bytes = std::to_string(m.layout.block_bytes);
  std::vector<char*> argv = {const_cast<char*>(runner.c_str()),        const_cast<char*>("--block-bytes"),
                             const_cast<char*>(block_bytes.c_str()),   const_cast<char*>("--object"),
                             const_cast<char*>(m.object.path.c_str()), nullptr};
  m.header->clock_base_ns = shared::monotonic_ns();
  pid_t pid = -1;
  int rc = std::find(std::begin(high), std::end(high), -1) != std::end(high)
               ? errno
               : ::posix_spawn(&pid, runner.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int fd : high)
    if (fd >= 0) ::close(fd);
  ::close(output_pipe[1]);
  ::close(life_pipe[0]);
  if (rc != 0) {
    ::close(output_pipe[0]);
    ::close(life_pipe[1]);
    throw Error(who(m.spec.cluster) + ": the X280 thread runner " + runner +
                " could not be started: " + std::strerror(rc));
  }
  ::fcntl(output_pipe[0], F_SETFL, ::fcntl(output_pipe[0], F_GETFL) | O_NONBLOCK);
  m.pid = pid;
  m.output_fd = output_pipe[0];
  m.life_fd = life_pipe[1];
  m.pidfd = int(::syscall(SYS_pidfd_open, pid, 0)); // -1 (old kernel): wait() polls in slices
  m.start_ns = shared::monotonic_ns();
  m.last_poll_ns = m.start_ns;
  m.started.store(true, std::memory_order_release);
}

bool X280Thread::take(X280Command& out) {
  Impl& m = *impl_;
  if (!m.started.load(std::memory_order_acquire) || m.corrupt) return false;
  shared::Header& h = *m.header;
  const uint32_t tail = h.submit_tail.load(std::memory_order_relaxed);
  const uint32_t head = h.submit_head.load(std::memory_order_acquire);
  if (head == tail) return false;
  if (head - tail > shared::kSubmitSlots || m.taken.size() >= KM_X280_INFLIGHT) {
    // The runner keeps both within bounds (R1): the thread wrote over them.
    std::lock_guard lock(m.mutex);
    m.corrupt = true;
    m.kill_group();
    m.killed = true;
    return false;
  }
  const shared::SubmitLine line = h.submit[tail % shared::kSubmitSlots];
  h.submit_tail.store(tail + 1, std::memory_order_release);
  out.handler = line.handler;
  out.flags = line.flags;
  out.first = line.first;
  out.count = line.count;
  out.arg_count = std::min<uint32_t>(line.arg_count, KM_ARGS_MAX);
  for (uint32_t i = 0; i < KM_ARGS_MAX; ++i)
    out.args[i] = i < out.arg_count ? line.args[i] : 0;
  out.ticket = line.ticket;
  m.taken.push_back(line.ticket);
  m.commands.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void X280Thread::complete(uint32_t ticket, uint32_t result) {
  Impl& m = *impl_;
  auto it = std::find(m.taken.begin(), m.taken.end(), ticket);
  if (it == m.taken.end())
    throw Error(who(m.spec.cluster) + ": complete(ticket " + std::to_string(ticket) +
                "): no command taken from the thread has that ticket in flight");
  *it = m.taken.back();
  m.taken.pop_back();
  shared::Header& h = *m.header;
  const uint32_t head = h.completion_head.load(std::memory_order_relaxed);
  h.completion[head % shared::kCompletionSlots] = {ticket, result};
  h.completion_head.store(head + 1, std::memory_order_release);
  shared::unpark_shared(h.thread_parked);
}

bool X280Thread::finished() {
  Impl& m = *impl_;
  if (m.ended.load(std::memory_order_acquire)) return true;
  if (!m.started.load(std::memory_order_acquire)) return false;
  const int64_t now = shared::monotonic_ns();
  const uint32_t state = m.header->state.load(std::memory_order_relaxed);
  // Called in the card's loop: look at the child every kPollIntervalNs, or
  // at once when the thread has returned.
  if (now - m.last_poll_ns < kPollIntervalNs && state != shared::kDone && state != shared::kFailed) return false;
  m.last_poll_ns = now;
  std::lock_guard lock(m.mutex);
  m.poll_locked(now);
  return m.ended.load();
}

void X280Thread::request_stop() {
  Impl& m = *impl_;
  m.stop(Impl::kHostStop, shared::monotonic_ns());
}

X280ThreadResult X280Thread::wait(double timeout_s) {
  Impl& m = *impl_;
  if (!m.started.load(std::memory_order_acquire))
    throw ValidationError(who(m.spec.cluster) + ": wait() before start()");
  const int64_t timeout_ns = std::isfinite(timeout_s) ? int64_t(std::max(0.0, timeout_s) * 1e9) : INT64_MAX / 2;
  const int64_t give_up_ns = shared::monotonic_ns() + timeout_ns;
  const int64_t grace_ns = int64_t(kStopGrace_s * 1e9);
  for (;;) {
    const int64_t now = shared::monotonic_ns();
    int output_fd = -1;
    {
      std::lock_guard lock(m.mutex);
      m.poll_locked(now);
      if (m.ended.load()) {
        if (!m.result) m.result = m.make_result_locked();
        return *m.result;
      }
      if (now >= give_up_ns) {
        m.stop(Impl::kHostStop, now);
        if (!m.killed && now - give_up_ns >= grace_ns) {
          m.kill_group();
          m.killed = true;
        }
      }
      output_fd = m.output_eof ? -1 : m.output_fd;
    }
    // Sleep until the child ends, writes output, or a limit is near; at
    // most a slice, so the log ring is drained while the thread runs.
    int64_t next_ns = now + int64_t(kWaitSliceMs) * 1000000;
    next_ns = std::min(next_ns, now < give_up_ns ? give_up_ns : give_up_ns + grace_ns);
    if (m.spec.deadline_s > 0) next_ns = std::min(next_ns, m.start_ns + int64_t(m.spec.deadline_s * 1e9));
    const int timeout_ms = int(std::clamp<int64_t>((next_ns - now + 999999) / 1000000, 1, kWaitSliceMs));
    pollfd fds[2] = {{m.pidfd, POLLIN, 0}, {output_fd, POLLIN, 0}};
    ::poll(fds, 2, timeout_ms); // a negative fd is ignored
  }
}

std::vector<uint8_t> X280Thread::read_region(const std::string& name) const {
  const Impl& m = *impl_;
  for (const RegionPlace& place : m.layout.regions) {
    if (place.name != name) continue;
    const auto* base = reinterpret_cast<const uint8_t*>(m.header) + place.offset_bytes;
    return std::vector<uint8_t>(base, base + place.size_bytes);
  }
  std::string names;
  for (const RegionPlace& place : m.layout.regions)
    names += (names.empty() ? "'" : ", '") + place.name + "'";
  throw ValidationError("run.thread.read('" + name + "'): the thread on cluster " + std::to_string(m.spec.cluster) +
                        " has no region '" + name + "' (its regions: " + (names.empty() ? "none" : names) + ")");
}

uint32_t X280Thread::cluster() const { return impl_->spec.cluster; }
bool X280Thread::compiled() const { return impl_->object.compiled; }
const std::string& X280Thread::object_path() const { return impl_->object.path; }

} // namespace tessel::dispatch
