#include "compile_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "tessel/tessel.hpp"

namespace tessel::tools {
namespace {

// A compute kernel names the compute API or Metalium's compute entry point.
bool looks_like_compute(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  for (const char* mark : {"namespace NAMESPACE", "void MAIN", "compute_kernel_api", "api/compute/"})
    if (source.find(mark) != std::string::npos) return true;
  return path.find("/compute/") != std::string::npos;
}

uint32_t parse_word(const std::string& text, const std::string& what) {
  size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value > 0xFFFFFFFFull)
    throw ValidationError("compile " + what + ": '" + text + "' is not a 32-bit unsigned number");
  return uint32_t(value);
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& what,
                                                     bool value_required) {
  const size_t eq = text.find('=');
  if (eq == 0 || (value_required && eq == std::string::npos))
    throw ValidationError("compile " + what + ": '" + text + "' is not of the form NAME=VALUE");
  if (eq == std::string::npos) return {text, ""};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream ss(list);
  std::string name;
  while (std::getline(ss, name, ','))
    names.push_back(name);
  return names;
}

std::optional<KernelBindings> bindings_of(const CompileOptions& o) {
  if (!o.bound && o.runtime_args.empty() && o.common_runtime_args.empty() && o.dataflow_buffers.empty() &&
      o.semaphores.empty() && o.tensors.empty() && o.scratchpads.empty())
    return std::nullopt;
  KernelBindings b;
  b.runtime_args = split_names(o.runtime_args);
  b.common_runtime_args = split_names(o.common_runtime_args);
  for (const std::string& d : o.dataflow_buffers) {
    auto [name, index] = split_assignment(d, "--dfb", true);
    b.dataflow_buffers[name] = parse_word(index, "--dfb " + name);
  }
  for (const std::string& d : o.semaphores) {
    auto [name, id] = split_assignment(d, "--sem", true);
    b.semaphores[name] = parse_word(id, "--sem " + name);
  }
  for (const std::string& d : o.tensors) {
    auto [name, offset] = split_assignment(d, "--tensor", true);
    b.tensors.push_back({name, parse_word(offset, "--tensor " + name)});
  }
  for (const std::string& d : o.scratchpads) {
    auto [name, value] = split_assignment(d, "--scratch", true);
    const size_t colon = value.find(':');
    KernelBindings::Scratchpad s{name, parse_word(value.substr(0, colon), "--scratch " + name)};
    if (colon != std::string::npos) s.format = parse_data_format(value.substr(colon + 1));
    b.scratchpads.push_back(std::move(s));
  }
  return b;
}

} // namespace

int run_compile(const CompileOptions& o) {
  if (!o.kind.empty() && o.kind != "dm" && o.kind != "compute")
    throw ValidationError("compile --kind '" + o.kind + "' is not valid: expected dm or compute");
  Defines defines;
  for (const std::string& d : o.defines)
    defines.insert_or_assign(split_assignment(d, "-D", false).first, split_assignment(d, "-D", false).second);
  std::vector<uint32_t> compile_args;
  if (!o.compile_args.empty()) {
    std::stringstream ss(o.compile_args);
    std::string word;
    while (std::getline(ss, word, ','))
      compile_args.push_back(parse_word(word, "--ct-args"));
  }
  NamedCompileArgs named;
  for (const std::string& n : o.named_args) {
    auto [name, value] = split_assignment(n, "--named", true);
    named[name] = parse_word(value, "--named " + name);
  }
  std::vector<std::string> include_dirs;
  for (const std::string& dir : o.include_dirs)
    include_dirs.push_back(std::filesystem::absolute(dir).string());

  auto device = Device::open({.arch = o.arch, .grid_x = 1, .grid_y = 1});
  const CoreRangeSet core(CoreRange{{0, 0}, {0, 0}});
  Program program;
  // A later --cb overrides an earlier one for its index (all=, then 3=).
  std::map<uint32_t, DataFormat> cb_formats;
  for (const std::string& cb : o.cbs) {
    auto [index, format_name] = split_assignment(cb, "--cb", true);
    const DataFormat format = parse_data_format(format_name);
    uint32_t first = 0, last = device->num_cb_indices() - 1;
    if (index != "all") {
      first = last = parse_word(index, "--cb");
      if (first >= device->num_cb_indices())
        throw ValidationError("compile --cb " + index + ": the CB index must be below " +
                              std::to_string(device->num_cb_indices()));
    }
    for (uint32_t i = first; i <= last; ++i)
      cb_formats[i] = format;
  }
  for (const auto& [index, format] : cb_formats)
    program.add_circular_buffer(core, CircularBufferConfig(2 * tile_size(format), {{uint8_t(index), format}})
                                          .set_page_size(uint8_t(index), tile_size(format)));
  const bool compute = o.kind.empty() ? looks_like_compute(o.kernel) : o.kind == "compute";
  if (compute) {
    ComputeConfig c;
    c.fp32_dest_acc_en = o.fp32_dest_acc;
    c.defines = defines;
    c.compile_args = compile_args;
    c.named_compile_args = named;
    c.include_dirs = include_dirs;
    c.bindings = bindings_of(o);
    program.add_kernel(o.kernel, core, c);
  } else {
    DataMovementConfig c;
    c.defines = defines;
    c.compile_args = compile_args;
    c.named_compile_args = named;
    c.include_dirs = include_dirs;
    c.bindings = bindings_of(o);
    program.add_kernel(o.kernel, core, c);
  }
  device->command_queue().compile_program(program);
  std::printf("%s: compiled (%s, %s)\n", o.kernel.c_str(), compute ? "compute" : "data movement", o.arch.c_str());
  return 0;
}

} // namespace tessel::tools
