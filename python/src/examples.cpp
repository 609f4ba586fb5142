// The C++ examples (examples/), runnable from Python: `python -m tessel run`.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "example.hpp"
#include "tessel/error.hpp"
#include "tessel/timing.hpp"

namespace tessel::python {

void bind_examples(nb::module_& top) {
  nb::module_ m = top.def_submodule("examples");
  m.def("names", [] {
    std::vector<std::tuple<std::string, std::string>> out;
    for (const auto& e : examples::all_examples())
      out.emplace_back(e.name, e.description);
    return out;
  });
  // (passed, summary, run seconds, compile seconds)
  m.def("run", [](const std::string& name, const std::string& arch, uint32_t gx, uint32_t gy, const std::string& policy,
                  uint32_t size, const std::string& format, const std::string& op) {
    const examples::Example* e = examples::find_example(name);
    if (!e) {
      std::string known;
      for (const auto& x : examples::all_examples())
        known += std::string(known.empty() ? "" : ", ") + x.name;
      throw ValidationError("no example named '" + name + "'; the examples are " + known);
    }
    examples::RunOptions o{arch, gx, gy, policy, size, format, op, ""};
    const examples::RunResult r = blocking([&] { return e->run(o); });
    return std::make_tuple(r.passed, r.summary, r.seconds, r.compile_seconds);
  });
  // The estimate of every timed run of the process (`run --timing`), as the CLI prints it.
  m.def("timing_report", [] { return format_timing_report(process_timing()); });
}

} // namespace tessel::python
