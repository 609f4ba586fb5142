#include "dispatch/engine.hpp"

#include <algorithm>

namespace tessel::dispatch {

namespace {

constexpr uint32_t kHeaderWords = KM_LINE_BYTES / 4;

bool valid_handler(uint32_t h) { return h == KM_HANDLER_NOP || (h >= KM_HANDLER_FIRST && h <= KM_HANDLER_LAST); }

// KM_STREAM_ERROR_NONE, or why a command of these fields cannot be sent.
uint32_t check_command(uint32_t handler, uint32_t flags, uint32_t first, uint32_t count, uint32_t cores) {
  if (!valid_handler(handler)) return KM_STREAM_ERROR_HANDLER;
  if ((flags & KM_FLAG_RESERVED) || ((flags & KM_FLAG_QUEUE) && (flags & KM_FLAG_EXCLUSIVE)) ||
      (flags & ~(KM_FLAG_EXCLUSIVE | KM_FLAG_RESULT | KM_FLAG_QUEUE)))
    return KM_STREAM_ERROR_FLAGS;
  const bool ok =
      (flags & KM_FLAG_QUEUE) ? count >= 1 && count <= cores : count >= 1 && first < cores && count <= cores - first;
  return ok ? KM_STREAM_ERROR_NONE : KM_STREAM_ERROR_GROUP;
}

} // namespace

bool engine_alu(uint32_t op, uint32_t a, uint32_t b, uint32_t& out) {
  switch (op & ~KM_OP_IMMEDIATE) {
  case KM_OP_MOV: out = (op & KM_OP_IMMEDIATE) ? b : a; return true;
  case KM_OP_ADD: out = a + b; return true;
  case KM_OP_SUB: out = a - b; return true;
  case KM_OP_MUL: out = a * b; return true;
  case KM_OP_AND: out = a & b; return true;
  case KM_OP_OR: out = a | b; return true;
  case KM_OP_XOR: out = a ^ b; return true;
  case KM_OP_SHL: out = a << (b & 31u); return true;
  case KM_OP_SHR: out = a >> (b & 31u); return true;
  case KM_OP_MIN: out = std::min(a, b); return true;
  case KM_OP_MAX: out = std::max(a, b); return true;
  case KM_OP_LT: out = a < b; return true;
  case KM_OP_LE: out = a <= b; return true;
  case KM_OP_GT: out = a > b; return true;
  case KM_OP_GE: out = a >= b; return true;
  case KM_OP_EQ: out = a == b; return true;
  case KM_OP_NE: out = a != b; return true;
  default: return false;
  }
}

uint32_t Engine::req_of(const uint32_t* words, uint32_t available) {
  return available > KM_ENGINE_H_REQ ? words[KM_ENGINE_H_REQ] : 0;
}
uint32_t Engine::kind_of(const uint32_t* words, uint32_t available) {
  return available > KM_ENGINE_H_KIND ? words[KM_ENGINE_H_KIND] : 0;
}

Engine::Engine(const uint32_t* words, uint32_t available, uint32_t cores) : cores_(cores) { load(words, available); }

void Engine::load(const uint32_t* words, uint32_t available) {
  const auto bad = [&](uint32_t reason, uint32_t at = ~0u) {
    if (load_error_ == KM_STREAM_ERROR_NONE) {
      load_error_ = reason;
      load_error_at_ = at;
    }
  };
  req_ = req_of(words, available); // a bad upload's error event still goes to its req
  if (available < kHeaderWords || words[KM_ENGINE_H_MAGIC] != KM_ENGINE_MAGIC ||
      words[KM_ENGINE_H_VERSION] != KM_ENGINE_VERSION)
    return bad(KM_STREAM_ERROR_HEADER);
  kind_ = words[KM_ENGINE_H_KIND];
  keep_ = words[KM_ENGINE_H_FLAGS] & KM_ENGINE_KEEP;
  bytes_ = words[KM_ENGINE_H_BYTES];
  deadline_us_ = words[KM_ENGINE_H_DEADLINE];
  max_ = words[KM_ENGINE_H_MAX];
  const uint32_t count = words[KM_ENGINE_H_COUNT];
  if ((kind_ != KM_ENGINE_STREAM && kind_ != KM_ENGINE_GRAPH) || req_ == 0 || req_ > KM_ENGINE_REQ_MAX ||
      bytes_ % KM_LINE_BYTES != 0 || bytes_ < KM_LINE_BYTES || bytes_ / 4 > available)
    return bad(KM_STREAM_ERROR_HEADER);
  const uint32_t body_words = bytes_ / 4 - kHeaderWords;
  const uint32_t* body = words + kHeaderWords;
  if (kind_ == KM_ENGINE_STREAM) {
    if (count > body_words) return bad(KM_STREAM_ERROR_HEADER);
    code_ = body;
    code_words_ = count;
    return;
  }
  const uint32_t ops = words[KM_ENGINE_H_OPS];
  if (count > KM_GRAPH_NODES_MAX || ops > KM_GRAPH_OPS_MAX ||
      uint64_t(count) * KM_NODE_WORDS + uint64_t(ops) * 2 > body_words)
    return bad(KM_STREAM_ERROR_HEADER);
  ops_.assign(body + count * KM_NODE_WORDS, body + count * KM_NODE_WORDS + ops * 2);
  nodes_.resize(count);
  node_state_.assign(count, NodeState::Pending);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t* w = body + i * KM_NODE_WORDS;
    Node& n = nodes_[i];
    n.type = w[KM_NODE_TYPE] & 0xFFu;
    n.deps_count = (w[KM_NODE_TYPE] >> 8) & 0xFFu;
    n.arg_count = (w[KM_NODE_TYPE] >> 16) & 0xFFu;
    n.flags = w[KM_NODE_TYPE] >> 24;
    if ((n.type != KM_NODE_COMMAND && n.type != KM_NODE_CPU) || n.deps_count > KM_GRAPH_DEPS_MAX)
      return bad(KM_STREAM_ERROR_NODE, i);
    for (uint32_t d = 0; d < n.deps_count; ++d) {
      n.deps[d] = uint8_t(w[KM_NODE_DEPS + d / 4] >> (8 * (d % 4)));
      if (n.deps[d] >= i) return bad(KM_STREAM_ERROR_NODE, i); // only earlier nodes: no cycle
    }
    if (n.type == KM_NODE_CPU) {
      n.ops_first = w[KM_NODE_OPS];
      n.ops_count = w[KM_NODE_NOPS];
      if (n.ops_first > ops || n.ops_count > ops - n.ops_first) return bad(KM_STREAM_ERROR_NODE, i);
      for (uint32_t o = n.ops_first; o < n.ops_first + n.ops_count; ++o) {
        const uint32_t word = ops_[o * 2], op = word & 0xFFu;
        const uint32_t rd = (word >> 8) & 0xFFu, rs = (word >> 16) & 0xFFu, rt = word >> 24;
        uint32_t scratch;
        if (!engine_alu(op, 0, 0, scratch)) return bad(KM_STREAM_ERROR_OPCODE, i);
        if (rd > KM_GRAPH_AGAIN || rs > KM_GRAPH_AGAIN || (!(op & KM_OP_IMMEDIATE) && rt > KM_GRAPH_AGAIN))
          return bad(KM_STREAM_ERROR_REGISTER, i);
      }
      continue;
    }
    n.handler = w[KM_NODE_HANDLER];
    n.first = w[KM_NODE_GROUP] & 0xFFFFu;
    n.count = w[KM_NODE_GROUP] >> 16;
    n.result = w[KM_NODE_RESULT];
    if (n.arg_count > KM_ARGS_MAX) return bad(KM_STREAM_ERROR_ARGS, i);
    for (uint32_t a = 0; a < n.arg_count; ++a) {
      n.args[a] = uint8_t(w[KM_NODE_ARGS + a / 4] >> (8 * (a % 4)));
      if (n.args[a] > KM_GRAPH_AGAIN) return bad(KM_STREAM_ERROR_REGISTER, i);
    }
    if (n.result != KM_NODE_NONE && n.result >= KM_ENGINE_REGISTERS) return bad(KM_STREAM_ERROR_REGISTER, i);
    if (n.result != KM_NODE_NONE) n.flags |= KM_FLAG_RESULT;
    if (const uint32_t e = check_command(n.handler, n.flags, n.first, n.count, cores_)) return bad(e, i);
  }
}

void Engine::start(const uint32_t* bindings, uint32_t count, uint64_t now_us) {
  regs_.fill(0);
  std::copy_n(bindings, std::min<uint32_t>(count, KM_ENGINE_REGISTERS), regs_.begin());
  state_ = State::Running;
  start_us_ = now_us;
  error_ = KM_STREAM_ERROR_NONE;
  error_at_ = ~0u;
  inflight_ = 0;
  runs_ = 0;
  halted_ = false;
  end_value_ = 0;
  pc_ = 0;
  steps_ = 0;
  waiting_token_ = ~0u;
  waiting_all_ = false;
  entries_.fill(Entry{});
  event_pending_ = false;
  std::fill(node_state_.begin(), node_state_.end(), NodeState::Pending);
  nodes_done_ = 0;
  round_pending_ = false;
  if (load_error_ != KM_STREAM_ERROR_NONE)
    fail(load_error_, load_error_at_);
  else if (count > KM_ENGINE_REGISTERS)
    fail(KM_STREAM_ERROR_BINDINGS, ~0u);
}

void Engine::fail(uint32_t reason, uint32_t at) {
  if (state_ != State::Running) return;
  state_ = State::Ending;
  error_ = reason;
  error_at_ = at;
}

void Engine::cancel() { fail(KM_STREAM_ERROR_CANCELLED, ~0u); }

bool Engine::deadline_passed(EngineSink& sink) const {
  return deadline_us_ && sink.now_us() - start_us_ > deadline_us_;
}

void Engine::complete(uint32_t token, uint32_t result) {
  --inflight_;
  if (kind_ == KM_ENGINE_STREAM) {
    Entry& e = entries_[token];
    if (e.result != KM_NODE_NONE) regs_[e.result] = result;
    e = Entry{};
    if (waiting_token_ == token) waiting_token_ = ~0u;
    return;
  }
  const Node& n = nodes_[token];
  if (n.result != KM_NODE_NONE) regs_[n.result] = result;
  node_state_[token] = NodeState::Done;
  ++nodes_done_;
}

bool Engine::finish(EngineSink& sink) {
  if (inflight_ != 0) return false;
  const uint32_t kept = kept_after_end() ? KM_EVENT_KEPT : 0u;
  if (state_ == State::Ending) {
    const uint32_t at = error_at_ == ~0u ? 0u : (error_at_ + 1) & 0xFFFFu;
    if (!sink.post(KM_EVENT_ENGINE_ERROR, error_ | at << 8 | kept, 0)) return false;
  } else {
    const uint32_t aux = (regs_[0] & 0xFFFFFFu) | kept;
    const uint32_t value = kind_ == KM_ENGINE_STREAM ? end_value_ : regs_[1];
    if (!sink.post(KM_EVENT_ENGINE_END, aux, value)) return false;
  }
  state_ = State::Idle;
  return true;
}

bool Engine::step(EngineSink& sink, uint32_t budget) {
  if (state_ == State::Idle) return false;
  bool moved = false;
  if (state_ == State::Running && !halted_ && deadline_passed(sink)) {
    fail(KM_STREAM_ERROR_DEADLINE, ~0u);
    moved = true;
  }
  if (state_ == State::Running && !halted_)
    moved |= kind_ == KM_ENGINE_STREAM ? step_stream(sink, budget) : step_graph(sink);
  if (state_ == State::Ending || halted_) moved |= finish(sink);
  return moved;
}

bool Engine::run_ops(const Node& n, uint32_t node) {
  for (uint32_t o = n.ops_first; o < n.ops_first + n.ops_count; ++o) {
    const uint32_t word = ops_[o * 2], op = word & 0xFFu;
    const uint32_t rd = (word >> 8) & 0xFFu, rs = (word >> 16) & 0xFFu, rt = word >> 24;
    const uint32_t b = (op & KM_OP_IMMEDIATE) ? ops_[o * 2 + 1] : regs_[rt];
    if (!engine_alu(op, regs_[rs], b, regs_[rd])) return fail(KM_STREAM_ERROR_OPCODE, node), false;
  }
  return true;
}

// One pass in node order finds every ready node: a node comes after earlier
// nodes only.
bool Engine::step_graph(EngineSink& sink) {
  bool moved = false;
  if (round_pending_) {
    if (!sink.post(KM_EVENT_ENGINE_ROUND, 0, runs_)) return moved;
    round_pending_ = false;
    moved = true;
  }
  bool progress = false;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (node_state_[i] != NodeState::Pending) continue;
    const Node& n = nodes_[i];
    bool ready = true;
    for (uint32_t d = 0; d < n.deps_count && ready; ++d)
      ready = node_state_[n.deps[d]] == NodeState::Done;
    if (!ready) continue;
    if (n.type == KM_NODE_CPU) {
      if (!run_ops(n, i)) return true;
      node_state_[i] = NodeState::Done;
      ++nodes_done_;
      progress = true;
      continue;
    }
    EngineCommand c;
    c.handler = n.handler;
    c.flags = n.flags;
    c.first = n.first;
    c.count = n.count;
    c.arg_count = n.arg_count;
    for (uint32_t a = 0; a < n.arg_count; ++a)
      c.args[a] = regs_[n.args[a]];
    c.node = i;
    c.token = i;
    // Marked sent first: the sink may complete it before submit returns.
    node_state_[i] = NodeState::Sent;
    ++inflight_;
    if (!sink.submit(c)) { // later ready nodes may still go
      node_state_[i] = NodeState::Pending;
      --inflight_;
      continue;
    }
    progress = true;
  }
  moved |= progress;
  if (nodes_done_ < nodes_.size()) return moved;
  // The round ended.
  ++runs_;
  const bool again = regs_[KM_GRAPH_AGAIN] != 0;
  if (!again) {
    halted_ = true;
    return true;
  }
  if (max_ && runs_ >= max_) return fail(KM_STREAM_ERROR_RUNS, ~0u), true;
  regs_[KM_GRAPH_AGAIN] = 0;
  std::fill(node_state_.begin(), node_state_.end(), NodeState::Pending);
  nodes_done_ = 0;
  round_pending_ = true;
  // One round a step: the other engines, the host's ring and the cores get
  // their turn before the next (a round of cpu nodes alone never waits).
  return true;
}

bool Engine::step_stream(EngineSink& sink, uint32_t budget) {
  bool moved = false;
  const auto reg = [&](uint32_t r, uint32_t& out) {
    if (r >= KM_ENGINE_REGISTERS) return fail(KM_STREAM_ERROR_REGISTER, pc_), false;
    out = r;
    return true;
  };
  if (event_pending_) {
    if (!sink.post(KM_EVENT_ENGINE_EVENT, 0, event_value_)) return false;
    event_pending_ = false;
    moved = true;
  }
  for (uint32_t n = 0; n < budget; ++n) {
    if (waiting_token_ != ~0u || (waiting_all_ && inflight_ != 0)) return moved;
    waiting_all_ = false;
    if (pc_ >= code_words_) return fail(KM_STREAM_ERROR_PC, pc_), true;
    if (max_ && steps_ >= max_) return fail(KM_STREAM_ERROR_STEPS, pc_), true;
    const uint32_t word = code_[pc_], op = word & 0xFFu;
    const uint32_t a = (word >> 8) & 0xFFu, b = (word >> 16) & 0xFFu, c = word >> 24;
    const auto operand = [&](uint32_t i, uint32_t& out) {
      if (pc_ + i >= code_words_) return fail(KM_STREAM_ERROR_PC, pc_), false;
      out = code_[pc_ + i];
      return true;
    };
    uint32_t rd, rs, rt, imm;
    if (op >= KM_OP_MOV && op <= KM_OP_NE) {
      if (!reg(a, rd) || !reg(b, rs) || !reg(c, rt)) return true;
      engine_alu(op, regs_[rs], regs_[rt], regs_[rd]);
      pc_ += 1;
    } else if (op >= (KM_OP_MOV | KM_OP_IMMEDIATE) && op <= (KM_OP_NE | KM_OP_IMMEDIATE)) {
      if (!reg(a, rd) || !reg(b, rs) || !operand(1, imm)) return true;
      engine_alu(op, regs_[rs], imm, regs_[rd]);
      pc_ += 2;
    } else {
      switch (op) {
      case KM_OP_NOP: pc_ += 1; break;
      case KM_OP_LI:
        if (!reg(a, rd) || !operand(1, imm)) return true;
        regs_[rd] = imm;
        pc_ += 2;
        break;
      case KM_OP_JMP:
      case KM_OP_BZ:
      case KM_OP_BNZ: {
        uint32_t target;
        if (!operand(1, target)) return true;
        bool take = true;
        if (op != KM_OP_JMP) {
          if (!reg(a, rs)) return true;
          take = (regs_[rs] == 0) == (op == KM_OP_BZ);
        }
        if (take && target >= code_words_) return fail(KM_STREAM_ERROR_PC, pc_), true;
        pc_ = take ? target : pc_ + 2;
        break;
      }
      case KM_OP_SUBMIT:
      case KM_OP_ENQUEUE: {
        const uint32_t argc = b, flags = c & ~KM_ENGINE_GROUP_REGS;
        if (argc > KM_ARGS_MAX) return fail(KM_STREAM_ERROR_ARGS, pc_), true;
        uint32_t group, mask;
        if (!operand(1, group) || !operand(2, mask) || (argc && !operand(2 + argc, imm))) return true;
        EngineCommand cmd;
        cmd.handler = a;
        cmd.flags = flags;
        if (c & KM_ENGINE_GROUP_REGS) {
          uint32_t rf, rc;
          if (!reg(group & 0xFFu, rf) || !reg((group >> 8) & 0xFFu, rc)) return true;
          cmd.first = regs_[rf];
          cmd.count = regs_[rc];
        } else {
          cmd.first = group & 0xFFFFu;
          cmd.count = group >> 16;
        }
        if (flags & KM_FLAG_QUEUE) cmd.first = 0;
        if (const uint32_t e = check_command(cmd.handler, flags, cmd.first, cmd.count, cores_))
          return fail(e, pc_), true;
        cmd.arg_count = argc;
        for (uint32_t i = 0; i < argc; ++i) {
          const uint32_t v = code_[pc_ + 3 + i];
          if (mask >> i & 1u) {
            if (!reg(v, rs)) return true;
            cmd.args[i] = regs_[rs];
          } else {
            cmd.args[i] = v;
          }
        }
        uint32_t result = KM_NODE_NONE;
        if (flags & KM_FLAG_RESULT)
          if (!reg((mask >> 16) & 0xFFu, result)) return true;
        uint32_t token = 0;
        while (token < KM_ENGINE_INFLIGHT && entries_[token].used)
          ++token;
        if (token == KM_ENGINE_INFLIGHT) return moved; // room comes with a completion
        cmd.node = pc_;
        cmd.token = token;
        // Marked in flight first: the sink may complete it before submit returns.
        entries_[token] = Entry{true, result};
        ++inflight_;
        if (op == KM_OP_SUBMIT) waiting_token_ = token;
        if (!sink.submit(cmd)) {
          entries_[token] = Entry{};
          --inflight_;
          waiting_token_ = ~0u;
          return moved;
        }
        pc_ += 3 + argc;
        break;
      }
      case KM_OP_WAIT:
        waiting_all_ = true;
        pc_ += 1;
        break;
      case KM_OP_EVENT:
        if (!reg(a, rs)) return true;
        pc_ += 1;
        ++steps_;
        if (!sink.post(KM_EVENT_ENGINE_EVENT, 0, regs_[rs])) {
          event_pending_ = true;
          event_value_ = regs_[rs];
          return true;
        }
        moved = true;
        continue;
      case KM_OP_HALT:
        if (!reg(a, rs)) return true;
        end_value_ = regs_[rs];
        halted_ = true;
        waiting_all_ = true;
        ++steps_;
        return true;
      case KM_OP_TICKS:
        if (!reg(a, rd)) return true;
        regs_[rd] = sink.ticks();
        pc_ += 1;
        break;
      default: return fail(KM_STREAM_ERROR_OPCODE, pc_), true;
      }
    }
    ++steps_;
    moved = true;
  }
  return moved;
}

} // namespace tessel::dispatch
