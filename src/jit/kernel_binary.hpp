// Loading a published kernel shared object as a KernelBinary.
//
// Per-core copies. A kernel with writable data symbols gets one private copy
// of its shared object per core, loaded on first use. The copy is a real
// file copy under a per-process directory: glibc returns the already-loaded
// object when dlopen is given a path or an inode it has loaded before, so
// neither the published path nor a hard link would give separate globals.
//
// Stale names. For the same reason, once a path is loaded, dlopen of that
// path returns the loaded object even if the file was since replaced (a
// rebuilt cache entry). The loader records the inode it loaded under each
// published path and loads from a private copy when the file has changed.
#pragma once

#include "jit/file_io.hpp"
#include "jit/kernel_build.hpp"
#include "tessel/error.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tessel::jit {

// A shared object could not be loaded or is not a tessel kernel. The cache
// treats it as a corrupt entry (and rebuilds) or reports it as a ProgramError.
class KernelLoadError : public ProgramError {
public:
  KernelLoadError(const std::string& message, bool undefined_symbol)
      : ProgramError(message), undefined_symbol_(undefined_symbol) {}
  // dlopen failed on a symbol the object does not define (see LinkMode).
  bool undefined_symbol() const { return undefined_symbol_; }

private:
  bool undefined_symbol_;
};

// The per-process directory of private copies, `<root>/instances/<pid>-XXXXXX`,
// created on first use and removed when its last owner (the cache and the
// binaries it made) is destroyed. Directories left by processes that no
// longer exist are removed when a new one is created. Thread-safe.
class InstanceDirectory {
public:
  explicit InstanceDirectory(std::string cache_root);
  ~InstanceDirectory();
  InstanceDirectory(const InstanceDirectory&) = delete;
  InstanceDirectory& operator=(const InstanceDirectory&) = delete;

  // Writes `bytes` to `<dir>/<file_name>` and returns its path.
  std::string write_copy(const std::string& file_name, std::string_view bytes);

private:
  std::string ensure_created();

  std::string cache_root_;
  std::mutex mutex_;
  std::string path_; // empty until first use
};

// Loads `so_path`, whose bytes and identity the caller read (and checked)
// as `content` and keeps from changing by holding the entry's lock; checks
// that it is a kernel of this runtime's ABI and finds its writable data.
// Private copies are written from `content`. `tag` names them. Throws
// KernelLoadError.
std::shared_ptr<KernelBinary> load_kernel_binary(const std::string& so_path, FileContent content,
                                                 const std::string& source_name, const std::string& tag,
                                                 std::shared_ptr<InstanceDirectory> instances);

} // namespace tessel::jit
