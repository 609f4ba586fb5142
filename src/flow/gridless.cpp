#include "flow/gridless.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tessel/interrupt.hpp"

namespace tessel::flow {

namespace {
using Clock = std::chrono::steady_clock;
constexpr uint32_t kCheckEvery = 4096; // loop iterations between two looks at the deadline and interrupts
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t add(uint64_t a, uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
uint64_t mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

class GridlessRun {
public:
  GridlessRun(const DesignSpec& s, std::span<const int64_t> parameters, uint64_t call, double timeout_s)
      : s_(s), ops_(s.sequence.ops), registers_(s.sequence.registers, 0), call_(call), timeout_s_(timeout_s),
        // A timeout of centuries is capped at decades: the clock's count must not overflow.
        deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(std::min(timeout_s, 1e9)))) {
    std::copy(parameters.begin(), parameters.end(), registers_.begin());
    uniform_.resize(ops_.size(), false);
    for (size_t pc = 0; pc < ops_.size(); ++pc)
      if (ops_[pc].kind == OpKind::LoopBegin) uniform_[pc] = same_every_iteration(pc);
  }

  uint64_t run() { return ops_in(0, ops_.size()); }

private:
  // The ops executed running ops_[begin, end), a run of whole loops.
  uint64_t ops_in(size_t begin, size_t end) {
    uint64_t total = 0;
    for (size_t pc = begin; pc < end; ++pc) {
      const Op& op = ops_[pc];
      if (op.kind != OpKind::LoopBegin)
        throw FlowError("design '" + s_.name + "': a stream op other than a loop in a design with no grid");
      total = add(add(total, 1), loop_body(pc));
      pc = op.b; // past its LoopEnd
    }
    return total;
  }

  // The ops a loop executes after its LoopBegin: its iterations' bodies and
  // LoopEnds. The counter ends as the card leaves it (0 when the loop does
  // not run, else its trip count).
  uint64_t loop_body(size_t pc) {
    const Op& op = ops_[pc];
    int64_t span = op.value.constant;
    for (const auto& [reg, coeff] : op.value.terms)
      span += coeff * registers_[reg];
    const int64_t step = op.c > 1 ? int64_t(op.c) : 1;
    const int64_t count = span <= 0 ? 0 : (span + step - 1) / step;
    registers_[op.a] = 0;
    if (count == 0) return 0;
    uint64_t total = 0;
    if (uniform_[pc]) {
      total = mul(uint64_t(count), add(ops_in(pc + 1, op.b), 1));
    } else {
      for (int64_t k = 0; k < count; ++k) {
        registers_[op.a] = k;
        total = add(total, add(ops_in(pc + 1, op.b), 1));
        if (++iterations_ % kCheckEvery == 0) check();
      }
    }
    registers_[op.a] = count;
    return total;
  }

  // Whether the loop at pc does the same in every iteration: no loop in its
  // body reads its counter, or the counter of a loop in its body that is
  // not open around the reader (one left over from an earlier iteration).
  bool same_every_iteration(size_t pc) const {
    const Op& loop = ops_[pc];
    std::set<uint32_t> inner, open;
    for (size_t i = pc + 1; i < loop.b; ++i)
      if (ops_[i].kind == OpKind::LoopBegin) inner.insert(ops_[i].a);
    std::vector<uint32_t> stack;
    for (size_t i = pc + 1; i < loop.b; ++i) {
      const Op& op = ops_[i];
      if (op.kind == OpKind::LoopBegin) {
        for (const auto& [reg, coeff] : op.value.terms)
          if (coeff != 0 && (reg == loop.a || (inner.count(reg) && !open.count(reg)))) return false;
        stack.push_back(op.a);
        open.insert(op.a);
      } else if (op.kind == OpKind::LoopEnd && !stack.empty()) {
        open.erase(stack.back());
        stack.pop_back();
      }
    }
    return true;
  }

  void check() const {
    if (interrupt_requested())
      throw Interrupted("design '" + s_.name + "': call " + std::to_string(call_) + " interrupted");
    if (Clock::now() > deadline_)
      throw FlowError("design '" + s_.name + "': call " + std::to_string(call_) + " did not end within " +
                      std::to_string(timeout_s_) + " s; its sequence's loops, run on the host (the design has " +
                      "nothing on its grid), were stopped");
  }

  const DesignSpec& s_;
  const std::vector<Op>& ops_;
  std::vector<int64_t> registers_;
  std::vector<bool> uniform_; // per LoopBegin: same_every_iteration
  uint64_t call_, iterations_ = 0;
  double timeout_s_;
  Clock::time_point deadline_;
};
} // namespace

CallStats run_gridless(const DesignSpec& s, std::span<const int64_t> parameters, uint64_t call, double timeout_s) {
  CallStats stats;
  stats.ops = GridlessRun(s, parameters, call, timeout_s).run();
  return stats;
}

} // namespace tessel::flow
