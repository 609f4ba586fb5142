// The dispatcher: what the card's X280 cluster 0 runs. It takes commands
// from the host's command ring, numbers them, places them in the mailboxes
// of their group's cores, counts the cores' reports and posts one event per
// command into the host's event ring.
//
// It is the chip's card agent (sim/card_agent.hpp): it runs on the card's
// thread, inside the chip's run, between fibers (poll, idle) and inside the
// persistent kernels' card calls (take, done). Nothing here is shared with
// the host except CardMemory.
//
// Invariants
//  - A command is in flight from its submit to its completion and holds one
//    of the program's `depth` completion slots; at most depth run at once.
//  - Event room: a command that ends in an event is taken only while
//    unread events + busy slots + 1 <= event_depth (unread: posted minus the
//    host's read count as last written).
//  - Each core serves its commands in the order they were submitted (a FIFO
//    of slots per core); the reader of an idle core is parked in take().
//  - An exclusive command is held at the head of the ring while a busy
//    command shares a core with it or a queued command waits; every host
//    command behind it waits with it.
//  - A queued command waits in the job queue (64 entries) until some group
//    of its size, lowest first core first, overlaps no busy core.
//  - EXIT is held until nothing is in flight and the job queue is empty; it
//    then goes to every core (mailbox slot `depth`), and later commands are
//    rejected (KMD_REJECT_EXITED).
//  - Engines (dispatcher_engines.cpp): RUN starts a stream or graph from the
//    upload region, CANCEL stops one; both are answered only when rejected.
//    An engine's commands take slots and sequence numbers like the host's;
//    their completions go to the engine, never to the event ring. An
//    engine's own events wait for room beside every host command in flight
//    (unread + host slots + 1 <= event_depth). EXIT also waits until no
//    engine runs.
//  - X280 threads (dispatcher_threads.cpp) are a third source: their
//    commands take slots and sequence numbers like the others', and their
//    completions go back to the thread. A command a thread gets wrong (a
//    handler, flags or a group the kernel rejects) is completed at once
//    with KM_X280_REJECTED as its result word.
#pragma once

#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dispatch/card_clock.hpp"
#include "dispatch/card_memory.hpp"
#include "dispatch/engine.hpp"
#include "dispatch/x280_thread.hpp"
#include "sim/card_agent.hpp"
#include "sim/chip.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/result.hpp"

namespace tessel::dispatch {

struct DispatcherConfig {
  uint32_t depth = 4;
  uint32_t host_depth = 64;
  uint32_t event_depth = 128;
  uint32_t trace = 0; // sequence numbers traced per core
  double deadline_s = 1.0;
  double wait_s = 2.0; // a core's wait for another core (wait_word)
  double idle_s = 120.0;
  double kernel_idle_s = 0.0;
  double grid_stop_s = 2.0; // an abort waits this long for the cores to leave their loops
};

class Dispatcher final : public sim::CardAgent {
public:
  Dispatcher(sim::Chip& chip, CardMemory& memory, const DispatcherConfig& config);

  bool idle(sim::Chip& chip) override;
  void poll(sim::Chip& chip) override;
  const void* kernel_table() const override;
  // Ctrl-C ends the host's waits (which raise), not the card's run: the
  // session's exit paths stop it, and a caught KeyboardInterrupt finds the
  // run as it was.
  bool keeps_running_on_interrupt() const override { return true; }

  // The card's clock: 50 MHz ticks since the dispatcher started.
  uint64_t now_ticks() const { return clock_.ticks(); }

  // A core's state word `index` while the run goes (for reports). The card's
  // calls write the words (under the calls lock, on the thread of the RISC
  // that calls) while the host may look: both sides access them atomically
  // (relaxed; a report needs no order between words).
  uint32_t live_word(uint32_t core, uint32_t index) const {
    return word(&words_[size_t(core) * KM_STATE_WORDS], index);
  }
  static uint32_t word(const uint32_t* words, uint32_t index) {
    return __atomic_load_n(&words[index], __ATOMIC_RELAXED);
  }
  static void set_word(uint32_t* words, uint32_t index, uint32_t value) {
    __atomic_store_n(&words[index], value, __ATOMIC_RELAXED);
  }
  static void bump_word(uint32_t* words, uint32_t index) { set_word(words, index, word(words, index) + 1); }
  // On the host's thread, when it writes the stop flag: from now on no
  // command's deadline stops a RISC (the abort has its own wait, and a RISC
  // that never returns is a GridTimeout, as on the card).
  void host_aborting();
  // On the card thread, when its run has ended (its watchdog slot ends with the thread).
  void forget_card_thread();
  // After the run (card thread finished): the result and, for a deadline,
  // where the cores of the group that did not report were.
  ResultBlock result() const;
  const std::vector<StuckCore>& stuck_cores() const { return stuck_; }
  void finish(uint32_t state, uint32_t error, std::string message);
  bool exited() const { return exited_; }
  bool aborting() const { return aborting_; }

  // Card calls of the persistent kernels (tessel_card_api).
  const volatile uint32_t* take(tessel_kernel_ctx* k, const char* file, uint32_t line);
  void done(tessel_kernel_ctx* k, uint32_t slot, const char* file, uint32_t line);
  void set_result(tessel_kernel_ctx* k, uint32_t slot, uint32_t value);
  void announce(tessel_kernel_ctx* k, const uint32_t* numbers, uint32_t count);
  uint32_t wait_word(tessel_kernel_ctx* k, volatile uint32_t* word, uint32_t value, const char* file, uint32_t line);

private:
  struct Command {
    uint32_t tag = 0;
    uint32_t handler = 0, flags = 0;
    uint32_t first = 0, count = 0;
    uint32_t arg_count = 0;
    uint32_t args[KM_ARGS_MAX] = {};
    uint64_t taken_tick = 0; // from the ring (the deadline's start for host commands)
    uint32_t engine = 0;     // the engine slot + 1 that sent it (0: the host or a thread)
    uint32_t thread = 0;     // the X280 thread's index + 1 that sent it (0: the host or an engine)
    uint32_t token = 0;      // the engine's, or the thread's ticket
  };
  struct Slot {
    Command command;
    uint64_t sequence = 0;
    uint64_t submit_tick = 0, deadline_tick = 0;
    // Device clocks (the RISCs' clocks: estimated cycles while timed). The
    // command may start at start_clock: when the command before it in this
    // slot ended (end_clock, its cores' latest report), the slot being what
    // it waited for. Deliveries carry it, not the clock of whichever RISC the
    // card's call happens to run beside, which under parallel is a race.
    uint64_t start_clock = 0, end_clock = 0;
    uint32_t reported = 0;
    uint32_t result = 0;
    std::bitset<256> reported_cores;
  };
  struct CoreState {
    sim::Fiber* reader = nullptr; // parked in take()
    uint8_t fifo[KM_MAILBOX_SLOTS] = {};
    uint8_t head = 0, count = 0;
    uint8_t riscs_done[KM_MAILBOX_SLOTS] = {};
    uint16_t busy = 0; // in-flight commands that include this core
    bool ready = false;
    uint8_t riscs_expected[KM_MAILBOX_SLOTS] = {}; // reports each slot's command needs from this core
    // The handler numbers each RISC's kernel announced; all set until it has.
    std::bitset<256> handles[TESSEL_RISC_COUNT];
  };
  uint32_t riscs_for(const CoreState& cs, uint32_t handler) const; // bit per KM_ROLE_*
  bool serve_idle(uint32_t core, uint32_t slot, uint64_t now);     // a command no RISC handles, on an idle core

  bool pump();                      // ring and job queue -> cores; true if anything changed
  bool take_line(const Command& c); // false: hold it at the head of the ring
  bool event_room();
  bool overlaps_busy(uint32_t first, uint32_t count) const;
  int free_slot() const;
  void submit(const Command& c, uint32_t first);
  void complete(uint32_t slot);
  void post(uint32_t kind, uint32_t tag, uint32_t value, uint64_t sequence, uint32_t ticks);
  void reject(const Command& c, uint32_t reason);
  void send_exit();
  void deliver(uint32_t core, uint32_t slot);
  bool check_timers(sim::Chip& chip, uint64_t now); // true: it made a fiber ready
  void time_out(sim::Chip& chip, uint32_t slot);
  void begin_abort(sim::Chip& chip);
  void recompute_deadline();
  uint64_t earliest_busy_deadline() const; // ~0: none
  // The earliest deadline of a command in flight, as the card thread's
  // watchdog slot's stop time: a RISC that runs on past it without reaching
  // a kernel API call is stopped, so the card can time its command out
  // (sim/watchdog.hpp, W4). Called on every change of the busy slots.
  void publish_deadline();
  void watch_card_thread(); // on the card thread: its slot is the one published to
  uint32_t* state_words(uint32_t core) const;
  bool words_stop(uint32_t core) const;
  uint32_t* mailbox(uint32_t core, uint32_t slot) const;
  uint32_t* trace_entry(uint32_t core, uint64_t sequence) const;
  std::string where_is(const sim::Fiber* f) const;

  // Held by every card call and by poll() and idle(): under the parallel
  // policy the persistent kernels call in from several host threads. A call
  // that parks its fiber keeps it until the fiber has switched out
  // (Chip::block_releasing).
  class Calls {
  public:
    explicit Calls(std::atomic<bool>& held) : held_(held) { lock(); }
    ~Calls() {
      if (locked_) unlock();
    }
    Calls(const Calls&) = delete;
    Calls& operator=(const Calls&) = delete;
    void lock() {
      while (held_.exchange(true, std::memory_order_acquire))
        while (held_.load(std::memory_order_relaxed))
          __builtin_ia32_pause();
      locked_ = true;
    }
    void unlock() {
      held_.store(false, std::memory_order_release);
      locked_ = false;
    }
    // The fiber parks; the lock is released once it has switched out.
    void released_by_switch() { locked_ = false; }

  private:
    std::atomic<bool>& held_;
    bool locked_ = false;
  };
  std::atomic<bool> calls_held_{false};

  sim::Chip& chip_;
  CardMemory& mem_;
  DispatcherConfig config_;
  uint32_t cores_;
  CardClock clock_;
  std::vector<CoreState> core_state_;
  std::vector<Slot> slots_;
  // The cores' state words (KM_STATE_WORDS each) and the trace ([sequence][core]
  // entries), kept here while the run goes and copied into each core's L1
  // (its control block, CB 31) when it ends: only the card writes them, and
  // one command over 120 cores then touches a few dense cache lines instead
  // of two pages of every core's L1.
  std::vector<uint32_t> words_;
  std::vector<uint32_t> trace_;
  void flush_to_l1();
  uint32_t busy_mask_ = 0;      // bit per slot holding a command in flight
  uint64_t last_end_clock_ = 0; // the latest end_clock of any command: EXIT starts there
  uint64_t start_clock(uint32_t slot) const {
    return slot < config_.depth ? slots_[slot].start_clock : last_end_clock_;
  }
  bool busy(uint32_t slot) const { return busy_mask_ >> slot & 1u; }
  uint32_t busy_slots() const { return uint32_t(__builtin_popcount(busy_mask_)); }
  // Job queue of queued commands waiting for room (oldest first).
  std::vector<Command> jobs_;
  uint32_t ready_cores_ = 0;
  uint32_t ring_taken_ = 0; // lines consumed (published to mem_.taken)
  uint64_t next_sequence_ = 0;
  uint64_t posted_ = 0, rejected_ = 0;
  uint32_t read_count_ = 0; // the host's read count as last read
  uint64_t next_deadline_ = ~0ull;
  std::atomic<sim::WatchSlot*> card_watch_{nullptr}; // the card thread's, once it has polled
  std::atomic<bool> host_aborting_{false};           // no deadline stops a RISC any more
  std::mutex watch_mutex_;                           // the host's look at card_watch_ against the card thread's end
  uint64_t last_activity_tick_ = 0;
  uint64_t deadline_ticks_, idle_ticks_, kernel_idle_ticks_, grid_stop_ticks_;
  bool exit_pending_ = false, exited_ = false;
  bool aborting_ = false;
  bool in_pump_ = false;
  bool wake_host_ = false;
  void wake_host();
  uint64_t abort_tick_ = 0;
  // The result block.
  uint32_t state_ = KM_STATE_STARTING, error_ = KM_ERROR_NONE;
  std::string message_;
  uint32_t error_slot_ = 0;
  uint64_t error_sequence_ = 0;
  std::vector<StuckCore> stuck_;
  // Kernels parked in wait_word, with the tick their wait runs out.
  struct TimedWait {
    sim::Fiber* fiber;
    uint64_t deadline;
    bool timed_out;
  };
  std::vector<TimedWait> waits_;
  uint64_t next_wait_deadline_ = ~0ull;
  uint64_t wait_ticks_;
  bool expire_waits(uint64_t now);

  // Engines: four stream slots, then two graph slots.
  struct EngineSlot {
    std::unique_ptr<Engine> engine; // null: free
    bool running = false;           // kept graphs stay loaded between runs
  };
  class Sink;
  friend class Sink;
  std::array<EngineSlot, KM_ENGINE_STREAMS_MAX + KM_ENGINE_GRAPHS_MAX> engines_;
  uint32_t engines_running_ = 0;
  uint32_t first_engine_ = 0; // step_engines' round robin
  bool any_engine_running() const { return engines_running_ != 0; }
  void run_engine(const Command& c);
  void cancel_engine(const Command& c);
  bool step_engines();
  bool engine_submit(uint32_t slot, const EngineCommand& c);
  // An engine's or a thread's command: to the job queue (queued), or submitted
  // when a slot is free and an exclusive one overlaps nothing; false: not now.
  bool place(const Command& c);
  bool engine_post(uint32_t slot, uint32_t kind, uint32_t auxiliary, uint32_t value);
  bool engine_event_room();
  void engine_completed(const Slot& s);
  int find_engine(uint32_t req) const;

  // X280 threads (dispatcher_threads.cpp): a third source of commands.
public:
  // Set before the card thread starts; the threads outlive it.
  void set_threads(std::vector<X280Thread*> threads);

private:
  struct ThreadSlot {
    X280Thread* thread = nullptr;
    bool has_pending = false; // a command taken, waiting for a slot
    X280Command pending{};
    bool finished = false;
  };
  std::vector<ThreadSlot> threads_;
  uint32_t threads_running_ = 0;
  bool serve_threads();
  void thread_completed(const Slot& s);
  bool check_threads(); // true: one ended
};

} // namespace tessel::dispatch
