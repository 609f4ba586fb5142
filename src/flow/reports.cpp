// What a stuck or unfinished design says about itself: the sequence's op
// and line, each worker's wait (its core_fn line, the fifo and endpoint),
// each mover channel's wait, and what is left at the end of a call.
#include <cstring>

#include "flow/sequencer.hpp"
#include "sim/chip.hpp"
#include "tessel/iron_abi.h"

namespace tessel::flow {

namespace {

std::string core_text(CoreCoord c) { return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")"; }

uint32_t word_at(sim::Chip& chip, uint32_t chip_index, uint32_t addr) {
  uint32_t v = 0;
  std::memcpy(&v, chip.core(chip_index).l1 + addr, 4);
  return v;
}

} // namespace

std::string Sequencer::op_text(const Op& op) const {
  switch (op.kind) {
  case OpKind::Push: return spec_.channels[op.b].name + " task";
  case OpKind::Await: return "await of task slot " + std::to_string(op.a);
  case OpKind::Free: return "free of task slot " + std::to_string(op.a);
  case OpKind::Copy: return "task carried by a loop";
  case OpKind::WriteRtp: return "RTP write to worker '" + spec_.workers[op.a].name + "'";
  case OpKind::SetBarrier: return "barrier set for worker '" + spec_.workers[op.a].name + "'";
  case OpKind::LoopBegin: return "range_ loop";
  case OpKind::LoopEnd: return "end of a range_ loop";
  }
  return "op";
}

std::string Sequencer::deadlock_report() const {
  std::string r = "deadlock in design '" + spec_.name + "', call " + std::to_string(served_ + 1) +
                  ": nothing on the grid can move and the sequence waits";
  if (pc_ < spec_.sequence.ops.size()) {
    const Op& op = spec_.sequence.ops[pc_];
    r += " at " + at_line(op.line) + " (";
    if (op.kind == OpKind::Await && slots_[op.a] >= 0) {
      const TaskInstance& t = tasks_[size_t(slots_[op.a])];
      r += "for the " + spec_.channels[t.channel].name + " task of " + at_line(t.line) + " to finish";
    } else if (op.kind == OpKind::Push) {
      r += "for room in the task queue of " + spec_.channels[op.b].name;
    } else {
      r += op_text(op);
    }
    r += ")";
  }
  r += ":";
  // Workers: their blocked waits, by lock.
  for (sim::Fiber* f : chip_.active_fibers()) {
    if (f->risc != TESSEL_RISC_NCRISC) continue;
    if (f->state == sim::FiberState::Done || f->state == sim::FiberState::Idle) {
      for (size_t w = 0; w < spec_.workers.size(); ++w)
        if (layout_.cores[layout_.worker_core[w]].chip_index == f->core->index)
          r += "\n  worker '" + spec_.workers[w].name + "' on " + core_text(spec_.workers[w].core) +
               " has returned: its core_fn ran once (Worker(while_true=False)) and serves no later object";
      continue;
    }
    if (f->state != sim::FiberState::Blocked) continue;
    int32_t worker = -1;
    for (size_t w = 0; w < spec_.workers.size(); ++w)
      if (layout_.cores[layout_.worker_core[w]].chip_index == f->core->index) worker = int32_t(w);
    if (worker < 0) continue;
    const WorkerSpec& ws = spec_.workers[size_t(worker)];
    std::string what = chip_.describe_wait(f);
    const uint32_t addr = uint32_t(reinterpret_cast<const volatile uint8_t*>(f->wait.sem) - f->core->l1);
    for (const LockInfo& l : layout_.locks)
      if (layout_.cores[l.core].chip_index == f->core->index && l.addr == addr) {
        const PoolSpec& p = spec_.pools[l.pool];
        what = std::string("waits for ") + std::to_string(f->wait.value) + (l.free_lock ? " free" : " full") +
               " object(s) of " + p.name + " (it has " + std::to_string(*f->wait.sem) + ")" +
               (f->wait.file ? " at " + std::string(f->wait.file) + ":" + std::to_string(f->wait.line) : "");
      }
    r += "\n  worker '" + ws.name + "' on " + core_text(ws.core) + " " + what;
  }
  // Movers: each channel's wait.
  for (size_t c = 0; c < spec_.channels.size(); ++c) {
    const iron_channel& ch = channel(uint32_t(c));
    const ChannelSpec& cs = spec_.channels[c];
    std::string what;
    switch (ch.blocked) {
    case IRON_BLOCKED_SOURCE: what = "waits for an object from " + spec_.pools[size_t(cs.source.pool)].name; break;
    case IRON_BLOCKED_ROOM:
      what = "waits for room in " + spec_.pools[size_t(cs.dests[ch.blocked_dest].pool)].name;
      break;
    case IRON_BLOCKED_TASK:
      what = ch.partial_bytes ? "holds " + std::to_string(ch.partial_bytes) + " of " + std::to_string(ch.move_bytes) +
                                    " bytes of an object and waits for a task to finish it"
                              : "waits for a task";
      break;
    default: what = "is idle"; break;
    }
    r += "\n  mover on " + core_text(layout_.cores[layout_.channel_core[c]].core) + ": " + cs.name + " " + what;
  }
  return r;
}

std::string Sequencer::leftovers() const {
  std::string r;
  for (size_t c = 0; c < spec_.channels.size(); ++c) {
    const iron_channel& ch = channel(uint32_t(c));
    const ChannelSpec& cs = spec_.channels[c];
    if (ch.pushed != ch.done)
      r += "\n  " + cs.name + ": " + std::to_string(ch.pushed - ch.done) + " task(s) still queued (" +
           std::to_string(ch.task_elements) + " elements of the first moved)";
    if (ch.partial_bytes)
      r += "\n  " + cs.name + ": " + std::to_string(ch.partial_bytes) + " bytes of an object moved, the rest missing";
    if (ch.dest_partial)
      r += "\n  " + cs.name + ": " + std::to_string(ch.dest_partial) + " of " + std::to_string(ch.dest_bytes) +
           " bytes of a re-chunked object written, the rest missing";
  }
  // A worker's producer handle may hold empty objects across calls (its
  // loop acquired the next output before it waits for input): that is its
  // place in the loop, not data. Anything filled and not taken, or taken by
  // a consumer and not released, is data left behind.
  std::vector<uint32_t> producer_held(spec_.pools.size(), 0);
  std::string held;
  for (size_t w = 0; w < spec_.workers.size(); ++w) {
    const CoreImage& img = layout_.cores[layout_.worker_core[w]];
    for (size_t h = 0; h < spec_.workers[w].handles.size(); ++h) {
      iron_handle hd;
      std::memcpy(&hd, chip_.core(img.chip_index).l1 + img.handles_addr + h * sizeof(iron_handle), sizeof hd);
      if (hd.producer)
        producer_held[spec_.workers[w].handles[h].pool] += hd.held;
      else if (hd.held)
        held += "\n  worker '" + spec_.workers[w].name + "' holds " + std::to_string(hd.held) + " object(s) of " +
                spec_.workers[w].handles[h].name + " (acquired, not released)";
    }
  }
  for (const LockInfo& l : layout_.locks) {
    const uint32_t v = word_at(chip_, layout_.cores[l.core].chip_index, l.addr);
    const PoolSpec& p = spec_.pools[l.pool];
    if (!l.free_lock) {
      if (v) r += "\n  " + p.name + ": " + std::to_string(v) + " object(s) filled and never taken";
    } else if (v + producer_held[l.pool] < l.initial) {
      r += "\n  " + p.name + ": " + std::to_string(l.initial - v - producer_held[l.pool]) + " of " +
           std::to_string(l.initial) + " object(s) still held or in flight";
    }
  }
  r += held;
  for (const TaskInstance& t : tasks_)
    if (!t.freed)
      r += "\n  the " + spec_.channels[t.channel].name + " task of " + at_line(t.line) +
           " was never freed (its descriptor is still held)";
  return r;
}

} // namespace tessel::flow
