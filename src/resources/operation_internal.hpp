// What the operation's files share (src/resources/): selector comparisons,
// the state behind a Kernel handle, and the validation messages' spelling.
// Internal to the resources layer.
#pragma once

#include <memory>
#include <string>

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

} // namespace tessel::resources
