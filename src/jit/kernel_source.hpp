// The file a kernel compiler is given for a build request: the request's
// source file itself, or, for a kernel given as text, a content-addressed
// copy under the cache root (`<root>/sources/<hash>/<display name>`),
// compiled from its directory so that __FILE__ and compiler messages show
// the display name. The host JIT (kernel_cache.cpp) and the RISC-V size
// estimate (cross_build.cpp) share these files.
#pragma once

#include "jit/kernel_build.hpp"

#include <string>
#include <vector>

namespace tessel::jit {

struct PreparedSource {
  std::string name;               // for messages
  std::string compiled_path;      // absolute
  std::string source_arg;         // as passed to the compiler
  std::string working_dir;        // the compiler's working directory; empty: inherit
  std::string hash;               // content_hash of the source
  std::vector<std::string> flags; // request_flags() of the request and this source
};

// Reads the source (or writes a text kernel's file, when it differs) and the
// headers of its own it includes (kernel_scan.hpp), whose names decide some
// flags; api_include_dir is tessel's kernel API directory.
// Throws tessel::ProgramError if the source cannot be read.
PreparedSource prepare_kernel_source(const BuildRequest& request, const std::string& cache_root,
                                     const std::string& api_include_dir);

} // namespace tessel::jit
