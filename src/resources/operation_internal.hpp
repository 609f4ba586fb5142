// What the operation's files share (src/resources/): selector comparisons,
// the state behind a Kernel handle, and the validation messages' spelling.
// Internal to the resources layer.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessel/operation.hpp"
#include "tessel/runtime_resources.hpp"

namespace tessel {

struct Kernel::State {
  KernelKind kind;
  std::string name;
  std::weak_ptr<int> operation; // the operation that declared it
  std::string operation_name;
};

} // namespace tessel

namespace tessel::resources {

// Whether two selectors name the same logical kernel (the same kind, or the same handle).
bool same(const KernelSelector& a, const KernelSelector& b);
KernelKind kind_of(const KernelSelector& k);

// Throws ValidationError("Operation '<op>': runtime resources: <what>").
[[noreturn]] void invalid(const std::string& op, const std::string& what);

// Writes a key as 32-bit words into `words` (whose capacity the caller
// reuses): length-prefixed fields, so no two different sequences of fields
// write the same words. Every write is an inline vector append, so keying a
// run costs no call per field.
struct KeyWriter {
  std::vector<uint32_t>& words;

  void u32(uint32_t v) { words.push_back(v); }
  // The length, then the bytes, zero-padded to a whole word.
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    const size_t at = words.size();
    words.resize(at + (s.size() + 3) / 4);
    if (!s.empty()) std::memcpy(words.data() + at, s.data(), s.size());
  }
  void cores(const CoreRangeSet& set) {
    u32(uint32_t(set.ranges().size()));
    for (const CoreRange& r : set.ranges())
      u32(r.start_coord.x), u32(r.start_coord.y), u32(r.end_coord.x), u32(r.end_coord.y);
  }
  std::string_view bytes() const { return {reinterpret_cast<const char*>(words.data()), words.size() * 4}; }
};

} // namespace tessel::resources
