#include "sim/fabric.hpp"

#include <cstring>

#include "base/warning.hpp"
#include "sim/chip.hpp"
#include "sim/fabric_delivery.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/l1_layout.hpp"
#include "sim/memory_check.hpp"
#include "sim/timing.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

namespace {

constexpr const char* kDirectionNames[4] = {"East", "West", "North", "South"};

// Row and column steps of each direction.
constexpr int kRowStep[4] = {0, 0, -1, 1};
constexpr int kColStep[4] = {1, -1, 0, 0};

// Fails the sender unless c was built by build_from_args.
void require_built(Fiber* f, const tessel_fabric_connection* c, const char* call, const char* file, uint32_t line) {
  if (c->magic != TESSEL_FABRIC_CONNECTION_MAGIC)
    fail_sender(f,
                std::string(call) + ": the fabric connection was not built from its runtime arguments "
                                    "(WorkerToFabricEdmSender::build_from_args, with the words "
                                    "append_fabric_connection_rt_args gave)",
                file, line);
}

} // namespace

void fail_sender(Fiber* f, std::string message, const char* file, uint32_t line) {
  f->core->chip->fail(f, std::move(message), file, line);
}

Fabric::Fabric(std::vector<Chip*> chips, FabricLinks links, FabricMode mode, uint32_t mesh_id)
    : chips_(std::move(chips)), links_(links), mode_(mode), mesh_id_(mesh_id) {
  for (uint32_t i = 0; i < chips_.size(); ++i) {
    if (!chips_[i]) continue; // another rank's
    chips_[i]->set_fabric(this, i);
    chips_[i]->set_label("device " + std::to_string(i) + ": ");
  }
}

Fabric::~Fabric() {
  for (Chip* c : chips_)
    if (c) c->set_fabric(nullptr, 0);
}

const char* fabric_mode_name(FabricMode mode) {
  switch (mode) {
  case FabricMode::Disabled: return "DISABLED";
  case FabricMode::Line: return "FABRIC_1D";
  case FabricMode::Ring: return "FABRIC_1D_RING";
  case FabricMode::Mesh: return "FABRIC_2D";
  }
  return "?";
}

const char* Fabric::direction_name(uint32_t direction) { return direction < 4 ? kDirectionNames[direction] : "?"; }

std::string Fabric::chip_name(uint32_t chip) const {
  return "device " + std::to_string(chip) + " (" + std::to_string(chip / links_.cols) + "," +
         std::to_string(chip % links_.cols) + ")";
}

int Fabric::neighbour(uint32_t chip, uint32_t direction, bool wrap) const {
  if (direction >= 4 || chip >= chips_.size()) return -1;
  const int rows = int(links_.rows), cols = int(links_.cols);
  int r = int(chip / links_.cols) + kRowStep[direction];
  int c = int(chip % links_.cols) + kColStep[direction];
  if (c < 0 || c >= cols) {
    if (!wrap || !links_.wrap_rows || cols < 2) return -1;
    c = (c + cols) % cols;
  }
  if (r < 0 || r >= rows) {
    if (!wrap || !links_.wrap_cols || rows < 2) return -1;
    r = (r + rows) % rows;
  }
  return r * cols + c;
}

int Fabric::direction_to(uint32_t src, uint32_t dst) const {
  for (uint32_t d = 0; d < 4; ++d)
    if (neighbour(src, d, mode_ != FabricMode::Line) == int(dst)) return int(d);
  return -1;
}

Fabric::Stats Fabric::stats() const { return stats_; }

// ---- Connections -----------------------------------------------------------

Fabric::Slot& Fabric::slot_of(Fiber* f, tessel_fabric_connection* c, const char* call, const char* file,
                              uint32_t line) {
  require_built(f, c, call, file, line);
  if (!c->open || c->slot >= slots_.size() || slots_[c->slot].owner != f || slots_[c->slot].token != c->token)
    fail_sender(f, std::string(call) + ": the fabric connection is not open: call open() before sending on it", file,
                line);
  return slots_[c->slot];
}

void Fabric::open(Fiber* f, tessel_fabric_connection* c, const char* file, uint32_t line) {
  const uint32_t me = f->core->chip->fabric_chip();
  require_built(f, c, "open", file, line);
  std::string problem;
  if (mode_ == FabricMode::Disabled)
    problem = "the fabric is off: call SetFabricConfig(FabricConfig::FABRIC_1D, FABRIC_1D_RING or FABRIC_2D) before "
              "opening the mesh";
  else if (c->src_chip != me)
    problem = "the connection was built for " + chip_name(c->src_chip) + " but this kernel runs on " + chip_name(me) +
              ": give each device's kernel the runtime arguments built for that device";
  else if (c->mesh_id != mesh_id_)
    problem = "the connection was built for mesh " + std::to_string(c->mesh_id) + ", this chip is in mesh " +
              std::to_string(mesh_id_);
  else if (c->link >= links_.links_per_side)
    problem = "link " + std::to_string(c->link) + " does not exist: devices have " +
              std::to_string(links_.links_per_side) + " link" + (links_.links_per_side == 1 ? "" : "s") + " per side";
  else if (neighbour(me, c->direction, mode_ != FabricMode::Line) < 0)
    problem = chip_name(me) + " has no link " + direction_name(c->direction) + " (the edge of the " +
              std::to_string(links_.rows) + "x" + std::to_string(links_.cols) + " mesh under " +
              fabric_mode_name(mode_) + ")";
  else if (c->open)
    problem = "the connection is already open (opened twice without close())";
  if (!problem.empty()) fail_sender(f, "open: " + std::move(problem), file, line);
  uint32_t s = 0;
  while (s < slots_.size() && slots_[s].owner)
    ++s;
  if (s == slots_.size()) slots_.emplace_back();
  Slot& slot = slots_[s];
  slot.owner = f;
  slot.token = ++next_token_;
  slot.file = file;
  slot.line = line;
  slot.staged.clear();
  c->slot = s;
  c->token = slot.token;
  c->open = 1;
}

void Fabric::close(Fiber* f, tessel_fabric_connection* c, const char* file, uint32_t line) {
  if (c->magic == TESSEL_FABRIC_CONNECTION_MAGIC && !c->open)
    fail_sender(f, "close: the fabric connection is not open (closed twice, or never opened)", file, line);
  Slot& slot = slot_of(f, c, "close", file, line);
  if (!slot.staged.empty())
    fail_sender(f,
                "close: " + std::to_string(slot.staged.size()) +
                    " payload bytes were staged on the connection and never sent (a packet's header commits it)",
                file, line);
  slot.owner = nullptr;
  slot.token = 0;
  c->open = 0;
}

void Fabric::kernel_started(const Fiber* f) {
  for (Slot& s : slots_)
    if (s.owner == f) s.owner = nullptr, s.token = 0, s.staged.clear();
}

std::string Fabric::left_open(const Fiber* f, const char** file, uint32_t* line) {
  uint32_t open = 0;
  for (const Slot& s : slots_)
    if (s.owner == f) {
      if (open++ == 0) *file = s.file, *line = s.line;
    }
  if (!open) return "";
  return "kernel ended with " + std::to_string(open) + " fabric connection" + (open == 1 ? "" : "s") +
         " open (the first opened here): close() every connection before returning, so its router is left "
         "ready for the next";
}

void Fabric::stage(Fiber* f, tessel_fabric_connection* c, uint32_t src_l1, uint32_t bytes, const char* file,
                   uint32_t line) {
  Slot& slot = slot_of(f, c, "send_payload_without_header", file, line);
  Core& core = *f->core;
  const uint32_t offset = src_l1 & TESSEL_L1_SLOT_MASK;
  std::string problem;
  if (bytes == 0)
    problem = "a zero-length payload";
  else if (slot.staged.size() + uint64_t(bytes) > links_.max_payload_bytes)
    problem = "the packet's payload, " + std::to_string(slot.staged.size() + uint64_t(bytes)) +
              " bytes, is larger than a channel buffer slot holds (" + std::to_string(links_.max_payload_bytes) +
              " bytes of payload after the header): split it into packets of at most that";
  else if (uint64_t(offset) + bytes > core.chip->memory().l1_size_bytes())
    problem = std::to_string(bytes) + " bytes at L1 " + hex(offset) + " run past the end of L1";
  if (!problem.empty()) fail_sender(f, "send_payload_without_header: " + std::move(problem), file, line);
  check_l1(f, core, offset, bytes, true, TransferEnd::Source, "send_payload_without_header", file, line);
  slot.staged.insert(slot.staged.end(), core.l1 + offset, core.l1 + offset + bytes);
}

// ---- Packets ---------------------------------------------------------------

void Fabric::route(Fiber* f, const tessel_fabric_connection& c, const tessel_fabric_header& h,
                   std::vector<uint32_t>& dsts, uint32_t& hops, uint64_t start, const char* file, uint32_t line) {
  const uint32_t me = f->core->chip->fabric_chip();
  dsts.clear();
  arrivals_.clear();
  hops = 0;
  // The cycle estimate (start != 0): the packet crosses each link when the
  // link is free, taking bytes / bandwidth, and reaches the next chip a
  // hop's latency later.
  uint64_t t = start;
  const uint64_t bytes = sizeof(tessel_fabric_header) + h.payload_size_bytes;
  const Timing* timing = f->core->chip->timing();
  const double ghz = timing ? timing->costs().clock_mhz / 1000 : 1;
  const uint64_t serialize = uint64_t(double(bytes) * ghz / links_.link_gbytes_per_s + 0.999);
  const uint64_t latency = uint64_t(links_.hop_latency_ns * ghz + 0.5);
  const bool traced = f->core->chip->tracer() != nullptr;
  crossings_.clear();
  const auto cross = [&](uint32_t from, uint32_t dir) {
    if (!start) {
      // Untimed: the crossing is shown at the sender's clock.
      if (traced)
        crossings_.push_back({chips_[from], dir, c.link, f->core->ctx[f->risc].clock, f->core->ctx[f->risc].clock});
      return;
    }
    if (link_free_.empty()) link_free_.assign(chips_.size() * 4 * links_.links_per_side, 0);
    uint64_t& free_at = link_free_[(size_t(from) * 4 + dir) * links_.links_per_side + c.link % links_.links_per_side];
    const uint64_t begin = std::max(t, free_at);
    free_at = begin + serialize;
    t = free_at + latency;
    if (traced) crossings_.push_back({chips_[from], dir, c.link, begin, free_at});
  };
  // `why` by value: this frame is abandoned, never unwound, so no string may stay alive in it.
  const auto broken = [&](std::string why) {
    fail_sender(f, "send: the packet's route " + std::move(why), file, line);
  };
  if (h.route == TESSEL_FABRIC_ROUTE_HOPS) {
    if (mode_ == FabricMode::Mesh)
      broken("counts hops (to_chip_unicast / to_chip_multicast of a 1D header), but the fabric is FABRIC_2D: set "
             "the route with fabric_set_unicast_route / a mesh header");
    if (h.start_hops == 0) broken("has 0 hops: a packet goes at least 1 hop (to_chip_unicast(1) is the neighbour)");
    const uint32_t last = h.start_hops + (h.range_hops ? h.range_hops : 1) - 1;
    uint32_t at = me;
    for (uint32_t hop = 1; hop <= last; ++hop) {
      const int next = neighbour(at, c.direction, mode_ == FabricMode::Ring);
      if (next < 0)
        broken("leaves the mesh: " + std::to_string(last) + " hop" + (last == 1 ? "" : "s") + " " +
               direction_name(c.direction) + " from " + chip_name(me) + ", but " + chip_name(at) + " is the last " +
               (mode_ == FabricMode::Ring ? "device that way (no wrap link there)"
                                          : "device that way under FABRIC_1D (FABRIC_1D_RING uses wrap links)"));
      if (uint32_t(next) == me)
        broken("comes back to its sender: " + std::to_string(last) + " hops " + direction_name(c.direction) +
               " around a ring of " + std::to_string(hop) + " devices from " + chip_name(me));
      cross(at, c.direction);
      at = uint32_t(next);
      ++hops;
      if (hop >= h.start_hops) dsts.push_back(at), arrivals_.push_back(t);
    }
    return;
  }
  if (h.route == TESSEL_FABRIC_ROUTE_MESH || h.route == TESSEL_FABRIC_ROUTE_MESH_MCAST) {
    if (mode_ != FabricMode::Mesh)
      broken(std::string("names a destination chip (a 2D route), but the fabric is ") + fabric_mode_name(mode_) +
             ": use to_chip_unicast(hops) with a 1D header, or SetFabricConfig(FABRIC_2D)");
    if (h.dst_mesh_id != mesh_id_)
      broken("goes to mesh " + std::to_string(h.dst_mesh_id) + ", but this mesh is " + std::to_string(mesh_id_) +
             " and there is no other");
    if (h.dst_chip_id >= chips_.size())
      broken("goes to chip " + std::to_string(h.dst_chip_id) + ", which is not in the " + std::to_string(links_.rows) +
             "x" + std::to_string(links_.cols) + " mesh (chip ids 0.." + std::to_string(chips_.size() - 1) + ")");
    if (h.dst_chip_id == me && h.route == TESSEL_FABRIC_ROUTE_MESH)
      broken("goes to " + chip_name(me) + ", its own sender: write to this chip over the NoC");
    // East/West to the destination's column, then North/South to its row.
    uint32_t at = me;
    const uint32_t dr = h.dst_chip_id / links_.cols, dc = h.dst_chip_id % links_.cols;
    while (at % links_.cols != dc) {
      const uint32_t dir = at % links_.cols < dc ? TESSEL_FABRIC_EAST : TESSEL_FABRIC_WEST;
      cross(at, dir);
      at = uint32_t(neighbour(at, dir, false));
      ++hops;
    }
    while (at / links_.cols != dr) {
      const uint32_t dir = at / links_.cols < dr ? TESSEL_FABRIC_SOUTH : TESSEL_FABRIC_NORTH;
      cross(at, dir);
      at = uint32_t(neighbour(at, dir, false));
      ++hops;
    }
    if (h.route == TESSEL_FABRIC_ROUTE_MESH) {
      dsts.push_back(at), arrivals_.push_back(t);
      return;
    }
    // A multicast: the chips of the rectangle around the destination, the destination included.
    const int r0 = int(dr) - int(h.mcast_hops[TESSEL_FABRIC_NORTH]),
              r1 = int(dr) + int(h.mcast_hops[TESSEL_FABRIC_SOUTH]);
    const int c0 = int(dc) - int(h.mcast_hops[TESSEL_FABRIC_WEST]),
              c1 = int(dc) + int(h.mcast_hops[TESSEL_FABRIC_EAST]);
    if (r0 < 0 || c0 < 0 || r1 >= int(links_.rows) || c1 >= int(links_.cols))
      broken("leaves the mesh: a multicast of E" + std::to_string(h.mcast_hops[0]) + " W" +
             std::to_string(h.mcast_hops[1]) + " N" + std::to_string(h.mcast_hops[2]) + " S" +
             std::to_string(h.mcast_hops[3]) + " hops around " + chip_name(h.dst_chip_id) + " reaches past the " +
             std::to_string(links_.rows) + "x" + std::to_string(links_.cols) + " mesh");
    for (int r = r0; r <= r1; ++r)
      for (int col = c0; col <= c1; ++col) {
        const uint32_t chip = uint32_t(r) * links_.cols + uint32_t(col);
        if (chip == me) continue;
        dsts.push_back(chip);
        ++hops; // the multicast tree reaches each chip over one more link
        // Its branch of the tree: a hop per chip from the route's end (links not booked).
        const uint64_t away = uint64_t(std::abs(r - int(dr)) + std::abs(col - int(dc)));
        arrivals_.push_back(start ? t + away * (serialize + latency) : 0);
      }
    return;
  }
  broken("is not set: set it with to_chip_unicast / to_chip_multicast (1D) or fabric_set_unicast_route (2D) "
         "before sending the header");
}

void Fabric::send(Fiber* f, tessel_fabric_connection* c, uint32_t header_l1, uint32_t header_bytes, const char* file,
                  uint32_t line) {
  Slot& slot = slot_of(f, c, "send_payload_flush_blocking_from_address", file, line);
  Core& core = *f->core;
  const uint32_t offset = header_l1 & TESSEL_L1_SLOT_MASK;
  if (header_bytes < sizeof(tessel_fabric_header) ||
      uint64_t(offset) + sizeof(tessel_fabric_header) > core.chip->memory().l1_size_bytes())
    fail_sender(f,
                "send: the packet header (" + std::to_string(header_bytes) + " bytes at L1 " + hex(offset) +
                    ") is not a whole header of " + std::to_string(sizeof(tessel_fabric_header)) +
                    " bytes inside L1: pass the header's address and sizeof(PACKET_HEADER_TYPE)",
                file, line);
  check_l1(f, core, offset, uint32_t(sizeof(tessel_fabric_header)), true, TransferEnd::Source, "send (packet header)",
           file, line);
  tessel_fabric_header h;
  std::memcpy(&h, core.l1 + offset, sizeof h);
  const bool carries_payload = h.noc_send_type == TESSEL_FABRIC_NOC_UNICAST_WRITE ||
                               h.noc_send_type == TESSEL_FABRIC_NOC_FUSED_UNICAST_ATOMIC_INC ||
                               h.noc_send_type == TESSEL_FABRIC_NOC_UNICAST_SCATTER_WRITE;
  std::string problem;
  if (h.noc_send_type == TESSEL_FABRIC_NOC_NONE || h.noc_send_type > TESSEL_FABRIC_NOC_UNICAST_SCATTER_WRITE)
    problem = "the packet has no NoC command: set one with to_noc_unicast_write, to_noc_unicast_inline_write, "
              "to_noc_unicast_atomic_inc, to_noc_fused_unicast_write_atomic_inc or to_noc_unicast_scatter_write";
  else if (carries_payload && h.payload_size_bytes != slot.staged.size())
    problem = "the header's payload is " + std::to_string(h.payload_size_bytes) + " bytes but " +
              std::to_string(slot.staged.size()) +
              " were staged with send_payload_without_header_non_blocking_from_address before it";
  else if (!carries_payload && !slot.staged.empty())
    problem = std::to_string(slot.staged.size()) + " payload bytes were staged, but the header's command carries none";
  else if (h.payload_size_bytes > links_.max_payload_bytes)
    problem = "the packet's payload, " + std::to_string(h.payload_size_bytes) +
              " bytes, is larger than a channel buffer slot holds (" + std::to_string(links_.max_payload_bytes) +
              " bytes of payload after the header)";
  if (!problem.empty()) fail_sender(f, "send: " + std::move(problem), file, line);
  uint32_t hops = 0;
  // Timed: the worker's NoC writes of header and payload into the router's slot.
  uint64_t start = 0;
  const uint64_t begin = f->core->ctx[f->risc].clock;
  if (const Timing* timing = f->core->chip->timing()) {
    const TimingCosts& costs = timing->costs();
    uint64_t& clock = f->core->ctx[f->risc].clock;
    clock += costs.noc_issue_cycles +
             uint64_t(double(sizeof(tessel_fabric_header) + h.payload_size_bytes) / costs.noc_bytes_per_cycle + 0.999);
    start = clock;
  }
  route(f, *c, h, route_scratch_, hops, start, file, line);
  if (Tracer* tracer = f->core->chip->tracer()) {
    std::string to = route_scratch_.size() == 1 ? "device " + std::to_string(route_scratch_[0])
                                                : std::to_string(route_scratch_.size()) + " devices";
    tracer->fabric_packet(f->core->ctx[f->risc], begin, uint32_t(sizeof(tessel_fabric_header) + h.payload_size_bytes),
                          crossings_, to);
  }
  ++stats_.packets;
  stats_.hops += hops;
  stats_.payload_bytes += h.payload_size_bytes;
  f->core->chip->note_progress();
  const Failer fail(f, file, line, nullptr);
  for (size_t i = 0; i < route_scratch_.size(); ++i) {
    const uint32_t d = route_scratch_[i];
    if (chips_[d]) {
      apply(fail, *chips_[d], h, slot.staged.data(), arrivals_.empty() ? 0 : arrivals_[i]);
    } else {
      // On another rank: the packet goes there, naming its sender for any report.
      peers_->post(d, h, slot.staged.data(), f->core->chip->where(f, file, line));
    }
  }
  slot.staged.clear(); // its capacity stays for the next packet
}

} // namespace tessel::sim
