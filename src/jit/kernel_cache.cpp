// KernelCache: in-process memo, then the on-disk cache, then the compiler.
//
// Disk protocol. An entry is `<root>/<abi>/<hash>/` holding kernel.so,
// deps.txt and key.txt; `<root>/<abi>/<hash>.lock` is its flock. <hash> is
// short_hash(front key), and the front key includes the source's content
// hash (cache_key.hpp).
//  D1 Readers verify and load an entry under a shared lock; builders hold the
//     exclusive lock from their final probe until the entry is loaded. So a
//     reader never loads a kernel.so other than the one its key.txt names.
//  D2 key.txt is the commit record (entry_record.hpp): the full key and the
//     content hash of kernel.so. A builder compiles to temporary names in the
//     entry directory, hashes the compiled binary, removes key.txt, renames
//     kernel.so into place, writes deps.txt, and writes key.txt last (each by
//     rename). An entry interrupted at any step has no key.txt or a key.txt
//     that does not match its deps, and is rebuilt.
//  D3 A hit needs key.txt == front key + deps.txt as the current files hash
//     (every header re-hashed) + a hash line, kernel.so's bytes to hash to
//     that line's value (checked before dlopen, on the bytes that are then
//     loaded and copied), and kernel.so to load and pass its checks (ELF,
//     entry symbol, ABI version). Anything else is a miss: the entry is
//     rebuilt and republished under the exclusive lock. A kernel.so that is
//     missing or fails its hash under a matching key.txt was damaged after
//     it was published (by a disk, or by a process writing into the cache):
//     its rebuild is reported with one line on stderr naming the kernel and
//     the entry directory.
//  D4 A lookup takes the shared lock, and on a miss drops it and takes the
//     exclusive one, then probes again: another process may have built the
//     entry meanwhile. Locks are never held while waiting for another lock.
//  D5 Temporary names (file_io.hpp, "<name>.tmp-<pid>-<n>") are created in an
//     entry directory only by a builder holding the entry's exclusive lock.
//     So a builder, holding it, finds only temporaries of builders that died
//     (a process killed mid-compile), and removes them before it compiles.
//     Other entries' directories are not touched. (A compiler whose parent
//     was killed may still finish writing its temporary output afterwards;
//     the next build of the entry removes that too. It never touches the
//     published names, which only the builder renames into place.)
//
// Header edits do not change <hash>, so two versions of a header alternate in
// one entry (each rebuild republishes); the full key keeps both correct.
//
// Memo. Maps memo_key(request) (source *path*, not content; text kernels by
// text hash) to the loaded binary.
//  M1 A memo hit touches no file: it assumes kernel sources and the headers
//     they include do not change while the process runs. clear_memo() forgets
//     the memo (and the header hash record, below), so the next build of each
//     request re-reads its source and headers.
//  M2 The first builder of a key inserts a shared_future; concurrent builders
//     of the same key wait on it, so one key compiles once per cache (the
//     entry lock covers other caches and processes).
//  M3 Failures are not remembered: the future delivers the error to the
//     current waiters and the key is erased, so a later build retries.
//  M4 The memo holds binaries weakly: a kernel no program uses any more is
//     unloaded (with its per-instance copies), and building it again is a
//     disk-cache hit.
//
// Header hashes. Disk lookups re-hash every header an entry lists. A
// process-wide record keeps each header's hash with its stat stamp (device,
// inode, size, mtime, ctime) and reuses it while a stat(2) returns the same
// stamp: one system call per header instead of reading it. Timestamps are
// coarse (the kernel's clock tick), so a file changed less than
// kRacyWindowNs before it was hashed is not recorded (git's "racily clean"
// rule): an edit in the same tick could leave the stamp unchanged.
#include "jit/kernel_build.hpp"

#include "jit/cache_key.hpp"
#include "jit/compiler.hpp"
#include "jit/entry_record.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_binary.hpp"
#include "jit/kernel_source.hpp"
#include "tessel/error.hpp"
#include "tessel/kernel_abi.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace tessel::jit {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string default_cache_root() {
  if (std::string dir = environment("TESSEL_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = environment("XDG_CACHE_HOME"); !dir.empty()) return dir + "/tessel/kernels";
  if (std::string dir = environment("HOME"); !dir.empty()) return dir + "/.cache/tessel/kernels";
  return "/tmp/tessel-kernels-" + std::to_string(::getuid());
}

struct EntryPaths {
  std::string hash;
  std::string dir;
  std::string so;
  std::string key;
  std::string deps;
  std::string lock;
};

EntryPaths entry_paths(const std::string& entries_dir, std::string hash) {
  std::string dir = entries_dir + "/" + hash;
  return {hash, dir, dir + "/kernel.so", dir + "/key.txt", dir + "/deps.txt", dir + ".lock"};
}

// Removes temporary files a failed build leaves behind.
class TempFiles {
public:
  explicit TempFiles(std::vector<std::string> paths) : paths_(std::move(paths)) {}
  ~TempFiles() {
    for (const auto& path : paths_)
      remove_file(path);
  }
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;

private:
  std::vector<std::string> paths_;
};

// See "Header hashes" above.
class DependencyHashes {
public:
  // content_hash of the file, or nullopt if it cannot be read. `reread`
  // ignores the record (after a compile, which just read the files).
  std::optional<std::string> hash(const std::string& path, bool reread) {
    std::optional<FileStamp> stamp = stat_file(path);
    if (!stamp) return std::nullopt;
    if (!reread) {
      std::lock_guard lock(mutex_);
      if (auto it = records_.find(path); it != records_.end() && it->second.stamp == *stamp) return it->second.hash;
    }
    std::optional<FileContent> content = read_file_with_id(path);
    if (!content) return std::nullopt;
    std::string hash = content_hash(content->bytes);
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    int64_t now_ns = int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
    std::optional<FileStamp> after = stat_file(path);
    std::lock_guard lock(mutex_);
    if (after && after == stamp && after->id == content->id &&
        std::max(after->mtime_ns, after->ctime_ns) < now_ns - kRacyWindowNs)
      records_[path] = {*after, hash};
    else
      records_.erase(path);
    return hash;
  }

  void clear() {
    std::lock_guard lock(mutex_);
    records_.clear();
  }

private:
  static constexpr int64_t kRacyWindowNs = 2'000'000'000;
  struct Record {
    FileStamp stamp;
    std::string hash;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Record> records_;
};

DependencyHashes& dependency_hashes() {
  static DependencyHashes hashes;
  return hashes;
}

// One line on stderr per rebuilt damaged entry (D3): a cache that silently
// repaired itself would hide a failing disk or a process writing into it.
void report_damaged_entry(const std::string& kernel_name, const std::string& entry_dir, EntryState state) {
  const char* what = state == EntryState::BinaryMissing ? "kernel.so is missing"
                                                        : "kernel.so does not match the content hash key.txt records";
  std::string line = "tessel: kernel cache entry " + entry_dir + " of kernel " + kernel_name + " was damaged (" + what +
                     "); rebuilt it\n";
  std::fputs(line.c_str(), stderr);
}

} // namespace

std::string kernel_cache_root(const std::string& dir) {
  // Absolute, without a trailing '/': compiler paths and messages are built from it.
  std::string root = std::filesystem::absolute(dir.empty() ? default_cache_root() : dir).lexically_normal().string();
  while (root.size() > 1 && root.back() == '/')
    root.pop_back();
  return root;
}

struct KernelCache::Impl {
  explicit Impl(std::string dir)
      : root(kernel_cache_root(dir)), entries_dir(root + "/" + std::to_string(TESSEL_KERNEL_ABI_VERSION)),
        compiler(compiler_config_from_environment()), instances(std::make_shared<InstanceDirectory>(root)) {}

  std::shared_ptr<KernelBinary> build(const BuildRequest& request, const std::string& key);
  std::shared_ptr<KernelBinary> build_uncached(const BuildRequest& request);
  // A disk lookup: the loaded binary on a hit, else nullptr and why.
  struct Probe {
    std::shared_ptr<KernelBinary> binary;
    EntryState state = EntryState::Stale;
  };
  Probe probe(const EntryPaths& entry, const std::string& front, const PreparedSource& source);
  std::shared_ptr<KernelBinary> compile_and_publish(const PreparedSource& source, const std::string& front,
                                                    const EntryPaths& entry);
  void clear_memo();

  std::string root;
  std::string entries_dir;
  CompilerConfig compiler;
  std::shared_ptr<InstanceDirectory> instances;
  std::once_flag entries_dir_made;

  std::atomic<uint64_t> compiles{0};
  std::atomic<uint64_t> disk_hits{0};
  std::atomic<uint64_t> memo_hits{0};

  // The memo does not keep binaries alive: once no program holds a kernel, it
  // is unloaded and the next build of it is a disk hit (M4).
  struct MemoEntry {
    std::shared_future<std::shared_ptr<KernelBinary>> result; // valid while the build runs
    std::weak_ptr<KernelBinary> ready;                        // set once the build succeeded
    uint64_t build_id = 0;
  };
  std::mutex memo_mutex;
  std::unordered_map<std::string, MemoEntry> memo;
  uint64_t next_build_id = 0; // guarded by memo_mutex
};

std::shared_ptr<KernelBinary> KernelCache::Impl::build(const BuildRequest& request, const std::string& key) {
  std::promise<std::shared_ptr<KernelBinary>> promise;
  uint64_t build_id = 0;
  {
    std::unique_lock lock(memo_mutex);
    auto [it, inserted] = memo.try_emplace(key);
    if (!inserted) {
      if (std::shared_ptr<KernelBinary> binary = it->second.ready.lock()) {
        memo_hits.fetch_add(1, std::memory_order_relaxed);
        return binary;
      }
      if (it->second.result.valid()) {
        memo_hits.fetch_add(1, std::memory_order_relaxed);
        auto result = it->second.result;
        lock.unlock();
        return result.get(); // another thread is building this key (M2)
      }
      // Built before but unloaded since: build again (from the disk cache).
    }
    build_id = ++next_build_id;
    it->second.result = promise.get_future().share();
    it->second.ready.reset();
    it->second.build_id = build_id;
  }
  try {
    std::shared_ptr<KernelBinary> binary = build_uncached(request);
    {
      std::lock_guard lock(memo_mutex);
      if (auto it = memo.find(key); it != memo.end() && it->second.build_id == build_id) {
        it->second.ready = binary;
        it->second.result = {};
      }
    }
    promise.set_value(binary);
    return binary;
  } catch (...) {
    {
      std::lock_guard lock(memo_mutex);
      if (auto it = memo.find(key); it != memo.end() && it->second.build_id == build_id) memo.erase(it);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

KernelCache::Impl::Probe KernelCache::Impl::probe(const EntryPaths& entry, const std::string& front,
                                                  const PreparedSource& source) {
  std::optional<std::string> key = read_file(entry.key);
  std::optional<std::string> deps = read_file(entry.deps);
  std::optional<FileContent> binary = read_file_with_id(entry.so);
  EntryFiles files{key, deps, std::nullopt};
  if (binary) files.binary = binary->bytes;
  EntryState state =
      check_entry(files, front, [](const std::string& path) { return dependency_hashes().hash(path, false); });
  if (state != EntryState::Valid) return {nullptr, state};
  try {
    return {load_kernel_binary(entry.so, std::move(*binary), source.name, entry.hash, instances), state};
  } catch (const KernelLoadError&) {
    return {nullptr, EntryState::Stale}; // a foreign binary that matches its record: rebuild (D3)
  }
}

std::shared_ptr<KernelBinary> KernelCache::Impl::compile_and_publish(const PreparedSource& source,
                                                                     const std::string& front,
                                                                     const EntryPaths& entry) {
  make_directories(entry.dir);
  remove_temp_files(entry.dir); // D5: left by builders that died; none is running
  // Relative depfile paths are relative to the compiler's working directory.
  std::string base_dir = source.working_dir;
  if (base_dir.empty()) {
    std::error_code error;
    base_dir = std::filesystem::current_path(error).string();
  }
  for (LinkMode link_mode : {LinkMode::Minimal, LinkMode::Full}) {
    CompileJob job{compiler.cxx,
                   compiler.include_dir,
                   source.working_dir,
                   source.source_arg,
                   source.name,
                   temp_name_for(entry.so),
                   temp_name_for(entry.dir + "/kernel.d"),
                   source.flags,
                   link_mode};
    TempFiles temp_files({job.output_path, job.depfile_path});
    run_compile(job);

    std::optional<std::string> depfile = read_file(job.depfile_path);
    if (!depfile) throw ProgramError("kernel " + source.name + ": the compiler wrote no depfile " + job.depfile_path);
    remove_file(job.depfile_path);
    std::vector<Dependency> dependencies;
    std::unordered_set<std::string> seen = {source.compiled_path};
    for (auto& path : parse_depfile(*depfile, base_dir)) {
      if (!seen.insert(path).second) continue;
      std::optional<std::string> hash = dependency_hashes().hash(path, true);
      if (!hash) throw ProgramError("kernel " + source.name + ": cannot read " + path + ", which it includes");
      dependencies.push_back({std::move(path), std::move(*hash)});
    }
    std::string deps_text = dependencies_text(dependencies);
    std::optional<FileContent> binary = read_file_with_id(job.output_path); // renaming keeps its identity
    if (!binary) throw ProgramError("kernel " + source.name + ": cannot read the compiler's output " + job.output_path);
    std::string binary_hash = content_hash(binary->bytes);

    remove_file(entry.key); // D2: the entry is invalid until key.txt is written again
    rename_file(job.output_path, entry.so);
    write_file_atomic(entry.deps, deps_text);
    write_file_atomic(entry.key, entry_record_text(front, deps_text, binary_hash));
    compiles.fetch_add(1, std::memory_order_relaxed);
    try {
      return load_kernel_binary(entry.so, std::move(*binary), source.name, entry.hash, instances);
    } catch (const KernelLoadError& error) {
      remove_file(entry.key);
      if (link_mode == LinkMode::Minimal && error.undefined_symbol()) continue;
      throw;
    }
  }
  throw ProgramError("kernel " + source.name + ": cannot be loaded even when linked with the default libraries");
}

std::shared_ptr<KernelBinary> KernelCache::Impl::build_uncached(const BuildRequest& request) {
  PreparedSource source = prepare_kernel_source(request, root, compiler.include_dir);
  FrontKeyInputs inputs{compiler.cxx,         compiler_identity(compiler.cxx),
                        compiler.include_dir, fixed_compile_flags(),
                        source.compiled_path, source.hash,
                        source.flags};
  std::string front = front_key_text(request, inputs);
  EntryPaths entry = entry_paths(entries_dir, short_hash(front));
  std::call_once(entries_dir_made, [&] { make_directories(entries_dir); });

  FileLock lock(entry.lock);
  lock.lock_shared();
  if (Probe hit = probe(entry, front, source); hit.binary) {
    disk_hits.fetch_add(1, std::memory_order_relaxed);
    return hit.binary;
  }
  lock.unlock(); // D4
  lock.lock_exclusive();
  Probe final_probe = probe(entry, front, source);
  if (final_probe.binary) {
    disk_hits.fetch_add(1, std::memory_order_relaxed);
    return final_probe.binary;
  }
  std::shared_ptr<KernelBinary> binary = compile_and_publish(source, front, entry);
  if (final_probe.state == EntryState::BinaryMissing || final_probe.state == EntryState::BinaryDamaged)
    report_damaged_entry(source.name, entry.dir, final_probe.state);
  return binary;
}

void KernelCache::Impl::clear_memo() {
  {
    std::lock_guard lock(memo_mutex);
    memo.clear();
  }
  dependency_hashes().clear();
}

KernelCache::KernelCache(std::string dir) : impl_(std::make_unique<Impl>(std::move(dir))) {}

KernelCache::~KernelCache() = default;

std::shared_ptr<KernelBinary> KernelCache::build(const BuildRequest& request) {
  validate_request(request);
  return impl_->build(request, memo_key(request));
}

std::vector<std::shared_ptr<KernelBinary>> KernelCache::build_all(std::span<const BuildRequest> requests) {
  for (const auto& request : requests)
    validate_request(request);

  // Identical requests share one build (and count as memo hits).
  std::vector<std::string> keys;
  std::vector<size_t> distinct;                 // request index of each distinct key
  std::vector<size_t> slot_of(requests.size()); // request -> index into distinct
  std::unordered_map<std::string_view, size_t> slot_by_key;
  keys.reserve(requests.size()); // string_views into keys stay valid
  for (size_t i = 0; i < requests.size(); ++i) {
    keys.push_back(memo_key(requests[i]));
    auto [it, inserted] = slot_by_key.try_emplace(keys.back(), distinct.size());
    if (inserted)
      distinct.push_back(i);
    else
      impl_->memo_hits.fetch_add(1, std::memory_order_relaxed);
    slot_of[i] = it->second;
  }

  std::vector<std::shared_ptr<KernelBinary>> built(distinct.size());
  std::vector<std::exception_ptr> errors(distinct.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t slot = next.fetch_add(1); slot < distinct.size(); slot = next.fetch_add(1)) {
      try {
        built[slot] = impl_->build(requests[distinct[slot]], keys[distinct[slot]]);
      } catch (...) {
        errors[slot] = std::current_exception();
      }
    }
  };
  // Each worker runs at most one compiler at a time; run_compile also caps
  // compilers process-wide, so concurrent build_all calls share the machine.
  size_t worker_count = std::min<size_t>(distinct.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < worker_count; ++i) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break; // fewer threads only means less parallelism
    }
  }
  work();
  for (auto& helper : helpers)
    helper.join();

  std::vector<std::shared_ptr<KernelBinary>> results;
  results.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (errors[slot_of[i]]) std::rethrow_exception(errors[slot_of[i]]);
    results.push_back(built[slot_of[i]]);
  }
  return results;
}

CacheStats KernelCache::stats() const {
  return {impl_->compiles.load(std::memory_order_relaxed), impl_->disk_hits.load(std::memory_order_relaxed),
          impl_->memo_hits.load(std::memory_order_relaxed)};
}

const std::string& KernelCache::directory() const { return impl_->root; }

void KernelCache::clear_memo() { impl_->clear_memo(); }

KernelCache& default_kernel_cache() {
  static KernelCache cache;
  return cache;
}

} // namespace tessel::jit
