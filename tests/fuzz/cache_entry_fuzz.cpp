// libFuzzer target: the kernel cache's entry check (jit/entry_record.hpp),
// what a disk lookup decides from an entry's key.txt, deps.txt and kernel.so
// before it loads anything.
//
// Input: the front key, then each file after a marker line of its own
// (a file whose marker is absent is missing; markers may come in any order,
// a later copy wins):
//   <front key text>
//   === key.txt
//   <key.txt>
//   === deps.txt
//   <deps.txt>
//   === kernel.so
//   <kernel.so bytes>
// Headers hash, "now", to 32 copies of the hex digit of their path's length
// modulo 16, except paths containing "unreadable", which cannot be read; so
// a seed can spell a matching record by hand.
//
// check_entry answers with an EntryState and throws nothing; a tessel::Error
// would still be an answer (the cache would report it), not a finding. Any
// other exception, a crash or a sanitizer report is a finding, and so is an
// answer that contradicts the record format: anything but Stale only for
// exactly the record a build of these inputs writes, Valid only with
// kernel.so's real hash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jit/cache_key.hpp"
#include "jit/entry_record.hpp"
#include "tessel/error.hpp"

namespace {

using namespace tessel::jit;

constexpr std::string_view kMarkers[] = {"=== key.txt\n", "=== deps.txt\n", "=== kernel.so\n"};

struct Input {
  std::string_view front;
  EntryFiles files;
};

// Splits the input at marker lines (a marker starts the input or follows '\n').
Input split(std::string_view bytes) {
  Input input;
  std::optional<std::string_view>* slots[] = {&input.files.key, &input.files.deps, &input.files.binary};
  std::optional<std::string_view>* current = nullptr; // nullptr: the front
  size_t part_begin = 0;
  auto close_part = [&](size_t end) {
    std::string_view part = bytes.substr(part_begin, end - part_begin);
    if (current == nullptr)
      input.front = part;
    else
      *current = part;
  };
  for (size_t at = 0; at <= bytes.size(); ++at) {
    if (at != 0 && bytes[at - 1] != '\n') continue;
    for (size_t m = 0; m < 3; ++m) {
      if (!bytes.substr(at).starts_with(kMarkers[m])) continue;
      close_part(at);
      current = slots[m];
      part_begin = at + kMarkers[m].size();
      at = part_begin - 1;
      break;
    }
  }
  close_part(bytes.size());
  return input;
}

std::optional<std::string> header_hash_now(const std::string& path) {
  if (path.find("unreadable") != std::string::npos) return std::nullopt;
  return std::string(kContentHashDigits, "0123456789abcdef"[path.size() % 16]);
}

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "cache_entry_fuzz: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input input = split(std::string_view(reinterpret_cast<const char*>(data), size));
  size_t hashed = 0;
  EntryState state = EntryState::Stale;
  try {
    state = check_entry(input.files, input.front, [&](const std::string& path) {
      ++hashed;
      return header_hash_now(path);
    });
  } catch (const tessel::Error&) {
    return 0;
  }
  if (state == EntryState::Stale) return 0;

  // Anything but Stale says the record matched: it must be exactly what a
  // build writes for this front key, these headers and some binary hash.
  if (!input.files.key || !input.files.deps) finding("a missing key.txt or deps.txt was not Stale");
  std::optional<std::vector<std::string>> paths = parse_dependencies_text(*input.files.deps);
  if (!paths) finding("a malformed deps.txt was not Stale");
  if (hashed != paths->size()) finding("not every header was hashed exactly once");
  std::vector<Dependency> current;
  for (const std::string& path : *paths)
    current.push_back({path, *header_hash_now(path)});
  std::string_view key = *input.files.key;
  std::string_view recorded = key.substr(key.size() - kContentHashDigits - 1, kContentHashDigits);
  if (entry_record_text(input.front, dependencies_text(current), recorded) != key)
    finding("a record other than the one a build writes was accepted");
  switch (state) {
  case EntryState::Valid:
    if (!input.files.binary || content_hash(*input.files.binary) != recorded) finding("Valid with another binary");
    break;
  case EntryState::BinaryMissing:
    if (input.files.binary) finding("BinaryMissing with a binary");
    break;
  case EntryState::BinaryDamaged:
    if (!input.files.binary || content_hash(*input.files.binary) == recorded) finding("BinaryDamaged on a match");
    break;
  case EntryState::Stale: break;
  }
  return 0;
}
