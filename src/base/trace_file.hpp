// A trace file: Chrome/Perfetto trace-event JSON, in the JSON Array Format,
// written by every device of the process that names the same path.
//
// Layout on disk:
//
//   [                              <- written when the file is created
//   {...event...},                 <- each event ends with ",\n"
//   {...event...},
//   {"name":"tessel_trace_end",...}  <- the trailer, written when the last
//   ]                                   writer of the file lets go
//
// Every chunk handed to write() is whole events, so a file cut anywhere
// between two chunks (a process that dies mid-run) is still a trace Perfetto
// loads: the format's closing bracket is optional. After close it is also
// strict JSON (no trailing comma: the trailer is an event without one).
//
// Sharing: open() of a path this process has open already returns the same
// file; a path this process wrote and closed is reopened for appending (its
// trailer removed), so the devices a process opens one after another land in
// one trace, each as its own process id. A path no writer of this process has
// touched is truncated.
//
// Thread-safety: write() and next_process_id() may be called from any thread;
// chunks are written whole, in the order their write() calls took the lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tessel::base {

class TraceFile {
public:
  // Opens (or joins) the trace at `path`. Throws ValidationError naming
  // `source` (where the path came from: "TESSEL_TRACE", ...), the path and
  // the system's reason when it cannot be created or written.
  static std::shared_ptr<TraceFile> open(const std::string& path, const char* source);
  ~TraceFile(); // writes the trailer and closes
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  const std::string& path() const { return path_; } // absolute
  // A process id for one more writer (a device) of this file: 1, 2, ...
  uint32_t next_process_id();
  // Appends bytes (whole events). A failing disk is reported once on stderr
  // and later chunks are dropped: a trace must not stop the run it records.
  void write(const char* data, size_t size_bytes);
  uint64_t bytes_written() const;

private:
  TraceFile(std::string path, int fd, uint32_t first_process_id);
  struct State;
  std::string path_;
  std::unique_ptr<State> state_;
};

} // namespace tessel::base
