// What a loaded run holds on the host side (Run::Impl): the card's thread,
// the memory shared with it, the dispatcher it runs, the host's queue of
// commands not stored yet and its table of handles. Internal to dispatch.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dispatch/card_memory.hpp"
#include "dispatch/dispatcher.hpp"
#include "dispatch/x280_thread.hpp"
#include "sim/progress.hpp"
#include "tessel/dispatch/run.hpp"
#include "tessel/dispatch/session.hpp"
#include "tessel/error.hpp"
#include "tessel/interrupt.hpp"
#include "tessel/program.hpp"

namespace tessel::dispatch {

// A queue that pops at the front by moving an index: one vector, grown by
// doubling and reused, so pushing and popping a command allocates nothing in
// the steady state (a std::deque allocates a block every few entries, an
// aligned one for command lines). The popped entries are dropped when the
// queue empties and compacted away when they are the larger half.
template <typename T>
class FrontQueue {
public:
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  T& back() { return items_.back(); }
  T& operator[](size_t i) { return items_[head_ + i]; }
  const T& operator[](size_t i) const { return items_[head_ + i]; }
  void push_back(const T& v) { items_.push_back(v); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 4096 && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + ptrdiff_t(head_));
      head_ = 0;
    }
  }

private:
  std::vector<T> items_;
  size_t head_ = 0;
};

struct HandleState {
  // Kept: forgotten in a traced run, whose trace still needs the handle's
  // group and sequence (spec: forget); its event is released.
  enum : uint8_t { Queued, Stored, Arrived, Kept, Forgotten } state = Queued;
  bool queued = false; // KM_FLAG_QUEUE: first core known from the done event
  bool gap = false;    // the sequence field could not be read (spec: gap rules)
  bool has_sequence = false;
  uint32_t first = 0, count = 0;
  uint64_t sequence = 0;
  Event event;
};

// A command the runtime sends on its own (RUN, CANCEL, PING): its tag has
// kRuntimeTag set, outside the handles' numbers, and its answer is kept here.
constexpr uint32_t kRuntimeTag = 0x80000000u;
struct RuntimeCommand {
  uint32_t tag = 0;
  bool arrived = false;  // its event came (a rejection, or the PONG of a PING)
  bool answered = false; // a PING sent after it was answered
  uint32_t kind = 0, reason = 0;
};

struct Run::Impl {
  Session::Impl* session = nullptr;
  LoadOptions options;
  KernelSizes sizes; // the program's, against the kernel buffer
  uint32_t depth = 0;
  uint32_t cores = 0;
  uint32_t grid_x = 0;
  std::unique_ptr<Program> program; // the persistent kernels on every core
  // X280 threads (thread = "card"), started after READY; the card's
  // dispatcher uses them until its thread ends. results[i] once known.
  std::vector<std::unique_ptr<X280Thread>> threads;
  std::vector<std::optional<X280ThreadResult>> thread_results;
  std::vector<X280ThreadResult> wait_threads(double timeout_s, bool stop);
  std::unique_ptr<CardMemory> memory;
  std::unique_ptr<Dispatcher> dispatcher;
  std::thread card;
  bool card_joined = false;
  bool card_lost = false; // GridTimeout: the thread was left running

  // Host side of the rings.
  FrontQueue<CommandLine> queue; // submitted, not stored yet
  uint32_t stored = 0;           // lines published
  uint64_t stored_with_event = 0;
  uint32_t events_read = 0;    // events taken from the ring (the read count)
  uint64_t command_events = 0; // of them, the commands' (not the engines')
  uint64_t gaps = 0;           // handles whose sequence could not be read (HandleState::gap)
  // Where a drain that gave way to a signal started (Impl::drain).
  struct DrainStart {
    uint64_t events = 0, gaps = 0;
  };
  std::optional<DrainStart> resumed_drain;
  std::chrono::steady_clock::time_point last_fence{};

  // Handles: handles[i] is handle base + i.
  FrontQueue<HandleState> handles;
  uint64_t base = 1;
  uint64_t next_handle = 1;
  uint64_t last_sequence = 0;
  bool any_sequence = false;

  bool stopped = false;
  bool exit_sent = false;
  ResultBlock result;
  std::vector<uint32_t> state_words;
  std::vector<uint32_t> broadcast_words; // KM_BCAST_WORDS per core, after the stop
  std::vector<uint32_t> port_words;      // KM_PORTS x KM_PORT_WORDS per core, after the stop
  std::vector<uint32_t> trace_words;     // after the stop: per core, trace x 4 words
  std::string failure;                   // the card's error (a kernel fault, a stop), once finished

  double submit_s = 0, wait_s = 0, native_s = 0;

  // Engines (run_engines.cpp).
  std::vector<RuntimeCommand> runtime_commands; // sent, answer not taken yet
  uint32_t next_runtime_tag = kRuntimeTag | 1u;
  std::vector<std::shared_ptr<Upload>> uploads;       // not released
  std::vector<std::shared_ptr<EngineHandle>> engines; // started, not ended (or unknown)
  std::vector<uint32_t> binding_lines;                // offsets of binding lines in use
  uint32_t queue_runtime(uint32_t handler, std::initializer_list<uint32_t> args);
  RuntimeCommand* runtime(uint32_t tag);
  void engine_event(const CardEvent& e);
  std::optional<uint32_t> free_range(uint32_t bytes) const;
  // Sends a PING behind what is queued and waits for its answer; true when answered in time.
  bool ping(double timeout_s);
  void runtime_answered(uint32_t ping_tag);
  std::optional<uint32_t> run_answer(EngineHandle& h);
  void end_engine(const std::shared_ptr<EngineHandle>& h);

  HandleState* find(uint64_t handle);
  const HandleState* find(uint64_t handle) const;
  void check_open(const char* call) const;
  void store_some();
  bool read_events(); // true: it read any
  void handle_event(const CardEvent& e);
  bool card_finished() const { return memory->finished.load(std::memory_order_acquire) != 0; }
  void join_card();
  void read_back();
  void pop_forgotten();
  // Waits until `done()` or the card finished or the deadline passed (spin, then park).
  template <typename Done>
  bool wait_until(Done done, std::chrono::steady_clock::time_point deadline, bool yields_to_signals = false);
  std::string kernel_activity() const;
  [[noreturn]] void raise_failed(const std::string& context);
  // A handle whose event's sequence could not be read (wait, drain and sequence raise it).
  static DispatchError gap_error(uint64_t handle);
  std::string unknown_handle(uint64_t handle) const; // the message for a handle wait cannot take
  // Run::drain; one inside Run::stop does not give way to a host signal.
  uint64_t drain(double timeout_s, bool yields_to_signals);
  // Run::abort; grid_stop_s > 0 bounds the card's wait for the cores to leave
  // their loops (Run::stop's deadline: one deadline for all of it).
  ResultBlock abort(double grid_stop_s);
  void log_kernel_state() const;
  void raise_event_errors(uint64_t handle, const HandleState& h);
  ~Impl();
};

// A deadline `seconds` from now.
inline std::chrono::steady_clock::time_point after(double seconds) {
  using Clock = std::chrono::steady_clock;
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// The host spins this long for the card before it parks (see the card's kSpinTicks).
inline constexpr auto kHostSpin = std::chrono::microseconds(200);

template <typename Done>
bool Run::Impl::wait_until(Done done, std::chrono::steady_clock::time_point deadline, bool yields_to_signals) {
  using Clock = std::chrono::steady_clock;
  CardMemory& m = *memory;
  sim::WaitProgress progress(command_events);
  for (;;) {
    store_some();
    // Events read make room for commands that waited for it (event room):
    // they are stored now, not after a wait for an event the card cannot send.
    if (read_events() && !queue.empty()) store_some();
    if (done()) return true;
    // Ctrl-C, or (for the waits that can go on after it: wait, wait_any,
    // drain) a signal the host program handles (tessel/interrupt.hpp): the
    // wait ends so that its handler runs now; the run stays as it is.
    if (__builtin_expect(interrupt_requested() || (yields_to_signals && host_signal() != 0), 0))
      throw Interrupted("the wait for the card was interrupted by a signal");
    progress.update(command_events);
    if (card_finished()) {
      read_events();
      return done();
    }
    if (Clock::now() >= deadline) return false;
    const uint32_t posted = m.posted.load(std::memory_order_relaxed);
    const uint32_t taken = m.taken.load(std::memory_order_relaxed);
    bool woken = false;
    const auto spin_until = Clock::now() + kHostSpin;
    for (uint32_t i = 0; !woken; ++i) {
      woken = m.posted.load(std::memory_order_acquire) != posted || m.finished.load(std::memory_order_relaxed) ||
              (!queue.empty() && m.taken.load(std::memory_order_relaxed) != taken);
      __builtin_ia32_pause();
      if ((i & 63) == 63) {
        if (Clock::now() >= spin_until) break;
        // The card's thread may share this core: let it run (card_memory.hpp, "Spinning").
        if (i >= 1024) sched_yield();
      }
    }
    if (woken) continue;
    m.host_park.parked.store(1, std::memory_order_seq_cst);
    if (m.posted.load(std::memory_order_seq_cst) == posted && !m.finished.load()) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now()).count();
      park(m.host_park, uint32_t(std::clamp<int64_t>(left, 1, 10000)));
    }
    m.host_park.parked.store(0, std::memory_order_relaxed);
  }
}

} // namespace tessel::dispatch
