#include "runtime/kernel_bindings.hpp"

#include <set>

#include "tessel/error.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::runtime {
namespace {

bool is_identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Names of one namespace: identifiers, each once.
class Names {
public:
  explicit Names(const char* space) : space_(space) {}
  void add(const std::string& name, const char* what) {
    if (!is_identifier(name))
      throw ValidationError(std::string("kernel bindings: ") + what + " name '" + name +
                            "' is not a C++ identifier (letters, digits and '_', not starting with a digit)");
    if (!seen_.insert(name).second)
      throw ValidationError(std::string("kernel bindings: ") + space_ + "::" + name + " is bound twice (" + what +
                            " and an earlier binding); expected each name once in " + space_ + "::");
  }

private:
  const char* space_;
  std::set<std::string> seen_;
};

} // namespace

std::string kernel_bindings_source(const KernelBindings& b, const NamedCompileArgs& named_compile_args,
                                   const std::vector<uint32_t>& compile_args) {
  std::string out;
  Names args("args");
  out += "namespace args {";
  for (size_t i = 0; i < b.runtime_args.size(); ++i) {
    args.add(b.runtime_args[i], "runtime argument");
    out += " constexpr ::experimental::RtaArg<uint32_t> " + b.runtime_args[i] + "{" + std::to_string(4 * i) + "u};";
  }
  for (size_t i = 0; i < b.common_runtime_args.size(); ++i) {
    args.add(b.common_runtime_args[i], "common runtime argument");
    out += " constexpr ::experimental::CrtaArg<uint32_t> " + b.common_runtime_args[i] + "{" + std::to_string(4 * i) +
           "u};";
  }
  for (const auto& [name, value] : named_compile_args) {
    args.add(name, "named compile-time argument");
    out += " constexpr ::experimental::CtaVal<uint32_t> " + name + "{" + std::to_string(value) + "u};";
  }
  out += " }";

  Names dfbs("dfb");
  out += " namespace dfb {";
  for (const auto& [name, index] : b.dataflow_buffers) {
    dfbs.add(name, "dataflow buffer");
    if (index >= TESSEL_MAX_CBS)
      throw ValidationError("kernel bindings: dataflow buffer '" + name + "' has CB index " + std::to_string(index) +
                            "; expected an index below " + std::to_string(TESSEL_MAX_CBS));
    out += " constexpr ::DFBAccessor " + name + "{" + std::to_string(index) + "};";
  }
  out += " }";

  Names sems("sem");
  out += " namespace sem {";
  for (const auto& [name, id] : b.semaphores) {
    sems.add(name, "semaphore");
    if (id >= TESSEL_MAX_SEMAPHORES)
      throw ValidationError("kernel bindings: semaphore '" + name + "' has id " + std::to_string(id) +
                            "; expected an id below " + std::to_string(TESSEL_MAX_SEMAPHORES));
    out += " constexpr uint32_t " + name + " = " + std::to_string(id) + "u;";
  }
  out += " }";

  Names tensors("tensor");
  out += " namespace tensor {";
  for (size_t i = 0; i < b.tensors.size(); ++i) {
    const KernelBindings::Tensor& t = b.tensors[i];
    tensors.add(t.name, "tensor");
    // The accessor's first two words (flags, page size) must be there; the
    // rest of a sharded one is checked by TensorAccessorArgs when it compiles.
    if (size_t(t.compile_args_offset) + 2 > compile_args.size())
      throw ValidationError("kernel bindings: tensor '" + t.name +
                            "' has its TensorAccessorArgs at compile-time "
                            "argument " +
                            std::to_string(t.compile_args_offset) + ", but the kernel has " +
                            std::to_string(compile_args.size()) +
                            " compile-time arguments; expected the host's TensorAccessorArgs(buffer) appended there");
    const size_t address_word = b.common_runtime_args.size() + i;
    out += " using " + t.name + "_t = ::tensor_accessor::TensorBindingToken<" + std::to_string(t.compile_args_offset) +
           "u, " + std::to_string(4 * address_word) + "u>; constexpr " + t.name + "_t " + t.name + "{};";
  }
  out += " }";
  // The earlier spelling of tensor:: in TT-Metalium's generated bindings.
  out += " namespace ta = tensor;";

  Names scratchpads("scratch");
  out += " namespace scratch {";
  for (size_t j = 0; j < b.scratchpads.size(); ++j) {
    const KernelBindings::Scratchpad& s = b.scratchpads[j];
    scratchpads.add(s.name, "scratchpad");
    if (s.size_bytes == 0)
      throw ValidationError("kernel bindings: scratchpad '" + s.name +
                            "' has a size of 0 bytes; expected its bytes per core, at least 1");
    if (s.format != DataFormat::Invalid && tile_size(s.format) == 0)
      throw ValidationError("kernel bindings: scratchpad '" + s.name + "' has data format " +
                            std::to_string(int(s.format)) + ", which is none; expected a data format or Invalid");
    // Its L1 address: the common runtime argument after the tensors' (a word index).
    const size_t address_word = b.common_runtime_args.size() + b.tensors.size() + j;
    out += " constexpr ::ScratchpadBindingToken " + s.name + "{" + std::to_string(address_word) + "u, " +
           std::to_string(s.size_bytes) + "u, ::binding_details::LLKMetadata{" + std::to_string(int(s.format)) + "u}};";
  }
  out += " }";

  out += " inline uint32_t get_vararg(uint32_t idx, TESSEL_SITE_PARAMS) { return get_arg_val<uint32_t>(" +
         std::to_string(b.runtime_args.size()) + "u + idx, TESSEL_SITE); }";
  out += " inline uint32_t get_common_vararg(uint32_t idx, TESSEL_SITE_PARAMS) { return get_common_arg_val<uint32_t>(" +
         std::to_string(b.common_runtime_args.size() + b.tensors.size() + b.scratchpads.size()) +
         "u + idx, TESSEL_SITE); }";
  return out;
}

} // namespace tessel::runtime
