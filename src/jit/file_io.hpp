// File-system helpers for the kernel cache: whole-file reads, publication by
// rename(2), advisory locks and per-process scratch names.
//
// Reads report failure by an empty optional (the cache treats anything it
// cannot read as a miss); writes throw tessel::ProgramError, because a cache
// that cannot be written cannot produce a kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace tessel::jit {

// Identity of a file as the dynamic loader sees it (it deduplicates by it).
struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  friend bool operator==(const FileId&, const FileId&) = default;
};

// What stat(2) says about a file's content: equal stamps (outside the racy
// window, see DependencyHashes) mean equal content.
struct FileStamp {
  FileId id;
  int64_t size_bytes = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};
std::optional<FileStamp> stat_file(const std::string& path);

struct FileContent {
  std::string bytes;
  FileId id;
};

// The whole file, or nullopt if it cannot be opened or read.
std::optional<std::string> read_file(const std::string& path);
std::optional<FileContent> read_file_with_id(const std::string& path);

// A name beside `path` that no other thread or process uses: `path` + ".tmp-<pid>-<n>".
std::string temp_name_for(const std::string& path);
// Whether `file_name` (no directory) is a name temp_name_for makes.
bool is_temp_name(std::string_view file_name);
// Removes every file in `dir` whose name is_temp_name. The caller must know
// that no live writer uses temporaries there (the kernel cache holds the
// entry's exclusive lock). Errors are ignored (used for clean-up).
void remove_temp_files(const std::string& dir) noexcept;

// Writes `content` to a temporary name beside `path` and renames it over
// `path`, so a reader sees the old file or the complete new one.
void write_file_atomic(const std::string& path, std::string_view content);
// Renames `from` over `to`.
void rename_file(const std::string& from, const std::string& to);
// Removes a file if it exists; errors are ignored (used for clean-up).
void remove_file(const std::string& path) noexcept;
// mkdir -p.
void make_directories(const std::string& path);

// An flock(2) on a lock file, released on destruction. Locks of separate
// FileLock objects exclude each other even within one process (flock locks
// belong to the open file description).
class FileLock {
public:
  // Opens (creating if needed) the lock file; does not lock yet.
  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  void lock_shared();
  void lock_exclusive();
  void unlock();

private:
  void lock(int operation, const char* what);

  std::string path_;
  int fd_ = -1;
};

} // namespace tessel::jit
