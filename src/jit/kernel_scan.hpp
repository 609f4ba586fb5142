// The text a kernel's own code is made of: its source and every header of
// its own it includes, followed through `#include` lines. Some compile-time
// inputs reach a kernel only when its code names them (the CBs' tile sizes
// and formats, the C++ standard headers, SFPI), and a kernel often names
// them in a helper header beside it rather than in its own file.
//
// A header is the kernel's own when it is found in the including file's
// directory (for "..." includes) or in one of the request's include
// directories, and not in tessel's kernel API directory, which the compiler
// searches first. Conditional compilation is not evaluated: a header
// included under a false #if still counts, so a kernel may receive an input
// it does not use. Includes spelled through a macro are not followed, and
// the walk stops after 512 headers.
//
// Cache key: the decisions made from this text become compiler flags, which
// are in the front key; the headers read are in the compiler's depfile, so
// an edit that changes a decision changes the front key, and any other edit
// changes the dependency hashes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessel::jit {

// `source` (the kernel file's text, which lives in `source_dir`) followed by
// the text of every local header it reaches, each once.
std::string kernel_own_text(std::string_view source, const std::string& source_dir,
                            const std::vector<std::string>& include_dirs, const std::string& api_include_dir);

} // namespace tessel::jit
