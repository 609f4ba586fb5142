// Stream and Graph: building an engine and encoding it as an upload
// (tessel/engine_abi.h).
#include <algorithm>
#include <cstring>

#include "tessel/dispatch/engines.hpp"
#include "tessel/engine_abi.h"
#include "tessel/error.hpp"
#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

namespace {

void check_req(uint32_t req, const char* what) {
  if (req < 1 || req > KM_ENGINE_REQ_MAX)
    throw ValidationError(std::string(what) + ": req " + std::to_string(req) + " is not 1 to 255");
}

void check_handler(uint32_t handler, const char* what) {
  if (handler != KM_HANDLER_NOP && (handler < KM_HANDLER_FIRST || handler > KM_HANDLER_LAST))
    throw ValidationError(std::string(what) + ": handler " + std::to_string(handler) +
                          " is not a program handler: expected 0 (NOP) or 1 to 239");
}

void check_op(uint32_t op, const char* what) {
  if (op < KM_OP_MOV || op > KM_OP_NE)
    throw ValidationError(std::string(what) + ": operation " + std::to_string(op) +
                          " is not an ALU operation (KM_OP_MOV .. KM_OP_NE)");
}

void check_flags(uint32_t flags, const char* what) {
  if (flags & ~(KM_FLAG_EXCLUSIVE | KM_FLAG_RESULT | KM_FLAG_QUEUE))
    throw ValidationError(std::string(what) + ": flags " + std::to_string(flags) +
                          " may hold only KM_FLAG_EXCLUSIVE, KM_FLAG_RESULT and KM_FLAG_QUEUE");
  if ((flags & KM_FLAG_QUEUE) && (flags & KM_FLAG_EXCLUSIVE))
    throw ValidationError(std::string(what) + ": a queued command cannot be exclusive");
}

std::vector<uint8_t> upload_bytes(uint32_t kind, uint32_t req, bool keep, uint32_t deadline_us, uint32_t max,
                                  uint32_t count, uint32_t ops, const std::vector<uint32_t>& body) {
  constexpr uint32_t kHeaderWords = KM_LINE_BYTES / 4;
  const size_t words = (kHeaderWords + body.size() + kHeaderWords - 1) / kHeaderWords * kHeaderWords;
  std::vector<uint32_t> all(words, 0u);
  all[KM_ENGINE_H_MAGIC] = KM_ENGINE_MAGIC;
  all[KM_ENGINE_H_KIND] = kind;
  all[KM_ENGINE_H_VERSION] = KM_ENGINE_VERSION;
  all[KM_ENGINE_H_REQ] = req;
  all[KM_ENGINE_H_FLAGS] = keep ? KM_ENGINE_KEEP : 0u;
  all[KM_ENGINE_H_BYTES] = uint32_t(words * 4);
  all[KM_ENGINE_H_DEADLINE] = deadline_us;
  all[KM_ENGINE_H_MAX] = max;
  all[KM_ENGINE_H_COUNT] = count;
  all[KM_ENGINE_H_OPS] = ops;
  std::copy(body.begin(), body.end(), all.begin() + kHeaderWords);
  std::vector<uint8_t> bytes(words * 4);
  std::memcpy(bytes.data(), all.data(), bytes.size());
  return bytes;
}

} // namespace

const char* engine_error_name(uint32_t reason) {
  switch (reason) {
  case KM_STREAM_ERROR_NONE: return "none";
  case KM_STREAM_ERROR_HEADER: return "header";
  case KM_STREAM_ERROR_OPCODE: return "opcode";
  case KM_STREAM_ERROR_PC: return "pc";
  case KM_STREAM_ERROR_REGISTER: return "register";
  case KM_STREAM_ERROR_HANDLER: return "handler";
  case KM_STREAM_ERROR_GROUP: return "group";
  case KM_STREAM_ERROR_ARGS: return "args";
  case KM_STREAM_ERROR_STEPS: return "steps";
  case KM_STREAM_ERROR_DEADLINE: return "deadline";
  case KM_STREAM_ERROR_CANCELLED: return "cancelled";
  case KM_STREAM_ERROR_FLAGS: return "flags";
  case KM_STREAM_ERROR_RUNS: return "runs";
  case KM_STREAM_ERROR_NODE: return "node";
  case KM_STREAM_ERROR_BINDINGS: return "bindings";
  case KM_STREAM_ERROR_TIMEOUT: return "timeout";
  default: return "unknown";
  }
}

// ---------------------------------------------------------------------------
// Stream

Stream::Stream(uint32_t req, uint32_t deadline_us, uint32_t max_steps)
    : req_(req), deadline_us_(deadline_us), max_steps_(max_steps) {
  check_req(req, "Stream");
}

Stream::Reg Stream::reg(uint32_t index) {
  if (index >= KM_ENGINE_REGISTERS)
    throw ValidationError("Stream: register " + std::to_string(index) + " does not exist: a stream has r0 to r15");
  return Reg{index};
}

Stream::Label Stream::label() {
  labels_.push_back(-1);
  return Label{uint32_t(labels_.size() - 1)};
}

void Stream::place(Label label) {
  if (label.id >= labels_.size()) throw ValidationError("Stream.place: not a label of this stream");
  if (labels_[label.id] >= 0) throw ValidationError("Stream.place: the label is placed already");
  labels_[label.id] = int64_t(code_.size());
}

void Stream::nop() { code_.push_back(KM_OP_NOP); }
void Stream::li(Reg rd, uint32_t value) { code_.insert(code_.end(), {KM_OP_LI | reg(rd.index).index << 8, value}); }

void Stream::alu(uint32_t op, Reg rd, Reg rs, Reg rt) {
  check_op(op, "Stream");
  code_.push_back(op | reg(rd.index).index << 8 | reg(rs.index).index << 16 | reg(rt.index).index << 24);
}

void Stream::alu_imm(uint32_t op, Reg rd, Reg rs, uint32_t imm) {
  check_op(op, "Stream");
  code_.insert(code_.end(), {(op | KM_OP_IMMEDIATE) | reg(rd.index).index << 8 | reg(rs.index).index << 16, imm});
}

void Stream::branch(uint32_t op, uint32_t rs, Label target) {
  if (target.id >= labels_.size()) throw ValidationError("Stream: a branch to a label of another stream");
  code_.push_back(op | rs << 8);
  fixups_.emplace_back(uint32_t(code_.size()), target.id);
  code_.push_back(0);
}
void Stream::jmp(Label target) { branch(KM_OP_JMP, 0, target); }
void Stream::bz(Reg rs, Label target) { branch(KM_OP_BZ, reg(rs.index).index, target); }
void Stream::bnz(Reg rs, Label target) { branch(KM_OP_BNZ, reg(rs.index).index, target); }

void Stream::submit(uint32_t handler, Group group, const std::vector<Arg>& args, uint32_t flags,
                    std::optional<Reg> result, bool enqueue) {
  const char* what = enqueue ? "Stream.enqueue" : "Stream.submit";
  check_handler(handler, what);
  if (result) flags |= KM_FLAG_RESULT;
  check_flags(flags, what);
  if ((flags & KM_FLAG_RESULT) && !result)
    throw ValidationError(std::string(what) + ": KM_FLAG_RESULT needs the register the result goes to");
  if (args.size() > KM_ARGS_MAX)
    throw ValidationError(std::string(what) + ": " + std::to_string(args.size()) +
                          " args: a command carries at most 10");
  uint32_t group_word;
  if (group.registers) {
    group_word = reg(group.first).index | reg(group.count).index << 8;
    flags |= KM_ENGINE_GROUP_REGS;
  } else {
    if (group.first > 0xFFFFu || group.count > 0xFFFFu || group.count == 0)
      throw ValidationError(std::string(what) + ": group (" + std::to_string(group.first) + ", " +
                            std::to_string(group.count) + ") is not (first, count) with a count of 1 or more");
    group_word = group.first | group.count << 16;
  }
  uint32_t mask = result ? reg(result->index).index << 16 : 0u;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_register) mask |= 1u << i, (void)reg(args[i].value);
  code_.push_back((enqueue ? KM_OP_ENQUEUE : KM_OP_SUBMIT) | handler << 8 | uint32_t(args.size()) << 16 | flags << 24);
  code_.push_back(group_word);
  code_.push_back(mask);
  for (const Arg& a : args)
    code_.push_back(a.value);
}

void Stream::wait() { code_.push_back(KM_OP_WAIT); }
void Stream::event(Reg ra) { code_.push_back(KM_OP_EVENT | reg(ra.index).index << 8); }
void Stream::halt(Reg ra) { code_.push_back(KM_OP_HALT | reg(ra.index).index << 8); }
void Stream::ticks(Reg rd) { code_.push_back(KM_OP_TICKS | reg(rd.index).index << 8); }

std::vector<uint8_t> Stream::encode() const {
  std::vector<uint32_t> code = code_;
  for (const auto& [word, label] : fixups_) {
    if (labels_[label] < 0)
      throw ValidationError("Stream.encode: a branch at pc " + std::to_string(word - 1) +
                            " goes to a label that was never placed");
    code[word] = uint32_t(labels_[label]);
  }
  return upload_bytes(KM_ENGINE_STREAM, req_, false, deadline_us_, max_steps_, uint32_t(code.size()), 0, code);
}

// ---------------------------------------------------------------------------
// Graph

Graph::Graph(uint32_t deadline_us, uint32_t max_runs, uint32_t req, bool keep)
    : req_(req), deadline_us_(deadline_us), max_runs_(max_runs), keep_(keep) {
  check_req(req, "Graph");
}

Graph::Value Graph::binding(const std::string& name) {
  if (name.empty()) throw ValidationError("Graph.bindings: a binding needs a name");
  if (std::find(bindings_.begin(), bindings_.end(), name) != bindings_.end())
    throw ValidationError("Graph.bindings: binding '" + name + "' is named twice");
  bindings_.push_back(name);
  values_.push_back(Slot{Kind::Binding, uint32_t(bindings_.size() - 1)});
  return Value{uint32_t(values_.size() - 1)};
}

Graph::Value Graph::add_register() {
  values_.push_back(Slot{Kind::Register, 0});
  return Value{uint32_t(values_.size() - 1)};
}

Graph::Value Graph::constant(uint32_t value) {
  for (uint32_t i = 0; i < values_.size(); ++i)
    if (values_[i].kind == Kind::Constant && values_[i].index == value) return Value{i};
  values_.push_back(Slot{Kind::Constant, value});
  return Value{uint32_t(values_.size() - 1)};
}

Graph::Node Graph::check_after(const std::vector<Node>& after) const {
  if (nodes_.size() >= KM_GRAPH_NODES_MAX)
    throw ValidationError("Graph: more than " + std::to_string(KM_GRAPH_NODES_MAX) + " nodes");
  if (after.size() > KM_GRAPH_DEPS_MAX)
    throw ValidationError("Graph: a node comes after " + std::to_string(after.size()) + " nodes: at most " +
                          std::to_string(KM_GRAPH_DEPS_MAX));
  for (const Node& n : after)
    if (n.index >= nodes_.size()) throw ValidationError("Graph: after= names a node of another graph");
  return Node{uint32_t(nodes_.size())};
}

Graph::Node Graph::command(uint32_t handler, std::pair<uint32_t, uint32_t> group, const std::vector<Value>& args,
                           const std::vector<Node>& after, std::optional<Value> result, uint32_t flags) {
  const Node node = check_after(after);
  check_handler(handler, "Graph.command");
  check_flags(flags & ~KM_FLAG_RESULT, "Graph.command");
  if (args.size() > KM_ARGS_MAX)
    throw ValidationError("Graph.command: " + std::to_string(args.size()) + " args: a command carries at most 10");
  if (group.second == 0 || group.first > 0xFFFFu || group.second > 0xFFFFu)
    throw ValidationError("Graph.command: group (" + std::to_string(group.first) + ", " + std::to_string(group.second) +
                          ") is not (first, count) with a count of 1 or more");
  NodeSpec n;
  n.handler = handler;
  n.flags = flags & ~KM_FLAG_RESULT;
  n.first = group.first;
  n.count = group.second;
  for (const Value& v : args) {
    if (v.id != kAgain && v.id >= values_.size()) throw ValidationError("Graph.command: an arg of another graph");
    n.args.push_back(v.id);
  }
  for (const Node& a : after)
    n.after.push_back(a.index);
  if (result) {
    if (result->id >= values_.size() || values_[result->id].kind == Kind::Constant)
      throw ValidationError("Graph.command: result= must be a register or a binding of this graph");
    n.result = result->id;
  }
  nodes_.push_back(std::move(n));
  return node;
}

Graph::Node Graph::cpu(const std::vector<Node>& after) {
  const Node node = check_after(after);
  NodeSpec n;
  n.cpu = true;
  for (const Node& a : after)
    n.after.push_back(a.index);
  nodes_.push_back(std::move(n));
  return node;
}

void Graph::op(Node cpu, uint32_t op, Value rd, Value rs, Value rt) {
  check_op(op, "Graph.cpu");
  if (cpu.index >= nodes_.size() || !nodes_[cpu.index].cpu) throw ValidationError("Graph.cpu: not a cpu node");
  for (const Value& v : {rd, rs, rt})
    if (v.id != kAgain && v.id >= values_.size()) throw ValidationError("Graph.cpu: a value of another graph");
  if (rd.id != kAgain && values_[rd.id].kind == Kind::Constant)
    throw ValidationError("Graph.cpu: an operation cannot write a constant");
  nodes_[cpu.index].ops.push_back({op, {rd.id, rs.id, rt.id}});
}

void Graph::op_imm(Node cpu, uint32_t op, Value rd, Value rs, uint32_t imm) {
  check_op(op, "Graph.cpu");
  if (cpu.index >= nodes_.size() || !nodes_[cpu.index].cpu) throw ValidationError("Graph.cpu: not a cpu node");
  for (const Value& v : {rd, rs})
    if (v.id != kAgain && v.id >= values_.size()) throw ValidationError("Graph.cpu: a value of another graph");
  if (rd.id != kAgain && values_[rd.id].kind == Kind::Constant)
    throw ValidationError("Graph.cpu: an operation cannot write a constant");
  nodes_[cpu.index].ops.push_back({op | KM_OP_IMMEDIATE, {rd.id, rs.id, imm}});
}

void Graph::layout() const {
  std::vector<bool> written(values_.size(), false);
  for (const NodeSpec& n : nodes_) {
    if (n.result) written[*n.result] = true;
    for (const auto& o : n.ops)
      if (o.second[0] != kAgain) written[o.second[0]] = true;
  }
  std::vector<uint32_t> order;
  const auto add = [&](auto pick) {
    for (uint32_t i = 0; i < values_.size(); ++i)
      if (pick(i)) order.push_back(i);
  };
  add([&](uint32_t i) { return values_[i].kind == Kind::Binding && written[i]; });
  add([&](uint32_t i) { return values_[i].kind == Kind::Register; });
  add([&](uint32_t i) { return values_[i].kind == Kind::Binding && !written[i]; });
  add([&](uint32_t i) { return values_[i].kind == Kind::Constant; });
  if (order.size() > KM_ENGINE_REGISTERS)
    throw ValidationError("Graph: it uses " + std::to_string(order.size()) +
                          " values (bindings, registers and constants): a graph has 16 registers");
  registers_.assign(values_.size(), 0);
  binding_words_ = 0;
  for (uint32_t r = 0; r < order.size(); ++r) {
    registers_[order[r]] = r;
    if (values_[order[r]].kind != Kind::Register) binding_words_ = r + 1;
  }
  used_registers_ = uint32_t(order.size());
}

uint32_t Graph::register_of(Value v) const {
  if (v.id == kAgain) return KM_GRAPH_AGAIN;
  if (v.id >= values_.size()) throw ValidationError("Graph: a value of another graph");
  layout();
  return registers_[v.id];
}

std::vector<uint32_t> Graph::binding_values(const std::map<std::string, uint32_t>& values) const {
  for (const auto& [name, v] : values)
    if (std::find(bindings_.begin(), bindings_.end(), name) == bindings_.end())
      throw ValidationError("Graph.binding_values: '" + name + "' is not a binding of the graph (it has: " + [&] {
        std::string s;
        for (const std::string& b : bindings_)
          s += (s.empty() ? "" : ", ") + b;
        return s.empty() ? std::string("none") : s;
      }() + ")");
  layout();
  std::vector<uint32_t> words(binding_words_, 0u);
  for (uint32_t i = 0; i < values_.size(); ++i) {
    if (values_[i].kind == Kind::Binding) {
      const auto it = values.find(bindings_[values_[i].index]);
      if (it == values.end())
        throw ValidationError("Graph.binding_values: binding '" + bindings_[values_[i].index] + "' has no value");
      words[registers_[i]] = it->second;
    } else if (values_[i].kind == Kind::Constant) {
      words[registers_[i]] = values_[i].index;
    }
  }
  return words;
}

std::vector<uint8_t> Graph::encode() const {
  layout();
  const auto r = [&](uint32_t id) { return id == kAgain ? KM_GRAPH_AGAIN : registers_[id]; };
  std::vector<uint32_t> body(nodes_.size() * KM_NODE_WORDS, 0u);
  std::vector<uint32_t> ops;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const NodeSpec& n = nodes_[i];
    uint32_t* w = &body[i * KM_NODE_WORDS];
    w[KM_NODE_TYPE] = (n.cpu ? KM_NODE_CPU : KM_NODE_COMMAND) | uint32_t(n.after.size()) << 8 |
                      uint32_t(n.args.size()) << 16 | n.flags << 24;
    for (uint32_t d = 0; d < n.after.size(); ++d)
      w[KM_NODE_DEPS + d / 4] |= n.after[d] << (8 * (d % 4));
    if (n.cpu) {
      w[KM_NODE_OPS] = uint32_t(ops.size() / 2);
      w[KM_NODE_NOPS] = uint32_t(n.ops.size());
      for (const auto& [op, regs] : n.ops) {
        const bool imm = op & KM_OP_IMMEDIATE;
        ops.push_back(op | r(regs[0]) << 8 | r(regs[1]) << 16 | (imm ? 0u : r(regs[2]) << 24));
        ops.push_back(imm ? regs[2] : 0u);
      }
      continue;
    }
    w[KM_NODE_HANDLER] = n.handler;
    w[KM_NODE_GROUP] = n.first | n.count << 16;
    w[KM_NODE_RESULT] = n.result ? r(*n.result) : KM_NODE_NONE;
    for (uint32_t a = 0; a < n.args.size(); ++a)
      w[KM_NODE_ARGS + a / 4] |= r(n.args[a]) << (8 * (a % 4));
  }
  if (ops.size() / 2 > KM_GRAPH_OPS_MAX)
    throw ValidationError("Graph: " + std::to_string(ops.size() / 2) + " cpu operations: at most " +
                          std::to_string(KM_GRAPH_OPS_MAX));
  body.insert(body.end(), ops.begin(), ops.end());
  return upload_bytes(KM_ENGINE_GRAPH, req_, keep_, deadline_us_, max_runs_, uint32_t(nodes_.size()),
                      uint32_t(ops.size() / 2), body);
}

} // namespace tessel::dispatch
