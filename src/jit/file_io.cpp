#include "jit/file_io.hpp"

#include "tessel/error.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel::jit {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

class Fd {
public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

private:
  int fd_;
};

bool read_all(int fd, std::string& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  // Reads st_size bytes without probing for EOF (a syscall per file on the
  // disk-hit path); a file that changes meanwhile fails its key check anyway.
  size_t expected = static_cast<size_t>(st.st_size);
  out.resize(expected);
  size_t done = 0;
  while (true) {
    if (expected != 0 && done == expected) break;
    if (done == out.size()) out.resize(out.size() + 4096); // size unknown (e.g. procfs): read to EOF
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return true;
}

} // namespace

std::optional<FileContent> read_file_with_id(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileContent content;
  content.id = {st.st_dev, st.st_ino};
  if (!read_all(fd.get(), content.bytes)) return std::nullopt;
  return content;
}

std::optional<FileStamp> stat_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto ns = [](const timespec& time) { return int64_t{time.tv_sec} * 1'000'000'000 + time.tv_nsec; };
  return FileStamp{{st.st_dev, st.st_ino}, st.st_size, ns(st.st_mtim), ns(st.st_ctim)};
}

std::optional<std::string> read_file(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::string bytes;
  if (!read_all(fd.get(), bytes)) return std::nullopt;
  return bytes;
}

std::string temp_name_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

bool is_temp_name(std::string_view file_name) {
  // <name>.tmp-<digits>-<digits>, <name> not empty.
  auto digits_before = [](std::string_view text, size_t end) {
    size_t begin = end;
    while (begin > 0 && text[begin - 1] >= '0' && text[begin - 1] <= '9')
      --begin;
    return end - begin;
  };
  size_t counter_digits = digits_before(file_name, file_name.size());
  if (counter_digits == 0 || counter_digits == file_name.size()) return false;
  size_t dash = file_name.size() - counter_digits - 1;
  if (file_name[dash] != '-') return false;
  size_t pid_digits = digits_before(file_name, dash);
  if (pid_digits == 0) return false;
  std::string_view rest = file_name.substr(0, dash - pid_digits);
  constexpr std::string_view kTag = ".tmp-";
  return rest.size() > kTag.size() && rest.ends_with(kTag);
}

void remove_temp_files(const std::string& dir) noexcept {
  std::error_code error;
  std::filesystem::directory_iterator it(dir, error);
  for (; !error && it != std::filesystem::directory_iterator(); it.increment(error)) {
    std::string name = it->path().filename().string();
    if (is_temp_name(name)) remove_file(it->path().string());
  }
}

void write_file_atomic(const std::string& path, std::string_view content) {
  std::string temp = temp_name_for(path);
  Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw ProgramError("kernel cache: cannot create " + temp + ": " + errno_text(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      remove_file(temp);
      throw ProgramError("kernel cache: cannot write " + temp + ": " + errno_text(error));
    }
    done += static_cast<size_t>(n);
  }
  try {
    rename_file(temp, path);
  } catch (...) {
    remove_file(temp);
    throw;
  }
}

void rename_file(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw ProgramError("kernel cache: cannot rename " + from + " to " + to + ": " + errno_text(errno));
}

void remove_file(const std::string& path) noexcept { ::unlink(path.c_str()); }

void make_directories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) throw ProgramError("kernel cache: cannot create directory " + path + ": " + error.message());
}

FileLock::FileLock(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw ProgramError("kernel cache: cannot open lock file " + path + ": " + errno_text(errno));
}

FileLock::~FileLock() { ::close(fd_); } // closing releases the lock

void FileLock::lock_shared() { lock(LOCK_SH, "share"); }
void FileLock::lock_exclusive() { lock(LOCK_EX, "lock"); }
void FileLock::unlock() { ::flock(fd_, LOCK_UN); }

void FileLock::lock(int operation, const char* what) {
  while (::flock(fd_, operation) != 0) {
    if (errno != EINTR)
      throw ProgramError(std::string("kernel cache: cannot ") + what + " " + path_ + ": " + errno_text(errno));
  }
}

} // namespace tessel::jit
