// Runs launch sets on several chips at once, as one run on the calling
// thread: the chips of a mesh whose kernels reach each other over the fabric
// (fabric.hpp) must run together, since a kernel on one chip may wait for a
// packet a kernel on another sends.
//
// Scheduling: the chips take turns, each running its ready fibers for up to
// kSliceSwitches switches per turn, in chip order; so a run is deterministic
// (same program, same interleaving) whatever each chip's policy says. When
// no chip has a ready fiber, every chip's semaphore waiters are polled; if
// still none can run while fibers remain blocked, the deadlock spans the
// chips and its report lists every blocked RISC of every chip, each row
// naming its device.
//
// A failure on one chip (a kernel error, a fault, an interrupt) stops every
// chip's run, each left usable as after a failed single-chip run, and the
// error is thrown naming the device (Chip::label).
#pragma once

#include <cstdint>
#include <span>

#include "sim/chip.hpp"

namespace tessel::sim {

struct ChipLaunches {
  Chip* chip = nullptr;
  std::span<const Launch> launches;
};

inline constexpr uint32_t kSliceSwitches = 64;

// Runs every chip's launches to completion together. Chips with no launches
// may be left out. One chip alone runs as Chip::run does.
void run_chips(std::span<const ChipLaunches> runs);

// The same for this process's share of a mesh split over ranks: after each
// pass over its chips every rank calls peers.exchange (even with no chips of
// its own running), so packets cross between ranks and every rank learns
// whether all are done, one failed (every rank then stops, throwing the
// failing rank's report, "rank R: ...") or none can go on (a deadlock whose
// report lists the blocked RISCs of every rank).
class Fabric;
class FabricPeers;
void run_chips(std::span<const ChipLaunches> runs, Fabric& fabric, FabricPeers& peers);

} // namespace tessel::sim
