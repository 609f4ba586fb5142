// An X280 thread: C or C++ code that runs on one of the X280 work clusters
// (1..3) beside the dispatcher on cluster 0, and may submit commands to the
// grid as a source of the dispatcher's one sequence numbering.
//
//   #include "tessel/x280.h"
//   static uint32_t run() {
//     x280::Region out = x280::region("out");
//     uint32_t ticket = x280::submit(/*handler*/ 1, /*first*/ 0, /*count*/ 4, {x280::word(0)}, KM_FLAG_RESULT);
//     uint32_t result = 0;
//     if (!x280::wait(ticket, &result)) return 0; // asked to stop
//     return result;
//   }
//   TESSEL_X280_THREAD(run)
//
// The runtime compiles the thread's sources into one shared object and runs
// it in a process of its own (tessel-x280-runner): a crash, exit(), abort()
// or a hang is the thread's result, never the host's. The runner fills a
// struct tessel_x280_api and calls the entry TESSEL_X280_THREAD defines; the
// value the function returns is the thread's result word.
//
// word, region, submit, wait, wait_all, log and fail are called from the
// thread's own OS thread, the one that runs its function; such a call from
// another ends the thread with status "failed". stop_requested and ticks may
// be called from any. The api pointer is set when the entry is called, so
// static initialisers must not use it.
//
// In C, call through the pointer: tessel_x280->submit(...), and so on.
//
// This header is C and C++; the C part is free of the standard library.
#ifndef TESSEL_X280_H
#define TESSEL_X280_H

#include <stdint.h>

#include "tessel/persistent_abi.h"

#define TESSEL_X280_API_VERSION 1u
// Commands of one thread in flight (submitted and not completed) at most: as
// an engine's stream (KM_ENGINE_INFLIGHT); submit waits for room.
#define KM_X280_INFLIGHT 16u
// The result word of a command the kernel rejected (a group outside the grid,
// queued with exclusive, a command after EXIT): it completes at once, sent to
// no core.
#define KM_X280_REJECTED 0xFFFFFFFFu
// Clusters a thread may run on; cluster 0 runs the dispatcher.
#define KM_X280_CLUSTER_FIRST 1u
#define KM_X280_CLUSTER_LAST 3u
// Bytes of one log line kept (longer lines are cut).
#define KM_X280_LOG_LINE_BYTES 248u

#ifdef __cplusplus
extern "C" {
#endif

struct tessel_x280_api {
  uint32_t version; // TESSEL_X280_API_VERSION
  uint32_t cluster; // 1..3
  const uint32_t* words;
  uint32_t word_count;
  // words[index]; an index past word_count ends the thread ("failed").
  uint32_t (*word)(uint32_t index);
  // The region's bytes (shared with the host, which reads them after the
  // thread ends), and its size; NULL and 0 for a region the thread did not
  // declare.
  void* (*region)(const char* name, uint64_t* size_bytes);
  // Sends a command to the grid and returns its ticket (1, 2, ...), waiting
  // while KM_X280_INFLIGHT of the thread's commands are in flight; 0 when the
  // host asked the thread to stop while it waited (nothing was sent).
  // Arguments beyond KM_ARGS_MAX, flags other than KM_FLAG_EXCLUSIVE,
  // KM_FLAG_RESULT and KM_FLAG_QUEUE, and a handler above KM_HANDLER_LAST end
  // the thread ("failed").
  uint32_t (*submit)(uint32_t handler, uint32_t first, uint32_t count, const uint32_t* args, uint32_t arg_count,
                     uint32_t flags);
  // Waits for the command's completion: 1 with its result word (the group
  // leader's, for KM_FLAG_RESULT) in *result (when not NULL); 0 when the host
  // asked the thread to stop first. A ticket's result is taken once; waiting
  // for a ticket never submitted, taken already or older than the last 256
  // submitted ends the thread ("failed").
  int (*wait)(uint32_t ticket, uint32_t* result);
  // Waits until none of the thread's commands is in flight: 1, or 0 when
  // the host asked the thread to stop first. Results stay to be taken.
  int (*wait_all)(void);
  // 1 once the host asked the thread to stop (its deadline, a stop or a
  // timeout of the host's wait): the thread should return soon.
  int (*stop_requested)(void);
  // The cluster's clock: KM_TIMER_MHZ (50 MHz) ticks since the thread started.
  uint64_t (*ticks)(void);
  // A line (or lines, split at '\n') for the host's result; each is cut to
  // KM_X280_LOG_LINE_BYTES. Lines the host has not collected yet are held in
  // a ring of 64; when it is full, new lines are dropped and counted.
  void (*log)(const char* text);
  // Ends the thread with status "failed" and `text` as its error.
  void (*fail)(const char* text);
};

// Set by the entry TESSEL_X280_THREAD defines before the thread's function runs.
extern const struct tessel_x280_api* tessel_x280;
extern const uint32_t tessel_x280_api_version;
uint32_t tessel_x280_entry(const struct tessel_x280_api* api);

#ifdef __cplusplus
} // extern "C"

#include <initializer_list>

namespace x280 {

inline constexpr uint32_t kInflight = KM_X280_INFLIGHT;

// A region declared for the thread: its bytes in the shared block.
struct Region {
  uint8_t* data;       // nullptr when the region was not declared
  uint64_t size_bytes; // 0 when not declared
};

inline uint32_t cluster() { return tessel_x280->cluster; }
inline const uint32_t* words() { return tessel_x280->words; }
inline uint32_t word_count() { return tessel_x280->word_count; }
inline uint32_t word(uint32_t index) { return tessel_x280->word(index); }

inline Region region(const char* name) {
  uint64_t size_bytes = 0;
  void* data = tessel_x280->region(name, &size_bytes);
  return {static_cast<uint8_t*>(data), size_bytes};
}

inline uint32_t submit(uint32_t handler, uint32_t first, uint32_t count, const uint32_t* args, uint32_t arg_count,
                       uint32_t flags = 0) {
  return tessel_x280->submit(handler, first, count, args, arg_count, flags);
}
inline uint32_t submit(uint32_t handler, uint32_t first, uint32_t count, std::initializer_list<uint32_t> args,
                       uint32_t flags = 0) {
  return tessel_x280->submit(handler, first, count, args.begin(), static_cast<uint32_t>(args.size()), flags);
}

inline bool wait(uint32_t ticket, uint32_t* result = nullptr) { return tessel_x280->wait(ticket, result) != 0; }
inline bool wait_all() { return tessel_x280->wait_all() != 0; }
inline bool stop_requested() { return tessel_x280->stop_requested() != 0; }
inline uint64_t ticks() { return tessel_x280->ticks(); }
inline void log(const char* text) { tessel_x280->log(text); }
[[noreturn]] inline void fail(const char* text) {
  tessel_x280->fail(text);
  __builtin_unreachable();
}

} // namespace x280

// Defines the thread's entry: `fn` is a function `uint32_t fn()` (in C,
// `uint32_t fn(void)`) whose return value is the thread's result word. Use
// it once, in one of the thread's sources.
#define TESSEL_X280_THREAD(fn)                                                                                         \
  extern "C" {                                                                                                         \
  const struct tessel_x280_api* tessel_x280 = 0;                                                                       \
  const uint32_t tessel_x280_api_version = TESSEL_X280_API_VERSION;                                                    \
  uint32_t tessel_x280_entry(const struct tessel_x280_api* api) {                                                      \
    tessel_x280 = api;                                                                                                 \
    return fn();                                                                                                       \
  }                                                                                                                    \
  }
#else
#define TESSEL_X280_THREAD(fn)                                                                                         \
  const struct tessel_x280_api* tessel_x280 = 0;                                                                       \
  const uint32_t tessel_x280_api_version = TESSEL_X280_API_VERSION;                                                    \
  uint32_t tessel_x280_entry(const struct tessel_x280_api* api) {                                                      \
    tessel_x280 = api;                                                                                                 \
    return fn();                                                                                                       \
  }
#endif

#endif
