#include <cstdlib>

#include "example.hpp"

namespace tessel::examples {

RunResult run_loopback(const RunOptions&);
RunResult run_copy_multi_core(const RunOptions&);

namespace {
const Example kExamples[] = {
    {"loopback", "DRAM -> L1 -> DRAM copy on one core", run_loopback},
    {"copy_multi_core", "reader -> CB -> writer on every core, interleaved DRAM in and out", run_copy_multi_core},
};
} // namespace

std::span<const Example> all_examples() { return kExamples; }

const Example* find_example(const std::string& name) {
  for (const Example& e : kExamples)
    if (name == e.name) return &e;
  return nullptr;
}

std::string kernel_path(const std::string& example, const std::string& file) {
  const char* env = std::getenv("TESSEL_EXAMPLES_DIR");
  std::string dir = env && *env ? env : TESSEL_EXAMPLES_DIR;
  return dir + "/" + example + "/kernels/" + file;
}

} // namespace tessel::examples
