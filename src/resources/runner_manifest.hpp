// An emitted runner's manifest (the format is documented in
// include/tessel/runner.hpp): the text of an Operation, and the Operation of
// a text. Internal to the resources layer: emit_runner writes manifest_text and
// the kernel files; Runner::load reads the file and calls
// operation_from_manifest.
//
// Neither touches a file. The one file-system question a manifest asks,
// whether each kernel file exists, goes through ManifestOrigin, so the same
// code serves Runner::load and the fuzz target (tests/fuzz/), which feeds it
// arbitrary bytes. Every rejection is a ValidationError
// "<manifest_path>:<line>: what; expected ..."; nothing else is thrown for
// any input.
//
// Round trip: for an Operation read from any manifest, manifest_text reads
// back to an Operation with the same text.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "resources/operation_internal.hpp"
#include "tessel/operation.hpp"

namespace tessel::resources {

// Spellings the manifest's writer (emit_runner) and reader share.
// A manifest <string>: double-quoted, with \\ \" \n \t escaped.
std::string quote_string(const std::string& s);
// The same escapes without the quotes (for comments: no raw newline).
std::string escape_string(const std::string& s);
// "kernel 0 (Kernel 'sender' (DataMovement))"
std::string kernel_label(size_t i, const KernelSelector& k);

// The file name logical kernel `i` is written to in a runner directory: its
// index, then its captured name (letters, digits, '_'; others become '_') or
// its kind.
std::string kernel_file_name(size_t i, const KernelSelector& k);
// The manifest of `op`, naming kernel i's source kernel_file_name(i, ...).
std::string manifest_text(const Operation& op);

// Where a manifest's text came from.
struct ManifestOrigin {
  std::string manifest_path;       // names the file in messages
  std::filesystem::path directory; // kernel files are <directory>/<file name>
  // Whether a kernel file exists (a regular file). Called once per kernel,
  // after that kernel's other rules have passed.
  std::function<bool(const std::filesystem::path& file)> is_kernel_file;
};

// Parses and validates `text` as a manifest, then builds its Operation (path
// kernels naming <directory>/<file name>). Checks everything before building
// anything. Throws ValidationError.
std::unique_ptr<Operation> operation_from_manifest(std::string_view text, const ManifestOrigin& origin);

} // namespace tessel::resources
