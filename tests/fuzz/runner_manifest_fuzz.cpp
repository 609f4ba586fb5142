// libFuzzer target: the emitted-runner manifest reader
// (resources/runner_manifest.hpp) on arbitrary bytes, as Runner::load would
// hand it a manifest.txt.
//
// A ValidationError (any tessel::Error) is a normal outcome. Findings are
// crashes, sanitizer reports, hangs, any other exception (it escapes and
// aborts), a ValidationError that does not start "<manifest path>:<line>: "
// with a line of the input, and a broken round trip: an Operation read from
// any manifest must be written by manifest_text (what emit_runner writes) as
// a text that reads back to the same text.
//
// Kernel files whose name starts with "absent" do not exist, so the
// missing-file rule is reachable; every other name does.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "resources/runner_manifest.hpp"
#include "tessel/error.hpp"

namespace {

namespace fs = std::filesystem;
using tessel::resources::ManifestOrigin;

const ManifestOrigin& origin() {
  static const ManifestOrigin value{"/fuzz/runner/manifest.txt", "/fuzz/runner", [](const fs::path& file) {
                                      return !file.filename().string().starts_with("absent");
                                    }};
  return value;
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "runner_manifest_fuzz: %s\n", what.c_str());
  std::abort();
}

// Lines as the reader counts them (std::getline), at least 1.
size_t line_count(std::string_view text) {
  size_t lines = 0;
  for (char c : text)
    lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  return lines == 0 ? 1 : lines;
}

// "<manifest path>:<line>: <what>" with 1 <= line <= line_count(text).
void check_message(std::string_view message, std::string_view text) {
  std::string_view prefix = origin().manifest_path;
  if (!message.starts_with(prefix) || message.substr(prefix.size(), 1) != ":")
    finding("a rejection that does not name the manifest: " + std::string(message));
  size_t at = prefix.size() + 1, line = 0, digits = 0;
  for (; at < message.size() && message[at] >= '0' && message[at] <= '9' && digits < 12; ++at, ++digits)
    line = line * 10 + size_t(message[at] - '0');
  if (digits == 0 || message.substr(at, 2) != ": " || line == 0 || line > line_count(text))
    finding("a rejection without a line of the input: " + std::string(message));
}

[[noreturn]] void round_trip_broken(const std::string& what, const std::string& first, const std::string& second) {
  std::fprintf(stderr, "runner_manifest_fuzz: %s\n--- manifest_text of the input:\n%s\n--- then:\n%s\n", what.c_str(),
               first.c_str(), second.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<tessel::Operation> op;
  try {
    op = tessel::resources::operation_from_manifest(text, origin());
  } catch (const tessel::ValidationError& error) {
    check_message(error.what(), text);
    return 0; // rejected, with a message: the reader's normal answer
  } catch (const tessel::Error&) {
    return 0;
  }
  const std::string written = tessel::resources::manifest_text(*op);
  std::unique_ptr<tessel::Operation> again;
  try {
    again = tessel::resources::operation_from_manifest(written, origin());
  } catch (const tessel::Error& error) {
    round_trip_broken(std::string("the written manifest does not load: ") + error.what(), written, "");
  }
  const std::string rewritten = tessel::resources::manifest_text(*again);
  if (rewritten != written) round_trip_broken("the written manifest reads back differently", written, rewritten);
  return 0;
}
