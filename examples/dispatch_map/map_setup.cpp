#include "dispatch_map/map_setup.hpp"

#include "tessel/tensor_accessor_args.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

MapSetup map_setup(const std::shared_ptr<Device>& device, uint32_t tiles, uint64_t seed, uint32_t depth) {
  MapSetup m;
  m.tiles = tiles;
  Lcg rng(seed);
  m.x.resize(size_t(tiles) * 1024);
  for (float& v : m.x)
    v = bf16_to_float(float_to_bf16(float(rng.uniform(-4, 4))));
  const std::vector<uint8_t> packed = pack_tiles(tilize(m.x, tiles * 32, 32), DataFormat::Float16_b);
  m.src = Buffer::create(device, {packed.size(), MapSetup::kTileBytes, BufferType::DRAM});
  m.dst = Buffer::create(device, {packed.size(), MapSetup::kTileBytes, BufferType::DRAM});
  device->command_queue().enqueue_write_buffer(*m.src, packed.data(), packed.size());
  dispatch::ProgramSpec& p = m.program;
  p.name = "map";
  p.reader_path = kernel_path("dispatch_map", "reader.cpp");
  p.compute_path = kernel_path("dispatch_map", "compute.cpp");
  p.writer_path = kernel_path("dispatch_map", "writer.cpp");
  p.buffers = {{0, "bfloat16", MapSetup::kTileBytes, 2}, {16, "bfloat16", MapSetup::kTileBytes, 2}};
  TensorAccessorArgs(*m.src).append_to(p.reader_compile_args);
  TensorAccessorArgs(*m.dst).append_to(p.writer_compile_args);
  p.handlers = {{"map", MapSetup::kHandlerMap}};
  p.depth = depth;
  return m;
}

size_t MapSetup::wrong(CommandQueue& cq) const {
  std::vector<uint8_t> out(size_t(tiles) * kTileBytes);
  cq.enqueue_read_buffer(*dst, out.data(), out.size());
  const std::vector<float> y = untilize(unpack_tiles(out, DataFormat::Float16_b), tiles * 32, 32);
  size_t n = 0;
  for (size_t i = 0; i < x.size(); ++i)
    n += y[i] != 2 * x[i];
  return n;
}

} // namespace tessel::examples
