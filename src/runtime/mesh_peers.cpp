#include "runtime/mesh_peers.hpp"

#include <cstring>

#include "tessel/error.hpp"

namespace tessel::runtime {

namespace {

// A block to one rank: its sender's state, then framed packets.
//   u32 flags (1 progress, 2 finished, 4 failed, 8 sent packets), u32 failure kind, u32 failure length, failure text;
//   per packet: u32 chip, u32 payload length, u32 origin length, the 64-byte header, payload, origin.
constexpr uint32_t kProgress = 1, kFinished = 2, kFailed = 4, kSent = 8;

void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }

uint32_t get_u32(const std::string& in, size_t& at) {
  uint32_t v = 0;
  if (at + 4 > in.size()) throw Error("a fabric exchange between ranks was cut short (a corrupt block)");
  std::memcpy(&v, in.data() + at, 4);
  at += 4;
  return v;
}

} // namespace

MeshPeers::MeshPeers(Ranks& ranks, uint32_t chips_per_rank)
    : ranks_(ranks), chips_per_rank_(chips_per_rank), outbox_(ranks.size()) {}

void MeshPeers::post(uint32_t dst_chip, const tessel_fabric_header& header, const uint8_t* payload,
                     const std::string& origin) {
  std::string& box = outbox_[rank_of(dst_chip)];
  const uint32_t payload_bytes = header.payload_size_bytes;
  put_u32(box, dst_chip);
  put_u32(box, payload_bytes);
  put_u32(box, uint32_t(origin.size()));
  box.append(reinterpret_cast<const char*>(&header), sizeof header);
  if (payload_bytes) box.append(reinterpret_cast<const char*>(payload), payload_bytes);
  box += origin;
}

sim::FabricPeers::Round MeshPeers::exchange(sim::Fabric& fabric, bool progress, bool finished,
                                            const std::string& failure, uint32_t failure_kind) {
  const uint32_t me = ranks_.rank();
  // Sending packets is progress too: every rank must reach the same verdict.
  bool sent = false;
  for (const std::string& box : outbox_)
    sent |= !box.empty();
  progress |= sent;
  const uint32_t my_flags =
      (progress ? kProgress : 0) | (finished ? kFinished : 0) | (failure.empty() ? 0 : kFailed) | (sent ? kSent : 0);
  std::string state;
  put_u32(state, my_flags);
  put_u32(state, failure_kind);
  put_u32(state, uint32_t(failure.size()));
  state += failure;
  std::vector<std::string> to(ranks_.size());
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    if (r == me) continue;
    to[r] = state + outbox_[r];
    outbox_[r].clear();
  }
  const std::vector<std::string> from = ranks_.all_to_all(to);

  Round round;
  round.any_progress = progress;
  round.all_finished = true;
  for (uint32_t r = 0; r < ranks_.size(); ++r) {
    uint32_t flags, kind;
    std::string text;
    if (r == me) {
      flags = my_flags;
      kind = failure_kind;
      text = failure;
    } else {
      const std::string& block = from[r];
      size_t at = 0;
      flags = get_u32(block, at);
      kind = get_u32(block, at);
      const uint32_t length = get_u32(block, at);
      text = block.substr(at, length);
      at += length;
      while (at < block.size()) {
        const uint32_t chip = get_u32(block, at);
        const uint32_t bytes = get_u32(block, at);
        const uint32_t origin_bytes = get_u32(block, at);
        if (at + sizeof(tessel_fabric_header) + bytes + origin_bytes > block.size())
          throw Error("a fabric exchange between ranks was cut short (a corrupt packet)");
        tessel_fabric_header header;
        std::memcpy(&header, block.data() + at, sizeof header);
        at += sizeof header;
        const auto* payload = reinterpret_cast<const uint8_t*>(block.data() + at);
        at += bytes;
        const std::string origin = block.substr(at, origin_bytes);
        at += origin_bytes;
        fabric.deliver(chip, header, payload, origin);
        round.any_progress = true;
      }
    }
    round.any_progress |= (flags & kProgress) != 0;
    round.any_packets |= (flags & kSent) != 0;
    round.all_finished &= (flags & kFinished) != 0;
    if ((flags & kFailed) && round.failure.empty()) {
      round.failure = text;
      round.failure_kind = kind;
    }
  }
  return round;
}

std::string MeshPeers::gather_text(const std::string& text) {
  std::string all;
  for (const std::string& part : ranks_.all_gather(text))
    all += part;
  return all;
}

} // namespace tessel::runtime
