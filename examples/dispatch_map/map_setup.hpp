// The map program over a tile tensor, shared by the dispatch examples whose
// jobs double bf16 tiles (dispatch_map, dispatch_stream, dispatch_thread):
// the input (random bf16 values, tilized), the output buffer, the program
// (the map kernels, CBs 0 and 16, the accessors' compile args) and the
// check of the output against 2x.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "example.hpp"
#include "tessel/dispatch/program.hpp"

namespace tessel::examples {

struct MapSetup {
  static constexpr uint32_t kHandlerMap = 1, kTileBytes = 2048;
  uint32_t tiles = 0;
  std::vector<float> x; // tiles * 32 rows of 32 values, bf16-exact
  std::shared_ptr<Buffer> src, dst;
  dispatch::ProgramSpec program;
  // The output values that are not 2x their input.
  size_t wrong(CommandQueue& cq) const;
};

MapSetup map_setup(const std::shared_ptr<Device>& device, uint32_t tiles, uint64_t seed, uint32_t depth = 4);

} // namespace tessel::examples
