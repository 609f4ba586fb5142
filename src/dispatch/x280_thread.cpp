// The host's side of an X280 thread: the build (validation, compile, cache,
// the shared block), the child process and the end of the thread.
//
// The cache. An entry is <root>/x280/<hash>/ holding thread.so, deps.txt and
// key.txt; <root>/x280/<hash>.lock is its flock. <hash> is short_hash of the
// front key: compiler path and identity, the include directory, the flags,
// every source's path and content hash, and tessel/x280.h's.
//  C1 key.txt is the commit record: front key + deps.txt as the files now
//     hash (every header the compiler read, from its depfiles) + the content
//     hash of thread.so. A builder, under the exclusive lock, compiles to
//     temporary names, removes key.txt, renames thread.so into place, writes
//     deps.txt and writes key.txt last; an entry interrupted on the way has
//     no key.txt, or one that does not match, and is rebuilt.
//  C2 A hit needs key.txt to match what the current files hash to and the
//     bytes of thread.so, read through a descriptor opened under the shared
//     lock, to hash to the recorded value. That descriptor is what the
//     runner loads (kObjectFd), so a later republish cannot change the code
//     a thread runs.
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

static_assert(sizeof(X280Command::args) / sizeof(uint32_t) == KM_ARGS_MAX);

constexpr const char* kCacheFormat = "tessel x280 thread object 1";
constexpr size_t kCompilerOutputBytes = 16 * 1024;
// The output quoted in a failure's error.
constexpr size_t kOutputTailBytes = 2048;
// How often finished() looks at the child (it is called in the card's loop).
constexpr int64_t kPollIntervalNs = 500 * 1000;
// The longest the host's wait() sleeps between looks at the log ring.
constexpr int kWaitSliceMs = 5;

enum class SourceLanguage { C, Cxx };

// The flags of every thread object (part of the front key).
const std::vector<std::string> kCommonFlags = {"-O2", "-g", "-fPIC", "-Wall", "-fdiagnostics-color=never", "-pipe"};
const std::vector<std::string> kCFlags = {"-x", "c", "-std=c17"};
const std::vector<std::string> kCxxFlags = {"-x", "c++", "-std=c++20"};
// -z defs: a symbol no library defines is a build error, not a load error.
const std::vector<std::string> kLinkFlags = {"-shared", "-fPIC", "-pthread", "-Wl,-z,defs"};

std::string who(uint32_t cluster) { return "program.thread(cluster=" + std::to_string(cluster) + ")"; }

std::string join_flags(const std::vector<std::string>& flags) {
  std::string text;
  for (const auto& f : flags)
    text += (text.empty() ? "" : " ") + f;
  return text;
}

std::optional<SourceLanguage> language_of(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".c") return SourceLanguage::C;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" || ext == ".C") return SourceLanguage::Cxx;
  return std::nullopt;
}

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

std::optional<std::string> read_fd(int fd) {
  std::string bytes;
  char buffer[1 << 16];
  for (off_t offset = 0;;) {
    ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return bytes;
    bytes.append(buffer, size_t(n));
    offset += n;
  }
}

// ---- validation ----------------------------------------------------------

struct ValidSources {
  std::vector<std::string> paths; // absolute
  std::vector<SourceLanguage> languages;
};

ValidSources validate_sources(const X280ThreadSpec& spec) {
  if (spec.sources.empty())
    throw ValidationError(who(spec.cluster) + ": no sources (one or more .c or .cpp files, one of them with "
                                              "TESSEL_X280_THREAD(fn))");
  ValidSources valid;
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.sources.size(); ++i) {
    const std::string& source = spec.sources[i];
    const std::string at = who(spec.cluster) + ": sources[" + std::to_string(i) + "] '" + source + "'";
    auto language = language_of(source);
    if (!language) throw ValidationError(at + ": expected a C or C++ source (.c, .cpp, .cc, .cxx)");
    std::error_code ec;
    std::string path = std::filesystem::absolute(source, ec).lexically_normal().string();
    if (ec || !std::filesystem::is_regular_file(path, ec)) throw ValidationError(at + ": no such file");
    if (!seen.insert(path).second) throw ValidationError(at + ": given twice");
    valid.paths.push_back(std::move(path));
    valid.languages.push_back(*language);
  }
  return valid;
}

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

// ---- compile and cache ---------------------------------------------------

struct ThreadObject {
  std::string path;
  int fd = -1; // opened under the entry's lock, verified
  bool compiled = false;
};

struct ObjectBuild {
  uint32_t cluster;
  jit::CompilerConfig compiler;
  ValidSources sources;
  std::string front;
  std::string entry_dir;
  std::string so_path, deps_path, key_path, lock_path;
};

std::string front_key(const ObjectBuild& b) {
  std::string text = std::string(kCacheFormat) + "\n";
  text += "compiler " + b.compiler.cxx + "\n";
  text += "identity " + jit::compiler_identity(b.compiler.cxx) + "\n";
  text += "include " + b.compiler.include_dir + "\n";
  text += "common " + join_flags(kCommonFlags) + "\n";
  text += "c " + join_flags(kCFlags) + "\n";
  text += "c++ " + join_flags(kCxxFlags) + "\n";
  text += "link " + join_flags(kLinkFlags) + "\n";
  const std::string header = b.compiler.include_dir + "/tessel/x280.h";
  auto header_text = jit::read_file(header);
  if (!header_text)
    throw ProgramError(who(b.cluster) + ": " + header +
                       " cannot be read (TESSEL_KERNEL_INCLUDE_DIR names tessel's "
                       "kernel/include directory)");
  text += "header " + jit::content_hash(*header_text) + " " + header + "\n";
  for (const std::string& path : b.sources.paths) {
    auto source = jit::read_file(path);
    if (!source) throw ValidationError(who(b.cluster) + ": source '" + path + "' cannot be read");
    text += "source " + jit::content_hash(*source) + " " + path + "\n";
  }
  return text;
}

// deps.txt's text as the listed files hash now; nullopt if one is gone.
std::optional<std::string> current_dependencies(const std::vector<std::string>& paths) {
  std::vector<jit::Dependency> deps;
  for (const auto& path : paths) {
    auto bytes = jit::read_file(path);
    if (!bytes) return std::nullopt;
    deps.push_back({path, jit::content_hash(*bytes)});
  }
  return jit::dependencies_text(deps);
}

std::string object_line(std::string_view so_bytes) { return "object " + jit::content_hash(so_bytes) + "\n"; }

// C2: the verified object's descriptor, or -1 on a miss.
int probe(const ObjectBuild& b) {
  auto key = jit::read_file(b.key_path);
  auto deps_text = jit::read_file(b.deps_path);
  if (!key || !deps_text) return -1;
  auto deps = jit::parse_dependencies_text(*deps_text);
  if (!deps) return -1;
  auto deps_now = current_dependencies(*deps);
  if (!deps_now) return -1;
  const std::string expected = b.front + "deps\n" + *deps_now;
  if (key->compare(0, expected.size(), expected) != 0) return -1;
  int fd = ::open(b.so_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  auto so_bytes = read_fd(fd);
  if (!so_bytes || key->substr(expected.size()) != object_line(*so_bytes)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One compiler run; ProgramError with its output when it fails.
void run_tool(const ObjectBuild& b, const std::vector<std::string>& argv, const std::string& what) {
  jit::ProcessResult result;
  {
    jit::CompilerSlot slot;
    result = jit::run_process(argv, {}, kCompilerOutputBytes, "X280 thread compiler");
  }
  if (result.spawn_error != 0)
    throw ProgramError(who(b.cluster) + ": the compiler " + argv[0] + " could not be started: " +
                       std::strerror(result.spawn_error) + " (set TESSEL_KERNEL_CXX to a C++20 compiler)");
  if (!jit::succeeded(result))
    throw ProgramError(who(b.cluster) + ": " + what + ":\n" + jit::describe_failure(result, "compiler"));
}

// Under the entry's exclusive lock (C1).
void compile_and_publish(const ObjectBuild& b) {
  jit::remove_temp_files(b.entry_dir);
  std::vector<std::string> temporaries;
  struct Cleanup {
    std::vector<std::string>& files;
    ~Cleanup() {
      for (const auto& f : files)
        jit::remove_file(f);
    }
  } cleanup{temporaries};

  std::vector<std::string> objects;
  std::vector<std::string> dep_paths;
  std::set<std::string> dep_seen;
  for (size_t i = 0; i < b.sources.paths.size(); ++i) {
    const std::string& source = b.sources.paths[i];
    const std::string object = jit::temp_name_for(b.entry_dir + "/source" + std::to_string(i) + ".o");
    const std::string depfile = jit::temp_name_for(b.entry_dir + "/source" + std::to_string(i) + ".d");
    temporaries.push_back(object);
    temporaries.push_back(depfile);
    std::vector<std::string> argv = {b.compiler.cxx};
    const auto& language = b.sources.languages[i] == SourceLanguage::C ? kCFlags : kCxxFlags;
    argv.insert(argv.end(), language.begin(), language.end());
    argv.insert(argv.end(), kCommonFlags.begin(), kCommonFlags.end());
    argv.insert(argv.end(), {"-I" + b.compiler.include_dir, "-MMD", "-MF", depfile, "-c", source, "-o", object});
    run_tool(b, argv, source + " failed to compile");
    objects.push_back(object);
    auto depfile_text = jit::read_file(depfile);
    if (!depfile_text) throw ProgramError(who(b.cluster) + ": the compiler wrote no depfile for " + source);
    for (auto& dep : jit::parse_depfile(*depfile_text, std::filesystem::current_path().string())) {
      std::string path = std::filesystem::path(dep).lexically_normal().string();
      if (dep_seen.insert(path).second) dep_paths.push_back(std::move(path));
    }
  }

  const std::string so_temp = jit::temp_name_for(b.so_path);
  temporaries.push_back(so_temp);
  std::vector<std::string> argv = {b.compiler.cxx};
  argv.insert(argv.end(), kLinkFlags.begin(), kLinkFlags.end());
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.insert(argv.end(), {"-o", so_temp});
  run_tool(b, argv, "the thread's sources failed to link");

  auto so_bytes = jit::read_file(so_temp);
  if (!so_bytes) throw ProgramError(who(b.cluster) + ": the linked object " + so_temp + " cannot be read");
  auto deps_text = current_dependencies(dep_paths);
  if (!deps_text) throw ProgramError(who(b.cluster) + ": a header the compiler read vanished during the build");
  jit::remove_file(b.key_path);
  jit::rename_file(so_temp, b.so_path);
  jit::write_file_atomic(b.deps_path, *deps_text);
  jit::write_file_atomic(b.key_path, b.front + "deps\n" + *deps_text + object_line(*so_bytes));
}

ThreadObject build_object(uint32_t cluster, ValidSources sources, const std::string& cache_dir) {
  ObjectBuild b{cluster, jit::compiler_config_from_environment(), std::move(sources), {}, {}, {}, {}, {}, {}};
  b.front = front_key(b);
  const std::string root = jit::kernel_cache_root(cache_dir) + "/x280";
  const std::string hash = jit::short_hash(b.front);
  b.entry_dir = root + "/" + hash;
  b.so_path = b.entry_dir + "/thread.so";
  b.deps_path = b.entry_dir + "/deps.txt";
  b.key_path = b.entry_dir + "/key.txt";
  b.lock_path = root + "/" + hash + ".lock";
  jit::make_directories(b.entry_dir);

  jit::FileLock lock(b.lock_path);
  lock.lock_shared();
  if (int fd = probe(b); fd >= 0) return {b.so_path, fd, false};
  lock.unlock();
  lock.lock_exclusive();
  if (int fd = probe(b); fd >= 0) return {b.so_path, fd, false}; // another process built it meanwhile
  compile_and_publish(b);
  int fd = probe(b);
  if (fd < 0) throw ProgramError(who(cluster) + ": the cache entry " + b.entry_dir + " did not verify after its build");
  return {b.so_path, fd, true};
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
