#include "flow/sequencer.hpp"

#include <cstddef>

#include "sim/chip.hpp"
#include "tessel/iron_abi.h"

namespace tessel::flow {

Sequencer::Sequencer(sim::Chip& chip, const DesignSpec& spec, const Layout& layout, CallLine& line)
    : chip_(chip), spec_(spec), layout_(layout), line_(line), rtp_(chip.policy()) {
  int32_t columns = 0;
  for (const ChannelSpec& c : spec.channels)
    columns = std::max(columns, c.shim_column + 1);
  free_ids_.resize(size_t(columns));
  id_holder_.resize(size_t(columns));
  moved_at_start_.assign(spec.channels.size(), 0);
}

iron_channel& Sequencer::channel(uint32_t c) const {
  sim::Core& core = chip_.core(layout_.cores[layout_.channel_core[c]].chip_index);
  return *reinterpret_cast<iron_channel*>(core.l1 + layout_.channel_addr[c]);
}

void Sequencer::ring(uint32_t core_index) const {
  sim::Core& core = chip_.core(layout_.cores[core_index].chip_index);
  auto* table = reinterpret_cast<iron_core_table*>(core.l1 + IRON_TABLE_L1);
  __atomic_fetch_add(&table->doorbell, 1u, __ATOMIC_RELEASE);
  chip_.wake_memory_waiters(core);
}

int64_t Sequencer::eval(const Expr& e) const {
  int64_t v = e.constant;
  for (const auto& [reg, coeff] : e.terms)
    v += coeff * registers_[reg];
  return v;
}

std::string Sequencer::at_line(uint32_t line) const {
  return (spec_.sequence.file.empty() ? std::string("line ") : spec_.sequence.file + ":") + std::to_string(line);
}

void Sequencer::flow_error(const Op& op, const std::string& message) {
  throw FlowError("design '" + spec_.name + "', call " + std::to_string(served_ + 1) + ": " + op_text(op) + " at " +
                  at_line(op.line) + ": " + message);
}

void Sequencer::start_call() {
  pc_ = 0;
  registers_.assign(spec_.sequence.registers, 0);
  for (size_t i = 0; i < line_.parameters.size() && i < registers_.size(); ++i)
    registers_[i] = line_.parameters[i];
  loop_counts_.assign(spec_.sequence.ops.size(), 0);
  slots_.assign(spec_.sequence.slots, -1);
  tasks_.clear();
  for (size_t col = 0; col < free_ids_.size(); ++col) {
    free_ids_[col].clear();
    for (uint32_t id = spec_.descriptors_per_shim; id-- > 0;)
      free_ids_[col].push_back(id);
    id_holder_[col].assign(spec_.descriptors_per_shim, -1);
  }
  stats_ = {};
  for (size_t c = 0; c < spec_.channels.size(); ++c)
    moved_at_start_[c] = channel(uint32_t(c)).moved_objects;
  state_ = State::Running;
}

bool Sequencer::run_op(const Op& op) {
  switch (op.kind) {
  case OpKind::Push: {
    const ChannelSpec& cs = spec_.channels[op.b];
    iron_channel& c = channel(op.b);
    if (c.pushed - __atomic_load_n(&c.done, __ATOMIC_ACQUIRE) >= spec_.queue_depth) return false; // back-pressure
    std::vector<uint32_t>& free = free_ids_[size_t(cs.shim_column)];
    if (free.empty()) {
      std::string holders;
      for (const TaskInstance& t : tasks_)
        if (!t.freed && spec_.channels[t.channel].shim_column == cs.shim_column)
          holders += "\n  " + spec_.channels[t.channel].name + " task at " + at_line(t.line) +
                     (t.wait ? ", awaited" : ", not awaited");
      flow_error(op, "shim tile (" + std::to_string(cs.shim_column) + ",0) has no free descriptor: all " +
                         std::to_string(spec_.descriptors_per_shim) +
                         " are held by tasks not freed yet (finish their TaskGroup, or free() them, first):" + holders);
    }
    const ArgSpec& arg = spec_.args[op.c];
    iron_task t{};
    const uint64_t host = uint64_t(reinterpret_cast<uintptr_t>(line_.host_data[op.c]));
    t.host_lo = uint32_t(host);
    t.host_hi = uint32_t(host >> 32);
    t.element_bytes = arg.element_bytes;
    t.tensor_elements = uint32_t(arg.bytes / arg.element_bytes);
    const int64_t offset = eval(op.value);
    if (offset < 0 || offset >= int64_t(t.tensor_elements))
      flow_error(op, "the access pattern's offset " + std::to_string(offset) + " is outside '" + arg.name + "' (" +
                         std::to_string(t.tensor_elements) + " elements)");
    t.offset = uint32_t(offset);
    uint64_t elements = 1;
    for (int i = 0; i < 4; ++i) {
      t.sizes[i] = op.sizes[i];
      t.strides[i] = op.strides[i];
      elements *= op.sizes[i];
    }
    t.elements = uint32_t(elements);
    // The descriptor: one freed while its task still ran, and taken again
    // now, would cut that task short on silicon.
    const uint32_t id = free.back();
    const int32_t previous = id_holder_[size_t(cs.shim_column)][id];
    if (previous >= 0) {
      const TaskInstance& p = tasks_[size_t(previous)];
      const iron_channel& pc = channel(p.channel);
      if (int32_t(__atomic_load_n(&pc.done, __ATOMIC_ACQUIRE) - p.number) <= 0)
        flow_error(op, "it takes descriptor " + std::to_string(id) + " of shim tile (" +
                           std::to_string(cs.shim_column) + ",0), which the " + spec_.channels[p.channel].name +
                           " task of " + at_line(p.line) + " still uses: that task was freed at " +
                           at_line(p.free_line) +
                           " before it finished, and on silicon the rest of its transfer would be lost (await it, "
                           "or a task that depends on it, before freeing it)");
    }
    t.number = uint32_t(tasks_.size());
    c.queue[c.pushed % IRON_QUEUE_DEPTH] = t;
    TaskInstance inst{op.b, c.pushed, op.line, op.wait, false, id, 0};
    __atomic_store_n(&c.pushed, c.pushed + 1, __ATOMIC_RELEASE);
    free.pop_back();
    id_holder_[size_t(cs.shim_column)][id] = int32_t(tasks_.size());
    slots_[op.a] = int32_t(tasks_.size());
    tasks_.push_back(inst);
    ++stats_.tasks;
    ring(layout_.channel_core[op.b]);
    return true;
  }
  case OpKind::Await: {
    if (slots_[op.a] < 0) flow_error(op, "await_() of a task slot that holds no task");
    const TaskInstance& t = tasks_[size_t(slots_[op.a])];
    if (!t.wait) flow_error(op, "await_() of a task pushed without wait=True (it issues no completion token)");
    if (t.freed) flow_error(op, "await_() of a task already freed");
    return int32_t(__atomic_load_n(&channel(t.channel).done, __ATOMIC_ACQUIRE) - t.number) > 0;
  }
  case OpKind::Free: {
    if (slots_[op.a] < 0) flow_error(op, "free() of a task slot that holds no task");
    TaskInstance& t = tasks_[size_t(slots_[op.a])];
    if (t.freed) flow_error(op, "free() of a task already freed");
    t.freed = true;
    t.free_line = op.line;
    free_ids_[size_t(spec_.channels[t.channel].shim_column)].push_back(t.descriptor);
    return true;
  }
  case OpKind::Copy: slots_[op.a] = slots_[op.b]; return true;
  case OpKind::WriteRtp: {
    const CoreImage& img = layout_.cores[layout_.worker_core[op.a]];
    rtp_.write(chip_, img.chip_index, img.rtp_addrs[op.b] + 4 * op.c, int32_t(eval(op.value)));
    return true;
  }
  case OpKind::SetBarrier: {
    const int64_t v = eval(op.value);
    if (v < 0 || v > 63) flow_error(op, "a WorkerRuntimeBarrier takes values 0 to 63, not " + std::to_string(v));
    rtp_.flush(chip_); // what the sequence wrote before the set lands before it
    const CoreImage& img = layout_.cores[layout_.worker_core[op.a]];
    sim::Core& core = chip_.core(img.chip_index);
    __atomic_store_n(reinterpret_cast<uint32_t*>(core.l1 + img.barriers_addr + 4 * op.b), uint32_t(v),
                     __ATOMIC_RELEASE);
    chip_.wake_memory_waiters(core);
    return true;
  }
  case OpKind::LoopBegin: {
    const int64_t span = eval(op.value), step = op.c > 1 ? int64_t(op.c) : 1;
    const int64_t count = span <= 0 ? 0 : (span + step - 1) / step;
    registers_[op.a] = 0;
    loop_counts_[pc_] = count;
    if (count <= 0) pc_ = op.b; // past the end (the caller steps once more)
    return true;
  }
  case OpKind::LoopEnd: {
    if (++registers_[op.a] < loop_counts_[op.b]) pc_ = op.b;
    return true;
  }
  }
  return true;
}

bool Sequencer::advance() {
  bool any = false;
  const auto& ops = spec_.sequence.ops;
  while (state_ == State::Running) {
    if (pc_ >= ops.size()) {
      state_ = State::Done;
      break;
    }
    if (!run_op(ops[pc_])) break; // blocked: the same op again next time
    ++pc_;
    ++stats_.ops;
    any = true;
  }
  return any;
}

void Sequencer::answer(CallFailure failure, std::string message) {
  rtp_.flush(chip_);
  for (size_t c = 0; c < spec_.channels.size(); ++c)
    stats_.objects_moved += channel(uint32_t(c)).moved_objects - moved_at_start_[c];
  line_.result.failure = failure;
  line_.result.message = std::move(message);
  line_.result.stats = stats_;
  ++served_;
  state_ = State::Waiting;
  line_.answered.store(served_, std::memory_order_release);
  base::unpark(line_.host_park);
  if (failure != CallFailure::None) chip_.request_stop("the call failed");
}

void Sequencer::poll(sim::Chip&) {
  if (line_.stop.load(std::memory_order_relaxed)) {
    chip_.request_stop("the design was closed");
    return;
  }
  if (state_ != State::Running) return;
  rtp_.turn(chip_);
  try {
    advance();
  } catch (const FlowError& e) {
    answer(CallFailure::Flow, e.what());
  }
}

bool Sequencer::idle(sim::Chip&) {
  uint32_t checks = 0;
  for (;;) {
    if (line_.stop.load(std::memory_order_acquire)) {
      chip_.request_stop("the design was closed");
      return false;
    }
    if (state_ == State::Waiting) {
      if (line_.requested.load(std::memory_order_acquire) == served_) {
        // Nothing to do until the host calls.
        base::spin_or_park(line_.card_park, checks, kSpinChecks, 100000, [&] {
          return line_.requested.load(std::memory_order_acquire) != served_ || line_.stop.load();
        });
        continue;
      }
      start_call();
    }
    rtp_.turn(chip_);
    try {
      if (advance()) return true;
    } catch (const FlowError& e) {
      answer(CallFailure::Flow, e.what());
      return false;
    }
    if (state_ == State::Running && rtp_.pending()) {
      rtp_.flush(chip_); // nothing else can move: the writes on their way land now
      return true;
    }
    if (state_ == State::Done) {
      // Every fiber is blocked and the stream has ended: the call is over.
      stats_.leftovers = leftovers();
      answer(CallFailure::None, "");
      checks = 0;
      continue;
    }
    answer(CallFailure::Deadlock, deadlock_report());
    return false;
  }
}

} // namespace tessel::flow
