// A design with nothing on its grid runs its stream (loops only) on the
// host: it counts the ops the card would execute without iterating loops
// that do the same every iteration, and a loop it must iterate ends at the
// call's deadline or at an interrupt request, as a gridded call does.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>

#include "tessel/flow/loaded_design.hpp"
#include "tessel/interrupt.hpp"

namespace tf = tessel::flow;

namespace {

constexpr uint32_t kBytes = 64;

std::shared_ptr<tessel::Device> open_device() {
  tessel::DeviceConfig c;
  c.grid_x = 2;
  c.grid_y = 2;
  return tessel::Device::open(c);
}

// A loop on register `reg` over `span` with `step`, around `body`.
std::vector<tf::Op> loop(uint32_t reg, tf::Expr span, std::vector<tf::Op> body, uint32_t step = 1) {
  tf::Op begin;
  begin.kind = tf::OpKind::LoopBegin, begin.a = reg, begin.c = step, begin.line = 7;
  begin.value = std::move(span);
  tf::Op end;
  end.kind = tf::OpKind::LoopEnd, end.a = reg, end.line = 7;
  std::vector<tf::Op> ops{begin};
  ops.insert(ops.end(), body.begin(), body.end());
  ops.push_back(end);
  return ops;
}

std::vector<tf::Op> then(std::vector<tf::Op> a, const std::vector<tf::Op>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The spec of a gridless design over `parameters` DispatchTime values and
// `registers` registers in all; the loops' begin/end indices are fixed up.
tf::DesignSpec gridless(uint32_t parameters, uint32_t registers, std::vector<tf::Op> ops) {
  std::vector<size_t> open;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == tf::OpKind::LoopBegin) {
      open.push_back(i);
    } else if (ops[i].kind == tf::OpKind::LoopEnd) {
      ops[i].b = uint32_t(open.back());
      ops[open.back()].b = uint32_t(i);
      open.pop_back();
    }
  }
  tf::DesignSpec s;
  s.name = "gridless";
  s.args = {{"a", kBytes, 1}};
  s.sequence.parameters = parameters;
  s.sequence.registers = registers;
  for (uint32_t p = 0; p < parameters; ++p)
    s.sequence.parameter_names.push_back("p" + std::to_string(p));
  s.sequence.ops = std::move(ops);
  return s;
}

// The card's own walk of a loops-only stream, one op at a time: the ops it executes.
uint64_t walked_ops(const tf::DesignSpec& s, std::vector<int64_t> parameters) {
  const auto& ops = s.sequence.ops;
  std::vector<int64_t> registers(s.sequence.registers, 0), counts(ops.size(), 0);
  std::copy(parameters.begin(), parameters.end(), registers.begin());
  uint64_t executed = 0;
  for (size_t pc = 0; pc < ops.size(); ++pc, ++executed) {
    const tf::Op& op = ops[pc];
    if (op.kind == tf::OpKind::LoopBegin) {
      int64_t span = op.value.constant;
      for (const auto& [reg, coeff] : op.value.terms)
        span += coeff * registers[reg];
      const int64_t step = op.c > 1 ? int64_t(op.c) : 1;
      registers[op.a] = 0;
      counts[pc] = span <= 0 ? 0 : (span + step - 1) / step;
      if (counts[pc] == 0) pc = op.b;
    } else if (++registers[op.a] < counts[op.b]) {
      pc = op.b;
    }
  }
  return executed;
}

tf::CallStats call(tf::LoadedDesign& d, std::vector<int64_t> parameters, double timeout_s = 60.0) {
  std::vector<uint8_t> a(kBytes);
  const tf::HostSpan spans[] = {{a.data(), a.size()}};
  return d.call(spans, parameters, timeout_s);
}

// for i in range_(p0): for j in range_(i, p0): the inner loop's span reads
// the outer counter, so the outer loop iterates.
tf::DesignSpec triangle() { return gridless(1, 3, loop(1, {0, {{0, 1}}}, loop(2, {0, {{0, 1}, {1, -1}}}, {}))); }

struct InterruptCleared {
  ~InterruptCleared() { tessel::clear_interrupt(); }
};

} // namespace

TEST(Gridless, NestedLoopsOverLargeDispatchValuesEndAtOnce) {
  auto device = open_device();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  // for _ in range_(bar): for _ in range_(0, baz, step)
  for (uint32_t step : {1u, 3u}) {
    auto design =
        tf::LoadedDesign::load(device, gridless(2, 4, loop(2, {0, {{1, 1}}}, loop(3, {0, {{0, 1}}}, {}, step))));
    const auto start = std::chrono::steady_clock::now();
    const tf::CallStats st = call(*design, {kMax, kMax});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << step;
    // LoopBegin once; per outer iteration the inner LoopBegin, its LoopEnds and the outer LoopEnd.
    EXPECT_EQ(st.ops, uint64_t(1 + kMax * (1 + (kMax + step - 1) / step + 1))) << step;
    EXPECT_EQ(call(*design, {5, 4}).ops, walked_ops(design->spec(), {5, 4})) << step;
  }
}

TEST(Gridless, EveryLoopShapeCountsTheOpsTheCardExecutes) {
  auto device = open_device();
  const std::vector<tf::DesignSpec> shapes = {
      triangle(),
      // two loops in a row, the second over the first's counter once it ended
      gridless(1, 3, then(loop(1, {0, {{0, 1}}}, {}), loop(2, {1, {{1, 2}}}, {}))),
      // an inner loop over the counter an inner sibling left from the previous iteration
      gridless(1, 4, loop(1, {0, {{0, 1}}}, then(loop(2, {0, {{3, 1}}}, {}), loop(3, {-1, {{0, 1}}}, {})))),
      // three deep, with steps, the innermost over both outer counters
      gridless(2, 5, loop(2, {0, {{0, 1}}}, loop(3, {1, {{1, 1}}}, loop(4, {0, {{2, 1}, {3, 2}}}, {}, 2), 3))),
      // a loop that never runs around one that would
      gridless(1, 3, loop(1, {-4, {{0, 1}}}, loop(2, {0, {{0, 1}}}, {}))),
  };
  for (size_t shape = 0; shape < shapes.size(); ++shape) {
    auto design = tf::LoadedDesign::load(device, shapes[shape]);
    for (int64_t p0 : {0, 1, 2, 7, 13})
      for (int64_t p1 : {0, 3, 6}) {
        std::vector<int64_t> parameters{p0, p1};
        parameters.resize(shapes[shape].sequence.parameters);
        EXPECT_EQ(call(*design, parameters).ops, walked_ops(shapes[shape], parameters))
            << "shape " << shape << ", p0 " << p0 << ", p1 " << p1;
      }
  }
}

TEST(Gridless, OpsSaturateWhereTheCountPassesUint64) {
  auto device = open_device();
  auto design = tf::LoadedDesign::load(
      device, gridless(1, 4, loop(1, {0, {{0, 1}}}, loop(2, {0, {{0, 1}}}, loop(3, {0, {{0, 1}}}, {})))));
  EXPECT_EQ(call(*design, {int64_t(1) << 40}).ops, std::numeric_limits<uint64_t>::max());
}

TEST(Gridless, ACallPastItsDeadlineIsAFlowErrorAndTheNextCallRuns) {
  auto device = open_device();
  auto design = tf::LoadedDesign::load(device, triangle());
  try {
    call(*design, {int64_t(1) << 40}, 0.05);
    FAIL() << "the call ended";
  } catch (const tf::FlowError& e) {
    EXPECT_EQ(std::string(e.what()), "design 'gridless': call 1 did not end within 0.050000 s; its sequence's loops, "
                                     "run on the host (the design has nothing on its grid), were stopped");
  }
  EXPECT_EQ(call(*design, {4}).ops, walked_ops(design->spec(), {4}));
  EXPECT_EQ(design->calls(), 2u);
}

TEST(Gridless, AnInterruptRequestEndsTheCall) {
  auto device = open_device();
  auto design = tf::LoadedDesign::load(device, triangle());
  {
    InterruptCleared cleared;
    tessel::request_interrupt();
    try {
      call(*design, {int64_t(1) << 40});
      FAIL() << "the call ended";
    } catch (const tessel::Interrupted& e) {
      EXPECT_EQ(std::string(e.what()), "design 'gridless': call 1 interrupted");
    }
  }
  EXPECT_EQ(call(*design, {4}).ops, walked_ops(design->spec(), {4}));
}
