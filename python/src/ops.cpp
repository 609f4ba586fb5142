// tessel.ops' view of the compute engine: the element-wise ops it implements,
// by the names of their compute-API calls, so that the op table
// (python/tessel/op_table.py) can be checked against the engine.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>
#include <utility>

#include "bindings.hpp"
#include "sim/sfpu.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::python {

namespace {

// The FPU's element-wise binary ops (enum tessel_binary_op, which has no
// count) with the calls that issue them (kernel/include/tessel/compute.h).
constexpr std::pair<tessel_binary_op, const char*> kFpuBinary[] = {
    {TESSEL_BINARY_ADD, "add_tiles"}, {TESSEL_BINARY_SUB, "sub_tiles"}, {TESSEL_BINARY_MUL, "mul_tiles"}};

} // namespace

void bind_ops(nb::module_& top) {
  nb::module_ m = top.def_submodule("ops");
  // (call, engine, arity) for every element-wise op: the SFPU's unary and
  // binary ops by the engine's own names (sim/sfpu.cpp), then the FPU's.
  m.def("engine_ops", [] {
    std::vector<std::tuple<std::string, std::string, int>> out;
    for (uint32_t op = 0; op < TESSEL_SFPU_OP_COUNT; ++op)
      out.emplace_back(sim::sfpu_name(op), "SFPU", 1);
    for (uint32_t op = 0; op < TESSEL_SFPU_BINARY_OP_COUNT; ++op)
      out.emplace_back(sim::sfpu_binary_name(op), "SFPU", 2);
    for (const auto& [op, call] : kFpuBinary)
      out.emplace_back(call, "FPU", 2);
    return out;
  });
}

} // namespace tessel::python
