// The fabric: Ethernet links between the chips of a mesh, the routing a
// fabric config implies, and the delivery of the packets kernels send
// through TT-Fabric's worker API (design §9; docs/multichip.md).
//
// Model
//  - Chips sit on a rows x cols mesh (row-major chip ids, as TT-Fabric's
//    FabricNodeId chip ids). Each chip has `links_per_side` links to each
//    neighbour; a row's (column's) ends are linked when the system closes it
//    into a ring (wrap_rows / wrap_cols).
//  - FABRIC_1D (Line): a packet goes start_hops hops straight on its
//    connection's direction, never over a wrap link; FABRIC_1D_RING (Ring):
//    the same, over wrap links too; FABRIC_2D (Mesh): to a chip id,
//    East/West first, then North/South (dimension-ordered).
//  - A packet is walked hop by hop: every hop must have a link; the route of
//    a packet that leaves the mesh, or comes back to its sender, is an error
//    naming the sender, the hops and where the route broke.
//  - Under the cycle estimate (timing.hpp) a packet costs its sender the NoC
//    writes into the router's slot, crosses each link when the link is free
//    (bytes / link bandwidth) and reaches the next chip a hop's latency
//    later; a semaphore it writes is stamped with its arrival.
//  - At its destination(s) the packet's NoC command (write, inline write,
//    atomic increment, fused write + increment, scatter) takes effect at
//    once, checked as a NoC transfer on that chip is (bounds, alignment, the
//    device-memory checker), and wakes that chip's waiters. No router kernel
//    runs: a connection always has a free slot (docs/multichip.md lists what
//    is and is not modelled).
//
// Thread-safety: one thread at a time. A run of several chips is one
// thread, and a chip with a fabric never runs under the parallel policy
// (Chip::run), so the fabric's state needs no lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/trace.hpp"
#include "tessel/fabric_abi.h"

namespace tessel::sim {

class Chip;
struct Fiber;

enum class FabricMode : uint8_t { Disabled, Line, Ring, Mesh };
const char* fabric_mode_name(FabricMode mode); // TT-Metalium's spelling: "FABRIC_1D", ...

struct FabricLinks {
  uint32_t rows = 1, cols = 1;
  bool wrap_rows = false; // each row's first and last chip are linked (East of the last is the first)
  bool wrap_cols = false; // each column's likewise (South of the last row is the first)
  uint32_t links_per_side = 1;
  uint32_t max_payload_bytes = 4096; // a channel buffer's slot, less the header
  // The cycle estimate's Ethernet link (docs/multichip.md gives the sources).
  double link_gbytes_per_s = 12.5; // per link and direction: Wormhole 100 Gb/s
  double hop_latency_ns = 650;     // per hop: Wormhole's measured ~650 ns
};

class Fabric {
public:
  // `chips` row-major, rows * cols of them, all of one arch; not owned. Each
  // chip is attached (Chip::set_fabric, its label "device N: ").
  Fabric(std::vector<Chip*> chips, FabricLinks links, FabricMode mode, uint32_t mesh_id = 0);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // Its chips are detached (or gone): the destructor leaves them alone.
  void forget_chips() { chips_.clear(); }

  FabricMode mode() const { return mode_; }
  void set_mode(FabricMode mode) { mode_ = mode; }
  const FabricLinks& links() const { return links_; }
  uint32_t mesh_id() const { return mesh_id_; }
  uint32_t chip_count() const { return uint32_t(chips_.size()); }

  // The chip one hop from `chip` toward `direction` over a link, or -1 (the
  // mesh's edge; a wrap link counts when `wrap`).
  int neighbour(uint32_t chip, uint32_t direction, bool wrap) const;
  // The direction from `src` to its neighbour `dst`, or -1 when they are not
  // neighbours (wrap links counting unless the mode is Line).
  int direction_to(uint32_t src, uint32_t dst) const;
  static const char* direction_name(uint32_t direction);
  std::string chip_name(uint32_t chip) const; // "device 5 (1,1)"

  // Kernel side (fabric_api.cpp). Each fails the calling fiber with a report.
  void open(Fiber* f, tessel_fabric_connection* c, const char* file, uint32_t line);
  void close(Fiber* f, tessel_fabric_connection* c, const char* file, uint32_t line);
  void stage(Fiber* f, tessel_fabric_connection* c, uint32_t src_l1, uint32_t bytes, const char* file, uint32_t line);
  void send(Fiber* f, tessel_fabric_connection* c, uint32_t header_l1, uint32_t header_bytes, const char* file,
            uint32_t line);
  // A kernel starts: f's connections from an earlier launch are gone.
  void kernel_started(const Fiber* f);
  // A kernel ended: "" or why it may not (a connection left open), with
  // where that connection was opened.
  std::string left_open(const Fiber* f, const char** file, uint32_t* line);

  // ---- A mesh split over processes (ranks) ----
  // Chips held by other processes are null in the constructor's list; a
  // packet for one goes to `peers`. Not owned.
  void set_peers(class FabricPeers* peers) { peers_ = peers; }
  class FabricPeers* peers() const {
    return peers_;
  }
  // A packet from another rank for chip `dst_chip` of this one: its command
  // takes effect here. A failure (an address the chip has not allocated...)
  // is kept, with the sender's `origin`, for take_delivery_failure().
  void deliver(uint32_t dst_chip, const tessel_fabric_header& header, const uint8_t* payload,
               const std::string& origin);
  std::string take_delivery_failure();

  // Totals since the fabric was made.
  struct Stats {
    uint64_t packets = 0, hops = 0, payload_bytes = 0;
  };
  Stats stats() const;

private:
  struct Slot {
    const Fiber* owner = nullptr; // null: free
    uint32_t token = 0;           // the open's number (tessel_fabric_connection::token)
    const char* file = nullptr;
    uint32_t line = 0;
    std::vector<uint8_t> staged;
  };
  Slot& slot_of(Fiber* f, tessel_fabric_connection* c, const char* call, const char* file, uint32_t line);
  // The chips a packet from `src` reaches, in route order, after checking the route.
  // `start`: the sender's clock under the cycle estimate (0: untimed), with
  // each destination's arrival left in arrivals_.
  void route(Fiber* f, const tessel_fabric_connection& c, const tessel_fabric_header& h, std::vector<uint32_t>& dsts,
             uint32_t& hops, uint64_t start, const char* file, uint32_t line);

  std::vector<Chip*> chips_;
  FabricLinks links_;
  FabricMode mode_;
  uint32_t mesh_id_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> route_scratch_;
  std::vector<uint64_t> arrivals_;              // route(): when the packet reaches each destination (timed)
  std::vector<uint64_t> link_free_;             // per (chip, direction, link): when the link is next free (timed)
  std::vector<Tracer::LinkCrossing> crossings_; // route(): the links a traced packet crossed
  Stats stats_;
  class FabricPeers* peers_ = nullptr;
  std::string delivery_failure_;
  uint32_t next_token_ = 0;
};

// The other processes of a mesh split over ranks (an MPI world, in the
// runtime): where packets for their chips go, and the exchange each rank's
// run of its chips makes once per pass (chip_group.hpp).
class FabricPeers {
public:
  virtual ~FabricPeers() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // Queues a packet for the rank holding chip `dst_chip` (sent at the next exchange).
  virtual void post(uint32_t dst_chip, const tessel_fabric_header& header, const uint8_t* payload,
                    const std::string& origin) = 0;
  // What every rank said at one exchange.
  struct Round {
    bool any_progress = false; // some rank ran a fiber, woke one or received a packet
    bool all_finished = false; // every rank's chips are done
    bool any_packets = false;  // some rank sent packets (their delivery may yet fail: one more round reports it)
    std::string failure;       // the first failing rank's report ("rank R: ..."), empty if none
    uint32_t failure_kind = 0; // FailureKind of that report
  };
  enum FailureKind : uint32_t { kNone = 0, kKernelError = 1, kKernelFault = 2, kInterrupted = 3, kOther = 4 };
  // Every rank calls this once per pass of its run, in step: queued packets
  // go out, other ranks' packets for this rank are handed to `fabric`
  // (Fabric::deliver) in rank order, and every rank's state comes back.
  virtual Round exchange(Fabric& fabric, bool progress, bool finished, const std::string& failure,
                         uint32_t failure_kind) = 0;
  // Every rank's `text`, concatenated in rank order (the same on every rank).
  virtual std::string gather_text(const std::string& text) = 0;
};

// The kernel API's table (TESSEL_EXTENSION_FABRIC), for chips with a fabric.
const tessel_fabric_api* fabric_api_table();

} // namespace tessel::sim
