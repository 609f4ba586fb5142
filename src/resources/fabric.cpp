// External fabric managers in an execution's runtime resources
// (include/tessel/runtime_resources.hpp): the binding rules of
// Operation::validate_fabric, checked against the operation's FabricTopology,
// and the bindings' part of the program-cache identity.
#include <algorithm>
#include <string>
#include <vector>

#include "resources/operation_internal.hpp"
#include "tessel/operation.hpp"

namespace tessel {

using resources::invalid;

namespace {
std::string link_text(uint32_t local, uint32_t remote, uint32_t link) {
  return "link " + std::to_string(link) + " from device " + std::to_string(local) + " to device " +
         std::to_string(remote);
}
std::string binding_at(size_t i) { return "fabric_connections[" + std::to_string(i) + "]"; }
std::string requirement_at(size_t i, size_t j) { return binding_at(i) + ".connections[" + std::to_string(j) + "]"; }
} // namespace

void Operation::validate_fabric(const ProgramRuntimeResources& r, const CoreRangeSet& launch) const {
  const auto& bindings = r.fabric_connections();
  if (bindings.empty() && claims_.empty()) return;
  const FabricTopology& t = topology_;
  std::vector<int> bound(claims_.size(), -1);
  for (size_t i = 0; i < bindings.size(); ++i) {
    const FabricConnectionBinding& b = bindings[i];
    size_t c = 0;
    while (c < claims_.size() && !(claims_[c] == b.claim()))
      ++c;
    if (c == claims_.size())
      invalid(name_, binding_at(i) + ": claim '" + b.claim().name() + "' is not declared by operation '" + name_ +
                         "' (declare it with add_fabric_claim)");
    if (bound[c] >= 0)
      invalid(name_, binding_at(i) + ": claim '" + b.claim().name() + "' is already bound by " +
                         binding_at(size_t(bound[c])) + "; supply one binding per claim");
    bound[c] = int(i);
    for (size_t j = 0; j < b.connections().size(); ++j) {
      const FabricConnectionRequirement& q = b.connections()[j];
      for (uint32_t dev : {q.local_device(), q.remote_device()})
        if (dev >= t.num_devices)
          invalid(name_, requirement_at(i, j) + ": device " + std::to_string(dev) +
                             " is not an active logical device (the topology has " + std::to_string(t.num_devices) +
                             ": 0.." + std::to_string(t.num_devices - 1) + ")");
      if (q.worker_nodes().num_cores() == 0 || !launch.contains(q.worker_nodes()))
        invalid(name_, requirement_at(i, j) + ": worker_nodes " + q.worker_nodes().str() +
                           " are not inside the operation's worker range " + launch.str());
      const FabricLink link{q.local_device(), q.remote_device(), q.fixed_link_index()};
      if (std::find(t.links.begin(), t.links.end(), link) == t.links.end()) {
        std::string exposed;
        for (const FabricLink& l : t.links)
          if (l.local_device == link.local_device && l.remote_device == link.remote_device)
            exposed += (exposed.empty() ? "" : ", ") + std::to_string(l.link_index);
        invalid(name_, requirement_at(i, j) + ": " + link_text(link.local_device, link.remote_device, link.link_index) +
                           " is not exposed by the topology (links from " + std::to_string(link.local_device) + " to " +
                           std::to_string(link.remote_device) + ": " + (exposed.empty() ? "none" : exposed) + ")");
      }
      if (std::find(t.generated.begin(), t.generated.end(), link) != t.generated.end())
        invalid(name_, requirement_at(i, j) + ": " + link_text(link.local_device, link.remote_device, link.link_index) +
                           " is owned by a generated fabric manager; external managers must not overlap it");
      for (size_t a = 0; a <= i; ++a)
        for (size_t bj = 0; bj < bindings[a].connections().size() && (a < i || bj < j); ++bj) {
          const FabricConnectionRequirement& o = bindings[a].connections()[bj];
          if (o.local_device() == q.local_device() && o.remote_device() == q.remote_device() &&
              o.fixed_link_index() == q.fixed_link_index())
            invalid(name_, requirement_at(i, j) + ": " +
                               link_text(link.local_device, link.remote_device, link.link_index) +
                               " is also reserved by " + requirement_at(a, bj));
        }
    }
    // Coverage: every active logical device and worker node of the launch range.
    for (uint32_t dev = 0; dev < t.num_devices; ++dev)
      for (const CoreRange& cr : launch.ranges())
        for (uint32_t y = cr.start_coord.y; y <= cr.end_coord.y; ++y)
          for (uint32_t x = cr.start_coord.x; x <= cr.end_coord.x; ++x) {
            bool covered = false;
            for (const FabricConnectionRequirement& q : b.connections())
              covered = covered || (q.local_device() == dev && q.worker_nodes().contains({x, y}));
            if (!covered)
              invalid(name_, binding_at(i) + " (claim '" + b.claim().name() + "'): device " + std::to_string(dev) +
                                 " worker node " + CoreCoord{x, y}.str() +
                                 " has no connection; the requirements must cover every active logical device "
                                 "and worker node of " +
                                 describe(b.claim().kernel()));
          }
  }
  for (size_t c = 0; c < claims_.size(); ++c)
    if (bound[c] < 0)
      invalid(name_, "claim '" + claims_[c].name() +
                         "' has no binding in fabric_connections; supply one FabricConnectionBinding per claim");
}

// Claim identity is the claim (its place among the operation's declared
// claims), never its name: two claims may share a name. Written in
// declaration order, so the order of the bindings in the resources does not
// matter.
void Operation::fabric_identity(resources::KeyWriter& w, const ProgramRuntimeResources& r) const {
  const auto& bindings = r.fabric_connections();
  w.u32(uint32_t(claims_.size()));
  for (const FabricManagerClaim& claim : claims_) {
    w.u32(uint32_t(lookup_kernel(claim.kernel())));
    const auto b = std::find_if(bindings.begin(), bindings.end(),
                                [&](const FabricConnectionBinding& x) { return x.claim() == claim; });
    if (b == bindings.end()) {
      w.u32(~0u); // unbound (validation rejects this; plan() may see it)
      continue;
    }
    w.str(b->abi_identity());
    w.u32(uint32_t(b->connections().size()));
    for (const FabricConnectionRequirement& q : b->connections()) {
      w.u32(q.local_device()), w.u32(q.remote_device()), w.u32(q.fixed_link_index());
      w.cores(q.worker_nodes());
    }
  }
}

} // namespace tessel
