// The dispatcher's X280 threads (x280_thread.hpp): their commands, a third
// source beside the host's ring and the engines, and their completions.
#include <algorithm>

#include "dispatch/dispatcher.hpp"
#include "tessel/x280.h"

namespace tessel::dispatch {

void Dispatcher::set_threads(std::vector<X280Thread*> threads) {
  threads_.clear();
  for (X280Thread* t : threads)
    threads_.push_back(ThreadSlot{t});
  threads_running_ = uint32_t(threads_.size());
}

// Takes what each thread submitted while there is a slot for it. A command
// the kernel would reject is answered at once with KM_X280_REJECTED.
bool Dispatcher::serve_threads() {
  bool moved = false;
  for (uint32_t i = 0; i < threads_.size(); ++i) {
    ThreadSlot& t = threads_[i];
    for (;;) {
      if (!t.has_pending) {
        if (!t.thread->take(t.pending)) break;
        t.has_pending = true;
        moved = true;
      }
      const X280Command& x = t.pending;
      const bool queued = x.flags & KM_FLAG_QUEUE;
      const bool group_ok = queued ? (x.count >= 1 && x.count <= cores_)
                                   : (x.count >= 1 && x.first < cores_ && x.count <= cores_ - x.first);
      if (exited_ || exit_pending_ || !group_ok || (queued && (x.flags & KM_FLAG_EXCLUSIVE))) {
        ++rejected_;
        t.thread->complete(x.ticket, KM_X280_REJECTED);
        t.has_pending = false;
        continue;
      }
      Command c;
      c.handler = x.handler;
      c.flags = x.flags & (KM_FLAG_EXCLUSIVE | KM_FLAG_RESULT | KM_FLAG_QUEUE);
      c.first = queued ? 0 : x.first;
      c.count = x.count;
      c.arg_count = std::min(x.arg_count, KM_ARGS_MAX);
      std::copy_n(x.args, KM_ARGS_MAX, c.args);
      c.thread = i + 1;
      c.token = x.ticket;
      c.taken_tick = now_ticks();
      if (!place(c)) break; // held until there is room
      t.has_pending = false;
    }
  }
  return moved;
}

void Dispatcher::thread_completed(const Slot& s) {
  threads_[s.command.thread - 1].thread->complete(s.command.token, s.result);
}

bool Dispatcher::check_threads() {
  bool ended = false;
  for (ThreadSlot& t : threads_)
    if (!t.finished && t.thread->finished()) {
      t.finished = true;
      --threads_running_;
      ended = true;
    }
  return ended;
}

} // namespace tessel::dispatch
