// Kernel JIT: builds one kernel instance into a shared object, with an
// on-disk cache keyed by everything that changes the binary, and loads it.
//
// Cache invariants
//  - Key = source text + the content of every header the compiler read (from
//    its depfile) + defines + compile-time args (plain and named) + opt level
//    + kind + compiler identity + TESSEL_KERNEL_ABI_VERSION. The full key text
//    is stored beside the binary and compared on a hit; the 64-bit hash only
//    names the directory.
//  - A build writes to a temporary name and is published by rename, under a
//    per-entry file lock, so concurrent processes share the cache safely and
//    a reader never sees a half-written entry. The stored key also records
//    the content hash of the binary, checked before the binary is loaded. An
//    entry that fails to verify (missing or corrupt files, key mismatch, a
//    binary that does not match its hash) is rebuilt; a damaged binary is
//    also reported on stderr.
//  - Within one process a memo maps the request's key to the loaded binary,
//    so a repeated build costs a hash lookup.
//
// Thread-safety: KernelCache is safe to call from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace tessel::jit {

enum class KernelKind : uint8_t { DataMovement, Compute };

struct BuildRequest {
  // Exactly one of source_path (absolute path of a kernel file) or
  // source_text (kernel given as a string) is set.
  std::string source_path;
  std::string source_text;
  // For source_text kernels: the name used in messages and __FILE__.
  std::string display_name;
  KernelKind kind = KernelKind::DataMovement;
  std::vector<std::pair<std::string, std::string>> defines;
  // Extra directories for #include (absolute paths, searched after the
  // kernel's own directory and the kernel headers).
  std::vector<std::string> include_dirs;
  std::vector<uint32_t> compile_args;
  std::vector<std::pair<std::string, uint32_t>> named_compile_args;
  // -1: O2 for data movement, O3 for compute; 0..3: -O0..-O3; 4: -Os;
  // 5: -Ofast; 6: -Oz (kOptLevelNames in cache_key.hpp).
  int opt_level = -1;
  // By CB index: the tile size of the CB's format on every core the kernel
  // runs on, 0 where a core lacks the CB or cores differ. A kernel whose
  // source names get_tile_size gets it as a compile-time table
  // (TESSEL_CB_TILE_SIZES), so get_tile_size(cb) is a constant expression as
  // in Metalium. Empty: no table.
  std::vector<uint32_t> cb_tile_sizes;
  // The device's architecture, when the build is for one: a kernel whose own
  // code names ARCH_* or the NoC alignment macros gets ARCH_BLACKHOLE or
  // ARCH_WORMHOLE and the arch's NoC alignments (TESSEL_NOC_*_ALIGNMENT), as
  // Metalium builds a kernel per arch. Empty: neither.
  std::string arch;
  uint32_t l1_alignment = 0, dram_read_alignment = 0, dram_write_alignment = 0;
  // By CB index: the data format (Metalium's numbering) of the CB on every
  // core the kernel runs on, 255 (Invalid) where a core lacks the CB or cores
  // differ. A kernel whose code names Metalium's generated format tables
  // (unpack_src_format, pack_dst_format, unpack_tile_size, ...) or
  // get_dataformat gets them (TESSEL_CB_DATA_FORMATS). Empty: no tables.
  std::vector<uint8_t> cb_data_formats;
};

// A loaded kernel shared object.
//
// Kernel mutable globals and statics must be per core. When the object has
// writable data symbols, each instance gets its own loaded copy (instance()); when
// it has none, every core shares one load.
class KernelBinary {
public:
  using EntryFn = int (*)();
  virtual ~KernelBinary() = default;
  // Entry point for kernel instance `index` (below 65536; the runtime numbers
  // its (device, core, RISC) triples). Loads a private copy on first use when
  // the kernel has mutable symbols, so every instance has its own data.
  // Entries stay valid while this KernelBinary lives. Thread-safe.
  virtual EntryFn instance(uint32_t index) = 0;
  // Restore instance `index`'s writable data (.data, .bss) to its load-time
  // state, as silicon reloads a kernel's data at every launch. A no-op for
  // kernels without mutable symbols. Call before each launch.
  virtual void reset_globals(uint32_t index) = 0;
  // Names of the writable data symbols the kernel defines (empty if none).
  virtual const std::vector<std::string>& mutable_symbols() const = 0;
  // Path of the published shared object in the cache.
  virtual const std::string& so_path() const = 0;
  // Display path of the kernel source (for messages).
  virtual const std::string& source_name() const = 0;
};

struct CacheStats {
  uint64_t compiles = 0;  // compiler invocations that produced a binary
  uint64_t disk_hits = 0; // served from the on-disk cache
  uint64_t memo_hits = 0; // served from the in-process memo
};

class KernelCache {
public:
  // dir: cache root; empty = $TESSEL_CACHE_DIR, else $XDG_CACHE_HOME/tessel/kernels,
  // else $HOME/.cache/tessel/kernels.
  explicit KernelCache(std::string dir = {});
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // Build (or fetch) one kernel. Throws tessel::ProgramError carrying the
  // compiler output and the kernel path on a compile error (and on a missing
  // source or a binary that does not load), tessel::ValidationError for a
  // malformed request (both or neither source set, opt_level out of range).
  std::shared_ptr<KernelBinary> build(const BuildRequest& request);
  // Build several kernels in parallel (one compiler process per core of the
  // machine at most). All-or-nothing: throws the first error in request order.
  std::vector<std::shared_ptr<KernelBinary>> build_all(std::span<const BuildRequest> requests);

  CacheStats stats() const;
  const std::string& directory() const;
  // Forget the in-process memo (the disk cache stays). For tests and benchmarks.
  void clear_memo();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The root a KernelCache(dir) uses: `dir`, else $TESSEL_CACHE_DIR, else
// $XDG_CACHE_HOME/tessel/kernels, else $HOME/.cache/tessel/kernels; absolute,
// without a trailing '/'. Other caches of kernel builds (the size estimate,
// cross_build.hpp) live under it too.
std::string kernel_cache_root(const std::string& dir);

// The process-wide cache used by devices unless they are given another.
KernelCache& default_kernel_cache();

} // namespace tessel::jit
