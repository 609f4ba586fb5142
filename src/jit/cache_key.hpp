// What identifies a kernel build: request validation, the in-process memo
// key, the compiler flags a request turns into, and the text of the on-disk
// cache key.
//
// The on-disk key has two parts:
//  - the front: everything known before compiling (compiler identity, kernel
//    ABI, include dir, flags, kind, opt level, defines, compile-time args,
//    source name and content hash). Its hash names the cache directory.
//  - the dependencies: every header in the compiler's depfile with its
//    content hash (the same text is stored as deps.txt).
// key.txt holds front + dependencies + the hash of kernel.so
// (entry_record.hpp); a hit requires the whole text to match what the
// current files hash to.
#pragma once

#include "jit/kernel_build.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::jit {

// kContentHashDigits lower-case hex digits (XXH3-128) of some content.
inline constexpr size_t kContentHashDigits = 32;
std::string content_hash(std::string_view bytes);
// 16 hex digits (XXH3-64); names directories only, never decides a hit.
std::string short_hash(std::string_view bytes);

// Throws tessel::ValidationError for a malformed request (both or neither
// source set, opt level out of range, define or named-argument names that
// cannot be passed to the compiler).
void validate_request(const BuildRequest& request);

// Optimisation levels by number (BuildRequest::opt_level): 0..3 are -O0..-O3,
// then the size and speed levels silicon builds also take.
inline constexpr std::string_view kOptLevelNames[] = {"O0", "O1", "O2", "O3", "Os", "Ofast", "Oz"};

// The request's level, its kind's default (O2 data movement, O3 compute) for -1.
int effective_opt_level(const BuildRequest& request);
// "O0".."Oz" for 0..6 ("?" otherwise); the number of a name, -1 if it is none.
std::string_view opt_level_name(int level);
int opt_level_of_name(std::string_view name);
// The compiler flag of the request's effective level ("-O2", "-Os", ...).
std::string opt_flag(const BuildRequest& request);
// Name of the kernel in messages: the source path, or the display name of a
// source_text kernel ("kernel.cpp" when it has none).
std::string source_name(const BuildRequest& request);
// Relative file name a source_text kernel is written to and compiled as.
std::string text_source_file_name(const BuildRequest& request);
// Absolute, lexically normal form of a source path (no system call when the
// path is already absolute and normal).
std::string absolute_source_path(const std::string& path);

// Identity of a request for the in-process memo, computed without touching
// the file system: source path (not content) or source text hash, plus every
// compile-time input.
std::string memo_key(const BuildRequest& request);

// -O, -D and compile-time argument flags of a request whose kernel's own
// text (kernel_scan.hpp) is `source` (what the kernel names decides some
// defines: cache_key.cpp).
std::vector<std::string> request_flags(const BuildRequest& request, std::string_view source);

struct FrontKeyInputs {
  std::string compiler_path;
  std::string compiler_identity;
  std::string include_dir;
  std::vector<std::string> fixed_flags;
  std::string compiled_source_path;       // the file handed to the compiler
  std::string source_hash;                // content_hash of that file
  std::vector<std::string> request_flags; // request_flags() of the request and that file
};
std::string front_key_text(const BuildRequest& request, const FrontKeyInputs& inputs);

struct Dependency {
  std::string path;
  std::string hash; // content_hash
};
// deps.txt: one "<hash> <path>" line per dependency, in depfile order.
std::string dependencies_text(const std::vector<Dependency>& dependencies);
// Paths listed in a deps.txt; nullopt if it is malformed.
std::optional<std::vector<std::string>> parse_dependencies_text(std::string_view text);

} // namespace tessel::jit
