// The fabric's peers over the MPI world (sim::FabricPeers over tessel::Ranks):
// packets for chips other ranks hold, framed per destination rank, and each
// pass's exchange. Internal to the runtime layer (mesh.cpp).
#pragma once

#include <string>
#include <vector>

#include "sim/fabric.hpp"
#include "tessel/ranks.hpp"

namespace tessel::runtime {

class MeshPeers : public sim::FabricPeers {
public:
  // Chip c is held by rank c / chips_per_rank.
  MeshPeers(Ranks& ranks, uint32_t chips_per_rank);
  uint32_t rank() const override { return ranks_.rank(); }
  uint32_t size() const override { return ranks_.size(); }
  uint32_t rank_of(uint32_t chip) const { return chip / chips_per_rank_; }
  void post(uint32_t dst_chip, const tessel_fabric_header& header, const uint8_t* payload,
            const std::string& origin) override;
  Round exchange(sim::Fabric& fabric, bool progress, bool finished, const std::string& failure,
                 uint32_t failure_kind) override;
  std::string gather_text(const std::string& text) override;

private:
  Ranks& ranks_;
  uint32_t chips_per_rank_;
  std::vector<std::string> outbox_; // per destination rank: framed packets
};

} // namespace tessel::runtime
