// The commit record of an on-disk kernel cache entry (key.txt) and the check
// a disk lookup makes of an entry's files before it loads its kernel.so.
//
// key.txt, in order:
//   the front key (cache_key.hpp)
//   "dependencies:\n" and the deps.txt text: "<hash> <path>\n" per header
//   "binary-hash: <content_hash of kernel.so>\n"
// It is written last (D2 in kernel_cache.cpp), so it vouches for the
// kernel.so and deps.txt beside it: an entry is valid when key.txt is the
// record of the request's front key with every header as it is now, and
// kernel.so's bytes hash to the recorded value.
//
// The check is pure: it takes the files' bytes and a function that hashes a
// header as it is now, and reads nothing itself, so the fuzz target
// (tests/fuzz/cache_entry_fuzz.cpp) can drive it with any bytes. It throws
// nothing for any input.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tessel::jit {

// key.txt for a front key, a deps.txt text and the content_hash of kernel.so.
std::string entry_record_text(std::string_view front, std::string_view dependencies, std::string_view binary_hash);

// An entry's files as read from disk; nullopt when missing or unreadable.
struct EntryFiles {
  std::optional<std::string_view> key;    // key.txt
  std::optional<std::string_view> deps;   // deps.txt
  std::optional<std::string_view> binary; // kernel.so
};

enum class EntryState {
  Valid,         // key.txt records this front key, every header as it is now, and kernel.so's hash
  Stale,         // no record, a malformed one, or one for other inputs (e.g. another header version)
  BinaryMissing, // a matching record, but no kernel.so
  BinaryDamaged, // a matching record, but kernel.so's bytes do not hash to the recorded value
};

// The content_hash of a header as it is now, or nullopt if it cannot be read.
using DependencyHasher = std::function<std::optional<std::string>(const std::string& path)>;

// Calls `current_hash` once per header deps.txt lists, in order, and only
// once key.txt starts with `front` and ends with a well-formed hash line.
EntryState check_entry(const EntryFiles& files, std::string_view front, const DependencyHasher& current_hash);

} // namespace tessel::jit
