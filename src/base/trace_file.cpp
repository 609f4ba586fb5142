#include "base/trace_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "tessel/error.hpp"

namespace tessel::base {

namespace {

constexpr char kHeader[] = "[\n";
constexpr char kTrailer[] = "{\"name\":\"tessel_trace_end\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{}}\n]\n";

// What this process knows of the trace files it writes or wrote.
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<TraceFile>> open;
  struct Closed {
    uint64_t size_bytes = 0; // the whole file, trailer included, when it was closed
    uint32_t next_process_id = 1;
  };
  std::map<std::string, Closed> closed;
};

Registry& registry() {
  static Registry* r = new Registry; // outlives every TraceFile, even those destroyed at exit
  return *r;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

[[noreturn]] void cannot(const std::string& path, const char* source, const char* what, int err) {
  throw ValidationError(std::string(source) + ": cannot " + what + " the trace file '" + path +
                        "': " + std::strerror(err) + "; expected a path in a writable directory");
}

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= size_t(w);
  }
  return true;
}
} // namespace

struct TraceFile::State {
  std::mutex mutex;
  int fd = -1;
  uint32_t next_process_id = 1;
  uint64_t bytes = 0; // the file's size
  bool failed = false;
};

TraceFile::TraceFile(std::string path, int fd, uint32_t first_process_id)
    : path_(std::move(path)), state_(std::make_unique<State>()) {
  state_->fd = fd;
  state_->next_process_id = first_process_id;
}

std::shared_ptr<TraceFile> TraceFile::open(const std::string& path, const char* source) {
  if (path.empty()) throw ValidationError(std::string(source) + ": the trace file's path is empty");
  const std::string key = canonical(path);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto it = r.open.find(key); it != r.open.end())
    if (std::shared_ptr<TraceFile> f = it->second.lock()) return f;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) cannot(path, source, "write", EISDIR);
  // Reopened for appending only while the file is as this process left it.
  auto closed = r.closed.find(key);
  const bool append = closed != r.closed.end() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      uint64_t(st.st_size) == closed->second.size_bytes;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644);
  if (fd < 0) cannot(path, source, "create", errno);
  uint64_t bytes = 0;
  if (append) {
    bytes = closed->second.size_bytes - (sizeof kTrailer - 1);
    if (::ftruncate(fd, off_t(bytes)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
      const int err = errno;
      ::close(fd);
      cannot(path, source, "append to", err);
    }
  } else if (!write_all(fd, kHeader, sizeof kHeader - 1)) {
    const int err = errno;
    ::close(fd);
    cannot(path, source, "write", err);
  } else {
    bytes = sizeof kHeader - 1;
  }
  std::shared_ptr<TraceFile> f(new TraceFile(key, fd, append ? closed->second.next_process_id : 1));
  f->state_->bytes = bytes;
  r.open[key] = f;
  if (closed != r.closed.end()) r.closed.erase(closed);
  return f;
}

TraceFile::~TraceFile() {
  State& s = *state_;
  if (!s.failed && write_all(s.fd, kTrailer, sizeof kTrailer - 1)) s.bytes += sizeof kTrailer - 1;
  ::close(s.fd);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto it = r.open.find(path_); it != r.open.end() && it->second.expired()) r.open.erase(it);
  if (!s.failed) r.closed[path_] = {s.bytes, s.next_process_id};
}

uint32_t TraceFile::next_process_id() {
  std::lock_guard lock(state_->mutex);
  return state_->next_process_id++;
}

void TraceFile::write(const char* data, size_t size_bytes) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (s.failed || size_bytes == 0) return;
  if (!write_all(s.fd, data, size_bytes)) {
    s.failed = true;
    std::fprintf(stderr, "tessel: warning: writing the trace file '%s' failed (%s): the trace stops here\n",
                 path_.c_str(), std::strerror(errno));
    return;
  }
  s.bytes += size_bytes;
}

uint64_t TraceFile::bytes_written() const {
  std::lock_guard lock(state_->mutex);
  return state_->bytes;
}

} // namespace tessel::base
