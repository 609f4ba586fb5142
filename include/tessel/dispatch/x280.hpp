// X280 work-cluster threads (spec: program.thread, program.region,
// Run.thread_result, run.thread.read; docs/x280-threads.md): what a program
// declares and what a thread's run reports. The thread's own API is
// kernel/include/tessel/x280.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::dispatch {

// What the program declares (program.thread). The sources are the build's
// input (with the headers they read, the cache key); the rest is laid into
// the thread's shared block or governs its run, and costs no compile.
struct X280ThreadSpec {
  uint32_t cluster = 1;                // 1..3
  std::vector<std::string> sources;    // .c and .cpp files (.cc, .cxx too)
  std::vector<std::string> regions;    // names of program regions the thread uses
  std::vector<uint32_t> words;         // x280::words()
  double deadline_s = 0;               // from start(); 0: none
  std::string prefetch = "documented"; // "documented" or "off"; the host model has no prefetcher to set
};

// A program region (program.region): its initial bytes.
struct X280Region {
  std::string name;
  std::vector<uint8_t> value;
};

struct X280ThreadResult {
  uint32_t cluster = 0;
  // "done": the thread's function returned `value`.
  // "failed": it crashed (a signal), called exit(), x280::fail, misused the
  //   API, or did not load; `error` says which and where.
  // "deadline": its deadline passed first; "stopped": the host stopped it
  //   first (request_stop, or wait's timeout). For both, `value` is what the
  //   function returned when `error` is empty; when the thread did not return
  //   within the grace after the stop request, it was killed and `error`
  //   says so.
  std::string status;
  uint32_t value = 0;
  std::string error;
  double seconds = 0;    // from start() to its end
  uint64_t commands = 0; // commands the card took from it
  std::vector<std::string> log;
  uint64_t log_dropped = 0; // x280::log lines lost because the ring or the host's store was full
  std::string output;       // what it wrote to stdout and stderr (the first kOutputBytes)
};

} // namespace tessel::dispatch
