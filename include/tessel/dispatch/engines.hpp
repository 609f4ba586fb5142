// Engines (spec: Engines: uploads, start, events): streams and graphs the
// card's dispatcher runs from its upload region, with no host step between
// their start and their end. Stream and Graph encode them
// (tessel/engine_abi.h holds the format); Run::upload writes one into the
// region, Run::start / restart / cancel / release drive it, and its events
// come back to its EngineHandle (Run::wait_engine). Run::run_hostfed runs
// the same stream or graph from the host, its commands through the host ring.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessel::dispatch {

// A stream: a small register machine (16 registers of 32 bits) whose
// instructions send commands, post events and branch (docs/engines.md).
class Stream {
public:
  struct Reg {
    uint32_t index = 0;
  };
  struct Label {
    uint32_t id = 0;
  };
  struct Arg { // a command's argument word: a register or a value
    bool is_register = false;
    uint32_t value = 0;
    static Arg reg(Reg r) { return {true, r.index}; }
    static Arg word(uint32_t v) { return {false, v}; }
  };
  struct Group { // (first, count) as values, or as two registers
    bool registers = false;
    uint32_t first = 0, count = 0;
  };
  // req 1..255; deadline_us 0: none; max_steps: instructions at most (0: no limit).
  explicit Stream(uint32_t req, uint32_t deadline_us = 0, uint32_t max_steps = 0);

  static Reg reg(uint32_t index); // r0..r15 (ValidationError otherwise)
  Label label();                  // a new label, placed later with place()
  void place(Label label);        // the next instruction
  uint32_t pc() const { return uint32_t(code_.size()); }

  void nop();
  void li(Reg rd, uint32_t value);
  void alu(uint32_t op, Reg rd, Reg rs, Reg rt);           // KM_OP_MOV .. KM_OP_NE
  void alu_imm(uint32_t op, Reg rd, Reg rs, uint32_t imm); // the same with an immediate rt
  void jmp(Label target);
  void bz(Reg rs, Label target);
  void bnz(Reg rs, Label target);
  // SUBMIT (wait for its completion) or, with enqueue, ENQUEUE (go on).
  // flags: KM_FLAG_EXCLUSIVE | KM_FLAG_RESULT | KM_FLAG_QUEUE; result: the
  // register of the leader's result word (sets KM_FLAG_RESULT).
  void submit(uint32_t handler, Group group, const std::vector<Arg>& args, uint32_t flags = 0,
              std::optional<Reg> result = std::nullopt, bool enqueue = false);
  void wait();
  void event(Reg ra);
  void halt(Reg ra);
  void ticks(Reg rd);

  uint32_t req() const { return req_; }
  // The upload's bytes (whole lines); ValidationError for a label never placed.
  std::vector<uint8_t> encode() const;

private:
  void branch(uint32_t op, uint32_t rs, Label target);
  uint32_t req_, deadline_us_, max_steps_;
  std::vector<uint32_t> code_;
  std::vector<int64_t> labels_;                       // pc, or -1 before place()
  std::vector<std::pair<uint32_t, uint32_t>> fixups_; // (word, label)
};

// A graph: command and cpu nodes with dependencies, run round after round
// while its `again` register is set (docs/engines.md).
class Graph {
public:
  struct Value { // a binding, a register, a constant, or `again`
    uint32_t id = 0;
  };
  struct Node {
    uint32_t index = 0;
  };
  Graph(uint32_t deadline_us, uint32_t max_runs, uint32_t req, bool keep);

  Value binding(const std::string& name); // a word given at start (by name)
  Value add_register();                   // a word the graph computes (0 at start)
  Value constant(uint32_t value);
  Value again() const { return Value{kAgain}; }
  Node command(uint32_t handler, std::pair<uint32_t, uint32_t> group, const std::vector<Value>& args,
               const std::vector<Node>& after = {}, std::optional<Value> result = std::nullopt, uint32_t flags = 0);
  Node cpu(const std::vector<Node>& after = {});
  // An operation of a cpu node: rd = rs op rt (KM_OP_MOV .. KM_OP_NE), or with an immediate.
  void op(Node cpu, uint32_t op, Value rd, Value rs, Value rt);
  void op_imm(Node cpu, uint32_t op, Value rd, Value rs, uint32_t imm);

  uint32_t req() const { return req_; }
  bool keep() const { return keep_; }
  const std::vector<std::string>& binding_names() const { return bindings_; }
  // The register each value lives in: values a node writes first (bindings
  // in their order, then registers), then the other bindings, then
  // constants. The end event carries registers 0 and 1.
  uint32_t register_of(Value v) const;
  // The start's binding words (every register up to the last binding or
  // constant) from values by name; ValidationError for a missing or unknown name.
  std::vector<uint32_t> binding_values(const std::map<std::string, uint32_t>& values) const;
  std::vector<uint8_t> encode() const;

private:
  static constexpr uint32_t kAgain = 0xFFFFFFFFu;
  enum class Kind : uint8_t { Binding, Register, Constant };
  struct Slot {
    Kind kind;
    uint32_t index; // binding number, register number, or the constant's value
  };
  struct NodeSpec {
    bool cpu = false;
    uint32_t handler = 0, flags = 0, first = 0, count = 0;
    std::vector<uint32_t> args, after;                           // value ids, node indices
    std::optional<uint32_t> result;                              // value id
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> ops; // (op word without registers, [rd, rs, rt|imm])
  };
  void layout() const;
  Node check_after(const std::vector<Node>& after) const;
  uint32_t req_, deadline_us_, max_runs_;
  bool keep_;
  std::vector<std::string> bindings_;
  std::vector<Slot> values_;
  std::vector<NodeSpec> nodes_;
  mutable std::vector<uint32_t> registers_; // value id -> register (layout(), at each use)
  mutable uint32_t used_registers_ = 0, binding_words_ = 0;
};

// An upload in the region (spec: Upload(offset, bytes, kind, req, keep, state)).
struct Upload {
  uint32_t offset = 0, bytes = 0;
  std::string kind; // "stream" or "graph"
  uint32_t req = 0;
  bool keep = false;
  std::string state;                  // "loaded", "running", "kept", "released"
  std::shared_ptr<const Graph> graph; // for bindings by name (an upload of a Graph)
};

struct EngineEvent {
  std::string kind; // "event", "round", "end", "error"
  uint32_t value = 0;
  std::pair<uint32_t, uint32_t> registers{0, 0}; // end of a graph: register 0's low 24 bits, register 1
  uint32_t reason = 0;                           // error: KM_STREAM_ERROR_*
  std::string reason_name;
  std::optional<uint32_t> pc, node; // error: where (a stream's pc, a graph's node)
};

struct EngineHandle {
  std::string kind; // "stream" or "graph"
  uint32_t req = 0;
  std::shared_ptr<Upload> upload;
  std::vector<EngineEvent> events; // every event so far
  std::optional<EngineEvent> end;  // its end or error event
  bool unknown = false;            // a RUN not answered in time: the engine may run
  uint32_t run_tag = 0;            // the RUN's (for what cancel learns)
  uint32_t binding_line = 0;       // offset + 1 of its binding line, freed at the end (0: none)
};

struct HostfedCommand {
  uint32_t node = 0; // the graph's node, or the stream's pc of the SUBMIT or ENQUEUE
  uint32_t handler = 0, first = 0, count = 0;
  std::vector<uint32_t> args;
  uint64_t handle = 0;
  uint32_t result = 0;
};

struct HostfedResult {
  std::string status;               // "end" or "error"
  std::optional<std::string> error; // the error's reason_name
  std::vector<uint32_t> registers;  // all 16
  uint32_t runs = 0;                // rounds (a stream: 1)
  std::vector<HostfedCommand> commands;
  std::vector<EngineEvent> events;
};

// KM_STREAM_ERROR_* -> "cancelled", ... ("unknown" otherwise).
const char* engine_error_name(uint32_t reason);

} // namespace tessel::dispatch
