// Layouts a persistent program's arguments name: the words of a broadcast
// (tessel/persistent.h, persistent::Broadcast). Python: tessel.dispatch.layout.
#pragma once

#include <array>
#include <cstdint>

#include "tessel/core_coord.hpp"
#include "tessel/device.hpp"

namespace tessel::dispatch {

// The KM_BROADCAST_ARGS words of a broadcast from `root` to the rectangle of
// logical cores first..last (inclusive): the rectangle's NoC corners
// (x | y << 16), its receivers (its cores but the root), the root's NoC
// coordinates. Throws ValidationError for a rectangle outside the grid.
std::array<uint32_t, 4> broadcast_args(const Device& device, CoreCoord first, CoreCoord last, CoreCoord root);

} // namespace tessel::dispatch
