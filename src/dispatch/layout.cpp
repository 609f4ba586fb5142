#include "tessel/dispatch/layout.hpp"

#include "tessel/error.hpp"

namespace tessel::dispatch {

std::array<uint32_t, 4> broadcast_args(const Device& device, CoreCoord first, CoreCoord last, CoreCoord root) {
  const CoreCoord grid = device.grid();
  const auto where = [&] {
    return "broadcast_args: rectangle (" + std::to_string(first.x) + "," + std::to_string(first.y) + ")-(" +
           std::to_string(last.x) + "," + std::to_string(last.y) + ")";
  };
  if (first.x > last.x || first.y > last.y || last.x >= grid.x || last.y >= grid.y)
    throw ValidationError(where() + " does not lie inside the " + std::to_string(grid.x) + "x" +
                          std::to_string(grid.y) + " grid with first <= last");
  if (root.x >= grid.x || root.y >= grid.y)
    throw ValidationError(where() + ": the root (" + std::to_string(root.x) + "," + std::to_string(root.y) +
                          ") is outside the grid");
  const auto word = [&](CoreCoord c) {
    const CoreCoord n = device.worker_core_from_logical_core(c);
    return n.x | n.y << 16;
  };
  const bool root_inside = root.x >= first.x && root.x <= last.x && root.y >= first.y && root.y <= last.y;
  const uint32_t cells = (last.x - first.x + 1) * (last.y - first.y + 1);
  return {word(first), word(last), cells - (root_inside ? 1u : 0u), word(root)};
}

} // namespace tessel::dispatch
