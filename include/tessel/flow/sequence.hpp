// Sequence: a runtime sequence body, recorded once at resolve time as a
// command stream the card runs in order on every call (spec: Runtime, fill,
// drain, TaskGroup, Buffer RTPs, WorkerRuntimeBarrier, DispatchTime).
//
// Registers hold the call's values: the first `parameters` registers are the
// DispatchTime scalars of the call, the rest loop counters. Values the stream
// computes are affine in the registers (Expr), so one recorded stream serves
// every dispatch value without being rebuilt.
//
// Tasks. A Push starts a task instance and names it by a slot; Await and
// Free act on the instance a slot holds; Copy moves an instance between slots
// (a Task carried through a range_ loop). Descriptors are taken at Push and
// given back only at Free.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessel::flow {

// constant + sum(coefficient * register).
struct Expr {
  int64_t constant = 0;
  std::vector<std::pair<uint32_t, int64_t>> terms; // (register, coefficient)
};

enum class OpKind : uint8_t {
  Push,       // start a fill or drain task on a host channel
  Await,      // wait for the task in a slot (it was pushed with wait)
  Free,       // give its descriptor back
  Copy,       // slot a = slot b
  WriteRtp,   // a word of an RTP buffer
  SetBarrier, // a worker's barrier lock = value (0..63)
  LoopBegin,  // register a from 0, ceil(value / step) times; past the matching LoopEnd when done
  LoopEnd,    // back to the matching LoopBegin
};

struct Op {
  OpKind kind = OpKind::Push;
  uint32_t line = 0;  // sequence-body line, for reports
  uint32_t a = 0;     // Push/Await/Free/Copy: slot; WriteRtp: worker; SetBarrier: worker; Loop*: register
  uint32_t b = 0;     // Push: channel; Copy: source slot; WriteRtp: rtp; SetBarrier: barrier; LoopBegin: LoopEnd's index; LoopEnd: LoopBegin's index
  uint32_t c = 0;     // Push: host buffer (arg); WriteRtp: word index; LoopBegin: step (0 = 1)
  bool wait = false;  // Push: a completion token is wanted (Await allowed)
  Expr value;         // Push: offset (elements); WriteRtp/SetBarrier: value; LoopBegin: stop - start
  uint32_t sizes[4] = {1, 1, 1, 1};   // Push: the access pattern, outermost first
  uint32_t strides[4] = {0, 0, 0, 0}; // in elements
};

struct Sequence {
  std::vector<Op> ops;
  uint32_t parameters = 0; // DispatchTime registers (0..parameters-1)
  uint32_t registers = 0;  // all registers
  uint32_t slots = 0;      // task slots
  std::vector<std::string> parameter_names;
  std::string file;        // the body's source file, for reports
};

} // namespace tessel::flow
