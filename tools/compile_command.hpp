// `tessel compile`: build one kernel as a program would, without running it.
#pragma once

#include <string>
#include <vector>

namespace tessel::tools {

struct CompileOptions {
  std::string kernel; // path, resolved as Program::add_kernel resolves it
  std::string kind;   // "dm", "compute", or empty: from the source
  std::string arch = "blackhole";
  std::vector<std::string> defines;    // NAME or NAME=VALUE
  std::string compile_args;            // comma-separated
  std::vector<std::string> named_args; // NAME=VALUE
  std::vector<std::string> include_dirs;
  std::vector<std::string> cbs; // INDEX=FORMAT or all=FORMAT
  bool fp32_dest_acc = false;
  // Named bindings (Metal 2.0 kernels): any of these, or `bound`, gives the
  // kernel args:: (with --named values as compile-time ones), dfb::, sem::, tensor::, scratch::.
  bool bound = false;
  std::string runtime_args;                  // comma-separated names
  std::string common_runtime_args;           // comma-separated names
  std::vector<std::string> dataflow_buffers; // NAME=CB index
  std::vector<std::string> semaphores;       // NAME=id
  std::vector<std::string> tensors;          // NAME=compile-time args offset
  std::vector<std::string> scratchpads;      // NAME=bytes per core, or NAME=bytes:FORMAT
};

// Builds the kernel; prints "compiled" or throws the build's error.
int run_compile(const CompileOptions& options);

} // namespace tessel::tools
