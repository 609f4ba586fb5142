// Validation of one execution's launch range and runtime resources
// (Operation::validate, include/tessel/operation.hpp): every rule of the
// spec's "Validation and Specialization", each with its own message naming
// the record, kernel, coordinate or id. The checks build no strings and
// allocate nothing unless one fails. The fabric rules are fabric.cpp.
#include <algorithm>
#include <optional>
#include <string>

#include "resources/operation_internal.hpp"
#include "tessel/error.hpp"
#include "tessel/operation.hpp"

namespace tessel {

namespace resources {
[[noreturn]] void invalid(const std::string& op, const std::string& what) {
  throw ValidationError("Operation '" + op + "': runtime resources: " + what);
}
} // namespace resources

using resources::invalid;

namespace {
std::string entry(size_t i) { return "kernel_resources[" + std::to_string(i) + "]"; }
std::string semaphore_at(size_t i, uint32_t id) {
  return "semaphore_descriptors[" + std::to_string(i) + "] (id " + std::to_string(id) + ")";
}
std::string kernel_entry(size_t i, const KernelSelector& k) { return entry(i) + " (" + describe(k) + ")"; }
} // namespace

void Operation::validate_launch(const CoreRangeSet& launch) const {
  if (launch.num_cores() == 0) throw ValidationError("Operation '" + name_ + "': the launch range is empty");
  // The planner gives every launch core to exactly one descriptor per
  // logical kernel; a core in two rectangles would be in one twice.
  const auto& ranges = launch.ranges();
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j)
      if (const std::optional<CoreRange> both = ranges[i].intersection(ranges[j]))
        throw ValidationError("Operation '" + name_ + "': launch range " + launch.str() + ": ranges[" +
                              std::to_string(i) + "] " + ranges[i].str() + " and ranges[" + std::to_string(j) + "] " +
                              ranges[j].str() + " overlap at core " + both->start_coord.str() +
                              "; the rectangles must not overlap: every coordinate must match exactly one descriptor");
}

void Operation::validate(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  validate_launch(launch);
  validate_resources(r, launch);
}

void Operation::validate_resources(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  const uint32_t first_free = first_free_semaphore_id();
  const auto& sems = r.semaphore_descriptors();
  for (size_t i = 0; i < sems.size(); ++i) {
    const SemaphoreDescriptor& s = sems[i];
    if (s.id < first_free)
      invalid(name_, semaphore_at(i, s.id) + ": id is below first_free_semaphore_id " + std::to_string(first_free) +
                         "; ids below it belong to the operation");
    if (s.id >= 16)
      invalid(name_, semaphore_at(i, s.id) + ": id is out of range; a program has at most 16 semaphores (ids 0..15)");
    for (size_t j = 0; j < i; ++j)
      if (sems[j].id == s.id)
        invalid(name_, semaphore_at(i, s.id) + ": id " + std::to_string(s.id) + " is also semaphore_descriptors[" +
                           std::to_string(j) + "]'s; caller semaphore ids must be unique");
    if (s.core_ranges.num_cores() == 0) invalid(name_, semaphore_at(i, s.id) + ": core_ranges is empty");
    if (!launch.contains(s.core_ranges))
      invalid(name_, semaphore_at(i, s.id) + ": core_ranges " + s.core_ranges.str() +
                         " are not inside the operation's worker range " + launch.str());
  }
  // Per-core scratch over the launch range's bounding box: which entry (+1) last set each core.
  uint32_t x0 = ~0u, y0 = ~0u, x1 = 0, y1 = 0;
  for (const CoreRange& cr : launch.ranges()) {
    x0 = std::min(x0, cr.start_coord.x), y0 = std::min(y0, cr.start_coord.y);
    x1 = std::max(x1, cr.end_coord.x), y1 = std::max(y1, cr.end_coord.y);
  }
  const uint32_t width = x1 - x0 + 1;
  seen_.assign(size_t(width) * (y1 - y0 + 1), 0);
  entry_of_.assign(kernels_.size(), -1);
  const auto& entries = r.kernel_resources();
  for (size_t i = 0; i < entries.size(); ++i) {
    const KernelRuntimeResources& kr = entries[i];
    const size_t k = lookup_kernel(kr.kernel());
    if (k == kNoKernel) invalid(name_, entry(i) + ": " + kernel_not_found(kr.kernel()));
    if (entry_of_[k] >= 0)
      invalid(name_, kernel_entry(i, kr.kernel()) + ": the kernel already has resources in " +
                         entry(size_t(entry_of_[k])) + "; give each logical kernel at most one entry");
    entry_of_[k] = int(i);
    const auto& args = kr.runtime_args();
    for (size_t j = 0; j < args.size(); ++j) {
      const CoreCoord c = args[j].core();
      if (!launch.contains(c))
        invalid(name_, kernel_entry(i, kr.kernel()) + ": runtime_args[" + std::to_string(j) + "] at core " + c.str() +
                           " is outside the operation's worker range " + launch.str());
      // A mark holds (entry + 1) << 32 | (element + 1) of the runtime_args that set the core.
      uint64_t& mark = seen_[size_t(c.y - y0) * width + (c.x - x0)];
      if ((mark >> 32) == i + 1)
        invalid(name_, kernel_entry(i, kr.kernel()) + ": runtime_args[" + std::to_string(j) + "] at core " + c.str() +
                           ": the core already has runtime_args[" + std::to_string((mark & 0xffffffffu) - 1) +
                           "]; give each core one vector per logical kernel");
      mark = (uint64_t(i + 1) << 32) | (j + 1);
    }
    const auto& defs = kr.defines();
    for (size_t a = 0; a < defs.size(); ++a) {
      for (size_t b = 0; b < a; ++b)
        if (defs[b].name() == defs[a].name())
          invalid(name_, kernel_entry(i, kr.kernel()) + ": define '" + defs[a].name() +
                             "' appears twice; give each name once");
      auto own = kernels_[k].defines.find(defs[a].name());
      if (own != kernels_[k].defines.end())
        invalid(name_, kernel_entry(i, kr.kernel()) + ": define '" + defs[a].name() +
                           "' is already defined by the operation (as '" + own->second + "')");
    }
  }
  validate_fabric(r, launch);
}

} // namespace tessel
