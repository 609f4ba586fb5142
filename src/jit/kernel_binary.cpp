#include "jit/kernel_binary.hpp"

#include "jit/elf_symbols.hpp"
#include "jit/file_io.hpp"
#include "tessel/kernel_abi.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <link.h>
#include <unistd.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tessel::jit {
namespace {

std::string take_dl_error() {
  const char* error = ::dlerror();
  return error != nullptr ? error : "unknown dlopen error";
}

// One dlopen reference, closed on destruction.
class SharedObject {
public:
  SharedObject() = default;
  explicit SharedObject(void* handle) : handle_(handle) {}
  ~SharedObject() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  SharedObject(SharedObject&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  SharedObject& operator=(SharedObject&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  void* get() const { return handle_; }

private:
  void* handle_ = nullptr;
};

SharedObject open_object(const std::string& path, const std::string& source_name) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string error = take_dl_error();
    throw KernelLoadError("kernel " + source_name + ": cannot load " + path + ": " + error,
                          error.find("undefined symbol") != std::string::npos);
  }
  return SharedObject(handle);
}

KernelBinary::EntryFn checked_entry(const SharedObject& object, const std::string& so_path,
                                    const std::string& source_name) {
  ::dlerror();
  auto entry = reinterpret_cast<KernelBinary::EntryFn>(::dlsym(object.get(), "tessel_kernel_entry"));
  auto version = static_cast<const uint32_t*>(::dlsym(object.get(), "tessel_kernel_abi_version"));
  if (entry == nullptr || version == nullptr)
    throw KernelLoadError("kernel " + source_name + ": " + so_path + " does not define " +
                              (entry == nullptr ? "tessel_kernel_entry" : "tessel_kernel_abi_version") +
                              " (kernels are compiled with -include tessel/kernel_prelude.h, which defines it)",
                          false);
  auto has_main = reinterpret_cast<int (*)()>(::dlsym(object.get(), "tessel_kernel_has_main"));
  if (has_main != nullptr && has_main() == 0)
    throw KernelLoadError("kernel " + source_name +
                              " defines no kernel_main() (nor NAMESPACE { void MAIN { ... } }); nothing was launched",
                          false);
  if (*version != TESSEL_KERNEL_ABI_VERSION)
    throw KernelLoadError("kernel " + source_name + ": " + so_path + " was built for kernel ABI version " +
                              std::to_string(*version) + ", but this runtime uses version " +
                              std::to_string(TESSEL_KERNEL_ABI_VERSION),
                          false);
  return entry;
}

// The inode last loaded under each published path, process-wide (see "Stale
// names" in the header). Never freed: kernels may be closed by static
// destructors that run after this one would.
struct LoadedPaths {
  std::mutex mutex;
  std::unordered_map<std::string, FileId> ids;
};
LoadedPaths& loaded_paths() {
  static auto* paths = new LoadedPaths;
  return *paths;
}

// dlopen(path) when that yields the file `id`; an empty object when the
// process already has a different file loaded under that name.
SharedObject open_published(const std::string& path, FileId id, const std::string& source_name) {
  LoadedPaths& paths = loaded_paths();
  std::lock_guard lock(paths.mutex);
  if (void* existing = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    auto it = paths.ids.find(path);
    bool same_file = it != paths.ids.end() && it->second == id;
    ::dlclose(existing);
    if (!same_file) return {};
  }
  ::dlerror();
  SharedObject object = open_object(path, source_name);
  paths.ids[path] = id;
  return object;
}

std::atomic<uint64_t> next_binary_id{0};

class LoadedKernel final : public KernelBinary {
public:
  LoadedKernel(std::string so_path, std::string source_name, std::string copy_prefix,
               std::shared_ptr<InstanceDirectory> instances, SharedObject shared, EntryFn shared_entry,
               std::vector<std::string> mutable_symbols, std::string image)
      : so_path_(std::move(so_path)), source_name_(std::move(source_name)), copy_prefix_(std::move(copy_prefix)),
        mutable_symbols_(std::move(mutable_symbols)), image_(std::move(image)), instances_(std::move(instances)),
        shared_(std::move(shared)), shared_entry_(shared_entry) {}

  EntryFn instance(uint32_t core_index) override {
    if (mutable_symbols_.empty()) return shared_entry_;
    if (core_index < kMaxCores) {
      if (Chunk* chunk = chunks_[core_index >> kChunkBits].load(std::memory_order_acquire)) {
        if (EntryFn entry = chunk->entries[core_index & kChunkMask].load(std::memory_order_acquire)) return entry;
      }
    }
    return load_core_copy(core_index);
  }

  void reset_globals(uint32_t core_index) override {
    if (mutable_symbols_.empty() || core_index >= kMaxCores) return;
    Chunk* chunk = chunks_[core_index >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr || chunk->entries[core_index & kChunkMask].load(std::memory_order_acquire) == nullptr) return;
    for (auto& [at, bytes] : chunk->snapshots[core_index & kChunkMask]->ranges)
      std::memcpy(at, bytes.data(), bytes.size());
  }

  const std::vector<std::string>& mutable_symbols() const override { return mutable_symbols_; }
  const std::string& so_path() const override { return so_path_; }
  const std::string& source_name() const override { return source_name_; }

private:
  // Per-core entries: a two-level table so instance() is two acquire loads.
  static constexpr uint32_t kChunkBits = 8;
  static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
  static constexpr uint32_t kMaxChunks = 256;
  static constexpr uint32_t kMaxCores = kMaxChunks << kChunkBits;
  // A copy's writable data as loaded (.data, .bss, ...; not RELRO), restored
  // before every launch the way silicon reloads a kernel's data each time.
  struct Snapshot {
    std::vector<std::pair<uint8_t*, std::string>> ranges;
  };
  struct Chunk {
    std::array<std::atomic<EntryFn>, 1u << kChunkBits> entries{};
    std::array<Snapshot*, 1u << kChunkBits> snapshots{};
  };

  static Snapshot take_snapshot(void* handle) {
    Snapshot snap;
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return snap;
    struct Search {
      uintptr_t base;
      Snapshot* snap;
    } search{uintptr_t(map->l_addr), &snap};
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
          auto* q = static_cast<Search*>(data);
          if (info->dlpi_addr != q->base) return 0;
          const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
          uintptr_t relro_lo = 0, relro_hi = 0;
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
              relro_lo = (q->base + info->dlpi_phdr[i].p_vaddr) & ~(page - 1);
              relro_hi = (q->base + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
            }
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
            uintptr_t lo = q->base + ph.p_vaddr, hi = lo + ph.p_memsz;
            if (lo >= relro_lo && lo < relro_hi) lo = relro_hi; // the read-only part of the segment
            if (lo < hi)
              q->snap->ranges.emplace_back(reinterpret_cast<uint8_t*>(lo),
                                           std::string(reinterpret_cast<const char*>(lo), hi - lo));
          }
          return 1;
        },
        &search);
    return snap;
  }

  EntryFn load_core_copy(uint32_t core_index) {
    if (core_index >= kMaxCores)
      throw ValidationError("kernel " + source_name_ + ": core index " + std::to_string(core_index) +
                            " is beyond the " + std::to_string(kMaxCores) + " cores the kernel loader supports");
    std::lock_guard lock(mutex_);
    std::atomic<Chunk*>& slot = chunks_[core_index >> kChunkBits];
    Chunk* chunk = slot.load(std::memory_order_relaxed);
    if (chunk == nullptr) {
      owned_chunks_.push_back(std::make_unique<Chunk>());
      chunk = owned_chunks_.back().get();
      slot.store(chunk, std::memory_order_release);
    }
    std::atomic<EntryFn>& entry_slot = chunk->entries[core_index & kChunkMask];
    if (EntryFn entry = entry_slot.load(std::memory_order_relaxed)) return entry;

    std::string path = instances_->write_copy(copy_prefix_ + "-core" + std::to_string(core_index) + ".so", image_);
    SharedObject copy = open_object(path, source_name_);
    EntryFn entry = checked_entry(copy, path, source_name_);
    snapshots_.push_back(std::make_unique<Snapshot>(take_snapshot(copy.get())));
    chunk->snapshots[core_index & kChunkMask] = snapshots_.back().get();
    copies_.push_back(std::move(copy));
    entry_slot.store(entry, std::memory_order_release);
    return entry;
  }

  std::string so_path_;
  std::string source_name_;
  std::string copy_prefix_;
  std::vector<std::string> mutable_symbols_;
  std::string image_; // the object's bytes, source of per-core copies; empty when none are needed
  // Destruction order matters: copies, then the shared load, then the directory holding their files.
  std::shared_ptr<InstanceDirectory> instances_;
  SharedObject shared_;
  EntryFn shared_entry_;
  std::mutex mutex_; // guards copies_, owned_chunks_ and stores into chunks_
  std::vector<SharedObject> copies_;
  std::vector<std::unique_ptr<Snapshot>> snapshots_;
  std::vector<std::unique_ptr<Chunk>> owned_chunks_;
  std::array<std::atomic<Chunk*>, kMaxChunks> chunks_{};
};

} // namespace

InstanceDirectory::InstanceDirectory(std::string cache_root) : cache_root_(std::move(cache_root)) {}

InstanceDirectory::~InstanceDirectory() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string InstanceDirectory::ensure_created() {
  std::lock_guard lock(mutex_);
  if (!path_.empty()) return path_;
  std::string base = cache_root_ + "/instances";
  make_directories(base);
  // Remove what crashed processes left behind. A pid that exists (or that we
  // cannot signal) is left alone; reuse of a dead pid only delays clean-up.
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
    std::string name = entry.path().filename().string();
    char* end = nullptr;
    long pid = std::strtol(name.c_str(), &end, 10);
    if (end == name.c_str() || *end != '-' || pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove_all(entry.path(), ignored);
    }
  }
  std::string pattern = base + "/" + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw ProgramError("kernel cache: cannot create a directory for per-core kernel copies in " + base + ": " +
                       std::strerror(errno));
  path_ = pattern;
  return path_;
}

std::string InstanceDirectory::write_copy(const std::string& file_name, std::string_view bytes) {
  std::string path = ensure_created() + "/" + file_name;
  try {
    write_file_atomic(path, bytes);
  } catch (const ProgramError&) {
    // Another process's clean-up may have removed the directory (a pid from
    // another pid namespace looks dead); recreate it once.
    make_directories(ensure_created());
    write_file_atomic(path, bytes);
  }
  return path;
}

std::shared_ptr<KernelBinary> load_kernel_binary(const std::string& so_path, FileContent content,
                                                 const std::string& source_name, const std::string& tag,
                                                 std::shared_ptr<InstanceDirectory> instances) {
  std::optional<std::vector<std::string>> symbols = writable_data_symbols(content.bytes);
  if (!symbols) throw KernelLoadError("kernel " + source_name + ": " + so_path + " is not a valid ELF object", false);

  std::string copy_prefix = tag + "-" + std::to_string(next_binary_id.fetch_add(1));
  SharedObject shared = open_published(so_path, content.id, source_name);
  if (shared.get() == nullptr)
    shared = open_object(instances->write_copy(copy_prefix + "-shared.so", content.bytes), source_name);
  KernelBinary::EntryFn entry = checked_entry(shared, so_path, source_name);

  std::vector<std::string> names;
  for (const auto& symbol : *symbols)
    names.push_back(demangle(symbol));
  std::string image = names.empty() ? std::string() : std::move(content.bytes);
  return std::make_shared<LoadedKernel>(so_path, source_name, std::move(copy_prefix), std::move(instances),
                                        std::move(shared), entry, std::move(names), std::move(image));
}

} // namespace tessel::jit
