// The mesh host API (distributed.hpp and mesh_*.hpp) over meshes of several
// simulated chips: opening them, replicated and sharded mesh buffers,
// workloads over ranges, events, traces, and the message of every misuse.
//
// The kernels are examples/eltwise_binary's reader, writer and add compute
// kernel (built once, cached with the example's), run on one core per chip.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

#include "tessel/error.hpp"

namespace {

#if defined(TESSEL_SANITIZE)
// A sanitizer's shadow memory takes much of the low 4 GiB where every
// core's L1 lives: eight full chips do not fit beside it, eight 4x2 ones do.
const bool kSmallGrid = (::setenv("TESSEL_GRID", "4x2", 0), true);
#endif

using namespace tt::tt_metal;
using namespace tt::tt_metal::distributed;

constexpr uint32_t kTileBytes = sizeof(bfloat16) * tt::constants::TILE_HW;

// Runs `call` and checks it throws tessel::ValidationError with exactly `message`.
template <typename Call>
void expect_validation_error(Call&& call, const std::string& message) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected: " << message;
  } catch (const tessel::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

std::shared_ptr<MeshDevice> open_mesh(uint32_t rows, uint32_t cols) {
  return MeshDevice::create(MeshDeviceConfig(MeshShape(rows, cols)));
}

DeviceLocalBufferConfig dram_pages(uint32_t page_bytes) {
  return DeviceLocalBufferConfig{.page_size = page_bytes, .buffer_type = BufferType::DRAM};
}

std::shared_ptr<MeshBuffer> replicated_tiles(MeshDevice& mesh, uint32_t tiles) {
  return MeshBuffer::create(ReplicatedBufferConfig{.size = tiles * kTileBytes}, dram_pages(kTileBytes), &mesh);
}

// C = A + B on `tile_count` tiles of bfloat16, on core (0, 0) of each chip.
Program add_program(const MeshBuffer& a, const MeshBuffer& b, const MeshBuffer& c, uint32_t tile_count) {
  const CoreCoord core{0, 0};
  Program program = CreateProgram();
  for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
    CreateCircularBuffer(
        program, core,
        CircularBufferConfig(2 * kTileBytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, kTileBytes));
  std::vector<uint32_t> reader_args, writer_args;
  TensorAccessorArgs(a).append_to(reader_args);
  TensorAccessorArgs(b).append_to(reader_args);
  TensorAccessorArgs(c).append_to(writer_args);
  const KernelHandle reader = CreateKernel(program, TESSEL_EXAMPLES_DIR "/eltwise_binary/kernels/reader.cpp", core,
                                           DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                              .noc = NOC::RISCV_0_default,
                                                              .compile_args = reader_args});
  const KernelHandle writer = CreateKernel(program, TESSEL_EXAMPLES_DIR "/eltwise_binary/kernels/writer.cpp", core,
                                           DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                              .noc = NOC::RISCV_1_default,
                                                              .compile_args = writer_args});
  const KernelHandle compute =
      CreateKernel(program, TESSEL_EXAMPLES_DIR "/eltwise_binary/kernels/compute.cpp", core,
                   ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                                 .defines = {{"ELTWISE_OP", "add_tiles"}, {"ELTWISE_OP_INIT", "add_tiles_init"}}});
  SetRuntimeArgs(program, reader, core, {a.address(), b.address(), 0, tile_count});
  SetRuntimeArgs(program, compute, core, {tile_count});
  SetRuntimeArgs(program, writer, core, {c.address(), 0, tile_count});
  return program;
}

// `count` bfloat16 values equal to `value`.
std::vector<bfloat16> constant(size_t count, float value) { return std::vector<bfloat16>(count, bfloat16(value)); }

std::vector<float> to_floats(const std::vector<bfloat16>& values) {
  std::vector<float> floats(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    floats[i] = float(values[i]);
  return floats;
}

// ---- Coordinates -----------------------------------------------------------

TEST(MeshCoordTest, RangeIteratesRowMajorAndKnowsItsShape) {
  const MeshCoordinateRange range(MeshCoordinate(0, 1), MeshCoordinate(1, 2));
  std::vector<MeshCoordinate> seen(range.begin(), range.end());
  const std::vector<MeshCoordinate> expected = {{0, 1}, {0, 2}, {1, 1}, {1, 2}};
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(range.shape(), MeshShape(2, 2));
  EXPECT_TRUE(range.contains(MeshCoordinate(1, 1)));
  EXPECT_FALSE(range.contains(MeshCoordinate(1, 3)));
  EXPECT_TRUE(MeshCoordinateRange(MeshShape(2, 4)).contains(range));
  const MeshCoordinateRange other(MeshCoordinate(1, 2), MeshCoordinate(1, 3));
  ASSERT_TRUE(range.intersects(other));
  EXPECT_EQ(*range.intersection(other), MeshCoordinateRange(MeshCoordinate(1, 2)));
  EXPECT_FALSE(range.intersects(MeshCoordinateRange(MeshCoordinate(0, 3), MeshCoordinate(1, 3))));
  EXPECT_EQ(MeshCoordinate(1, 3).to_linear_index(MeshShape(2, 4)), 7u);
}

TEST(MeshCoordTest, BadRangesAndCoordinatesThrow) {
  expect_validation_error([] { MeshCoordinateRange(MeshCoordinate(1, 0), MeshCoordinate(0, 3)); },
                          "MeshCoordinateRange: start MeshCoordinate([1, 0]) lies past end MeshCoordinate([0, 3]); "
                          "the start's row and column must each be at most the end's");
  expect_validation_error([] { MeshCoordinateRange(MeshShape(0, 4)); },
                          "MeshCoordinateRange: MeshShape([0, 4]) has no coordinates; both dimensions must be at "
                          "least 1");
  expect_validation_error([] { MeshCoordinate(2, 0).to_linear_index(MeshShape(2, 4)); },
                          "MeshCoordinate([2, 0]) is outside MeshShape([2, 4]): rows go up to 1 and columns up to 3");
}

TEST(MeshCoordTest, RangeSetCoversEachCoordinateOnceAndJoinsRectangles) {
  MeshCoordinateRangeSet set(MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(0, 1)));
  set.merge(MeshCoordinateRange(MeshCoordinate(0, 2), MeshCoordinate(0, 3)));
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set.ranges()[0], MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(0, 3)));
  // An overlapping square adds only its uncovered coordinates.
  set.merge(MeshCoordinateRange(MeshCoordinate(0, 2), MeshCoordinate(1, 3)));
  const std::vector<MeshCoordinate> expected = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
  EXPECT_EQ(set.coords(), expected);
  set.merge(MeshCoordinateRange(MeshCoordinate(1, 0), MeshCoordinate(1, 1)));
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set.ranges()[0], MeshCoordinateRange(MeshShape(2, 4)));
}

// ---- Opening meshes --------------------------------------------------------

TEST(MeshDeviceTest, TwoByFourOpensEightChipsInRowMajorOrder) {
  auto mesh = open_mesh(2, 4);
  EXPECT_EQ(mesh->shape(), MeshShape(2, 4));
  EXPECT_EQ(mesh->num_devices(), 8u);
  EXPECT_EQ(mesh->num_rows(), 2u);
  EXPECT_EQ(mesh->num_cols(), 4u);
  const std::vector<IDevice*> chips = mesh->get_devices();
  ASSERT_EQ(chips.size(), 8u);
  EXPECT_EQ(mesh->get_device_ids(), (DeviceIds{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh->shape())) {
    IDevice* chip = mesh->get_device(coord);
    EXPECT_EQ(chip, chips[coord[0] * 4 + coord[1]]);
    EXPECT_EQ(chip->id(), int(coord[0] * 4 + coord[1]));
    EXPECT_EQ(chip, mesh->get_device(coord[0], coord[1]));
    EXPECT_EQ(chip, mesh->get_device(chip->id()));
    EXPECT_TRUE(mesh->is_local(coord));
    EXPECT_EQ(chip->compute_with_storage_grid_size(), mesh->compute_with_storage_grid_size());
  }
  std::set<const tessel::Device*> simulated;
  for (IDevice* chip : chips)
    simulated.insert(&chip->native());
  EXPECT_EQ(simulated.size(), 8u);                 // each a chip of its own
  EXPECT_EQ(&mesh->native(), &chips[0]->native()); // as an IDevice, the mesh is chip (0, 0)
  EXPECT_EQ(mesh->to_string(), "MeshDevice(2x4 mesh of blackhole devices)");
  expect_validation_error([&] { mesh->get_device(MeshCoordinate(2, 0)); },
                          "MeshDevice::get_device: MeshCoordinate([2, 0]) is outside the 2x4 mesh; rows go from 0 "
                          "to 1 and columns from 0 to 3");
  expect_validation_error([&] { mesh->is_local(MeshCoordinate(0, 4)); },
                          "MeshDevice::is_local: MeshCoordinate([0, 4]) is outside the 2x4 mesh; rows go from 0 to "
                          "1 and columns from 0 to 3");
  expect_validation_error([&] { mesh->get_device(8); },
                          "MeshDevice::get_device: no device of this mesh has id 8; get_device_ids() lists them");
  expect_validation_error([&] { mesh->mesh_command_queue(1); },
                          "MeshDevice::mesh_command_queue: command queue 1 does not exist; this mesh has one "
                          "command queue, id 0");
  EXPECT_TRUE(mesh->close());
  EXPECT_FALSE(chips[7]->is_initialized());
}

TEST(MeshDeviceTest, ShapesThatDoNotFitThrowAndLeaveNothingOpen) {
#if defined(TESSEL_SANITIZE)
  GTEST_SKIP() << "the limits this test names are those of full grids without a sanitizer's shadow memory";
#endif
  expect_validation_error([] { open_mesh(3, 3); },
                          "MeshDevice::create: MeshShape([3, 3]) needs 9 devices, but at most 8 simulated blackhole "
                          "devices of 12x10 worker cores fit in one process (every core's L1 takes 4 MiB of the "
                          "address space below 4 GiB); use a mesh of at most 8 devices, a smaller TESSEL_GRID, or split it "
                          "over MPI ranks (mpirun -np N; docs/multichip.md)");
  expect_validation_error([] { open_mesh(0, 4); },
                          "MeshDevice::create: MeshShape([0, 4]) has no devices; both dimensions must be at least 1");
  expect_validation_error([] { MeshDevice::create(MeshDeviceConfig(MeshShape(1, 2)), 0, 0, 3); },
                          "MeshDevice::create: 3 command queues requested; expected 1 or 2");
  // With one chip open, the eighth chip of a 2x4 mesh finds no room: the
  // seven opened before it close again.
  {
    auto unit = MeshDevice::create_unit_mesh(0);
    EXPECT_THROW(open_mesh(2, 4), tessel::OutOfMemoryError);
  }
  auto mesh = open_mesh(2, 4);
  EXPECT_EQ(mesh->num_devices(), 8u);
}

TEST(MeshDeviceTest, UnitMeshesEachHaveOneChip) {
  auto meshes = MeshDevice::create_unit_meshes({0, 3});
  ASSERT_EQ(meshes.size(), 2u);
  for (const auto& [id, mesh] : meshes) {
    EXPECT_EQ(mesh->shape(), MeshShape(1, 1));
    EXPECT_EQ(mesh->id(), id);
    EXPECT_EQ(mesh->get_device(MeshCoordinate(0, 0))->id(), id);
  }
  EXPECT_NE(&meshes.at(0)->native(), &meshes.at(3)->native());
  expect_validation_error(
      [] {
        MeshDevice::create_unit_meshes({1, 1});
      },
      "MeshDevice::create_unit_meshes: device 1 is listed twice; give each device id once");
#if !defined(TESSEL_SANITIZE) // the limit named is that of full grids (kSmallGrid)
  expect_validation_error([] { MeshDevice::create_unit_mesh(8); },
                          "MeshDevice::create_unit_mesh: device 8 does not exist; at most 8 simulated blackhole "
                          "devices of 12x10 worker cores fit in one process, so device ids go from 0 to 7");
#endif
}

// ---- Buffers ---------------------------------------------------------------

TEST(MeshBufferTest, ReplicatedWritesReachEveryChipAtOneAddress) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  auto buffer = replicated_tiles(*mesh, 2);
  EXPECT_EQ(buffer->size(), 2 * kTileBytes);
  EXPECT_EQ(buffer->global_layout(), MeshBufferLayout::REPLICATED);
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh->shape())) {
    EXPECT_EQ(buffer->get_device_buffer(coord)->address(), buffer->address());
    EXPECT_EQ(buffer->get_device_buffer(coord)->device(), mesh->get_device(coord));
  }
  std::vector<uint32_t> data(2 * kTileBytes / 4);
  std::iota(data.begin(), data.end(), 7u);
  EnqueueWriteMeshBuffer(cq, buffer, data);
  std::vector<uint32_t> other(data.size(), 0xabcdu);
  WriteShard(cq, buffer, other, MeshCoordinate(1, 2));
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh->shape())) {
    std::vector<uint32_t> read;
    ReadShard(cq, read, buffer, coord);
    EXPECT_EQ(read, coord == MeshCoordinate(1, 2) ? other : data) << coord.str();
  }
  std::vector<uint32_t> whole{1, 2, 3};
  expect_validation_error([&] { EnqueueReadMeshBuffer(cq, whole, buffer); },
                          "EnqueueReadMeshBuffer: the buffer is replicated over 8 devices, so there is no one copy "
                          "to read; read one device's with ReadShard");
  EXPECT_EQ(whole, (std::vector<uint32_t>{1, 2, 3}));
  std::vector<uint32_t> short_source(10);
  expect_validation_error([&] { EnqueueWriteMeshBuffer(cq, buffer, short_source); },
                          "EnqueueWriteMeshBuffer: the source vector holds 40 B, less than the 4096 B the write takes");
  expect_validation_error([&] { WriteShard(cq, buffer, data, MeshCoordinate(0, 4)); },
                          "WriteShard: MeshCoordinate([0, 4]) is outside the 2x4 mesh; rows go from 0 to 1 and "
                          "columns from 0 to 3");
  expect_validation_error([&] { buffer->get_device_buffer(MeshCoordinate(2, 1)); },
                          "MeshBuffer::get_device_buffer: MeshCoordinate([2, 1]) is outside the 2x4 mesh; rows go "
                          "from 0 to 1 and columns from 0 to 3");
  buffer->deallocate();
  EXPECT_FALSE(buffer->get_device_buffer(MeshCoordinate(1, 3))->is_allocated());
}

// A 64 x 128 array of uint32 elements valued row * 1000 + col.
std::vector<uint32_t> numbered_array(size_t rows, size_t cols) {
  std::vector<uint32_t> array(rows * cols);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c)
      array[r * cols + c] = uint32_t(r * 1000 + c);
  return array;
}

// The shard_rows x shard_cols block of a numbered array whose corner is (row0, col0).
std::vector<uint32_t> numbered_block(size_t row0, size_t col0, size_t shard_rows, size_t shard_cols) {
  std::vector<uint32_t> block;
  for (size_t r = 0; r < shard_rows; ++r)
    for (size_t c = 0; c < shard_cols; ++c)
      block.push_back(uint32_t((row0 + r) * 1000 + col0 + c));
  return block;
}

TEST(MeshBufferTest, RowMajorShardsGoOnePerChipAndReadBackWhole) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  const distributed::ShardedBufferConfig config{.global_size = 64 * 128 * 4,
                                                .global_buffer_shape = {64, 128},
                                                .shard_shape = {32, 32},
                                                .shard_orientation = ShardOrientation::ROW_MAJOR};
  auto buffer = MeshBuffer::create(config, dram_pages(1024), mesh.get());
  EXPECT_EQ(buffer->size(), 64u * 128 * 4);
  EXPECT_EQ(buffer->device_local_size(), 32u * 32 * 4);
  EXPECT_EQ(buffer->datum_size_bytes(), 4u);
  const std::vector<uint32_t> array = numbered_array(64, 128);
  EnqueueWriteMeshBuffer(cq, buffer, array);
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh->shape())) {
    std::vector<uint32_t> shard;
    ReadShard(cq, shard, buffer, coord);
    EXPECT_EQ(shard, numbered_block(coord[0] * 32, coord[1] * 32, 32, 32)) << coord.str();
  }
  std::vector<uint32_t> whole;
  EnqueueReadMeshBuffer(cq, whole, buffer);
  EXPECT_EQ(whole, array);
}

TEST(MeshBufferTest, ColumnMajorShardsFillTheMeshColumnByColumn) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  // Eight 4 x 8 shards stacked vertically: shard k goes to chip (k % 2, k / 2).
  const distributed::ShardedBufferConfig config{.global_size = 32 * 8 * 4,
                                                .global_buffer_shape = {32, 8},
                                                .shard_shape = {4, 8},
                                                .shard_orientation = ShardOrientation::COL_MAJOR};
  auto buffer = MeshBuffer::create(config, dram_pages(128), mesh.get());
  const std::vector<uint32_t> array = numbered_array(32, 8);
  EnqueueWriteMeshBuffer(cq, buffer, array);
  for (uint32_t k = 0; k < 8; ++k) {
    std::vector<uint32_t> shard;
    ReadShard(cq, shard, buffer, MeshCoordinate(k % 2, k / 2));
    EXPECT_EQ(shard, numbered_block(k * 4, 0, 4, 8)) << "shard " << k;
  }
  std::vector<uint32_t> whole;
  EnqueueReadMeshBuffer(cq, whole, buffer);
  EXPECT_EQ(whole, array);
}

TEST(MeshBufferTest, AZeroShardDimensionReplicatesEachShardDownAMeshColumn) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  // Shard height 0: four 4 x 8 shards side by side, shard k on both chips of column k.
  const distributed::ShardedBufferConfig config{.global_size = 4 * 32 * 4,
                                                .global_buffer_shape = {4, 32},
                                                .shard_shape = {0, 8},
                                                .shard_orientation = ShardOrientation::ROW_MAJOR};
  auto buffer = MeshBuffer::create(config, dram_pages(128), mesh.get());
  EXPECT_EQ(buffer->physical_shard_shape(), Shape2D(4, 8));
  EnqueueWriteMeshBuffer(cq, buffer, numbered_array(4, 32));
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh->shape())) {
    std::vector<uint32_t> shard;
    ReadShard(cq, shard, buffer, coord);
    EXPECT_EQ(shard, numbered_block(0, coord[1] * 8, 4, 8)) << coord.str();
  }
  std::vector<uint32_t> whole;
  expect_validation_error([&] { EnqueueReadMeshBuffer(cq, whole, buffer); },
                          "enqueue_read_mesh_buffer: the buffer's shard_shape has a 0 dimension, so its shards are "
                          "replicated and there is no one array to assemble; read one device's shard with ReadShard");
  EXPECT_TRUE(whole.empty());
}

TEST(MeshBufferTest, BadShardedLayoutsThrowBeforeAllocating) {
  auto mesh = open_mesh(2, 4);
  const auto create = [&](const distributed::ShardedBufferConfig& config, uint32_t page_bytes) {
    return [&, config, page_bytes] { MeshBuffer::create(config, dram_pages(page_bytes), mesh.get()); };
  };
  expect_validation_error(
      create({.global_size = 64 * 128 * 4, .global_buffer_shape = {64, 128}, .shard_shape = {48, 32}}, 1024),
      "MeshBuffer::create: shard_shape 48 x 32 does not divide global_buffer_shape 64 x 128; each "
      "global dimension must be a multiple of the shard's (0 replicates it)");
  expect_validation_error(
      create({.global_size = 64 * 128 * 4, .global_buffer_shape = {64, 128}, .shard_shape = {32, 16}}, 512),
      "MeshBuffer::create: 16 shards of 32 x 16 in the 64 x 128 global_buffer_shape, but the 2x4 "
      "mesh has 8 devices; use larger shards or a larger mesh");
  expect_validation_error(
      create({.global_size = 1000, .global_buffer_shape = {64, 128}, .shard_shape = {32, 32}}, 1024),
      "MeshBuffer::create: global_size 1000 B is not a whole number of bytes for each of the 8192 "
      "elements of the 64 x 128 global_buffer_shape");
  expect_validation_error(
      create({.global_size = 4 * 40 * 4, .global_buffer_shape = {4, 40}, .shard_shape = {0, 8}}, 128),
      "MeshBuffer::create: 5 shards of 4 x 8, each replicated over a mesh column (ROW_MAJOR), but "
      "the 2x4 mesh has 4 columns");
  expect_validation_error(
      create({.global_size = 64 * 128 * 4, .global_buffer_shape = {64, 128}, .shard_shape = {32, 32}}, 3000),
      "MeshBuffer::create: each device's buffer would be 4096 B, not a whole number of 3000 B "
      "pages");
  expect_validation_error(
      [&] { MeshBuffer::create(ReplicatedBufferConfig{.size = 4096}, dram_pages(1024), mesh.get(), 0x1000); },
      "MeshBuffer::create: placing a buffer at a given address is not supported");
}

TEST(MeshBufferTest, ABufferOnOneChipBreaksLockstepAndTheFailedCreateFreesEverything) {
  auto mesh = open_mesh(2, 4);
  uint32_t first_address = 0;
  {
    auto probe = replicated_tiles(*mesh, 1);
    first_address = probe->address();
  }
  auto lone = CreateBuffer(
      InterleavedBufferConfig{mesh->get_device(MeshCoordinate(0, 1)), 64 * kTileBytes, kTileBytes, BufferType::DRAM});
  try {
    replicated_tiles(*mesh, 1);
    ADD_FAILURE() << "MeshBuffer::create placed a buffer at different addresses";
  } catch (const tessel::ValidationError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("MeshBuffer::create: the devices of the mesh have different memory free: the device at "
                           "MeshCoordinate([0, 0]) placed the buffer at 0x"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("but the device at MeshCoordinate([0, 1]) at 0x"), std::string::npos) << message;
  }
  lone->deallocate();
  auto again = replicated_tiles(*mesh, 1);
  EXPECT_EQ(again->address(), first_address);
}

// ---- Workloads, events, traces ---------------------------------------------

// A, B and C of `tiles` tiles replicated over `mesh`, with A = 1 and B = 2.
struct AddBuffers {
  std::shared_ptr<MeshBuffer> a, b, c;
};

AddBuffers add_buffers(MeshDevice& mesh, uint32_t tiles) {
  AddBuffers buffers{replicated_tiles(mesh, tiles), replicated_tiles(mesh, tiles), replicated_tiles(mesh, tiles)};
  MeshCommandQueue& cq = mesh.mesh_command_queue();
  const size_t values = tiles * tt::constants::TILE_HW;
  EnqueueWriteMeshBuffer(cq, buffers.a, constant(values, 1));
  EnqueueWriteMeshBuffer(cq, buffers.b, constant(values, 2));
  EnqueueWriteMeshBuffer(cq, buffers.c, constant(values, -1));
  return buffers;
}

// Each chip's C, as floats, row-major over the mesh.
std::vector<std::vector<float>> read_c(MeshDevice& mesh, const std::shared_ptr<MeshBuffer>& c) {
  std::vector<std::vector<float>> per_chip;
  for (const MeshCoordinate& coord : MeshCoordinateRange(mesh.shape())) {
    std::vector<bfloat16> values;
    ReadShard(mesh.mesh_command_queue(), values, c, coord);
    per_chip.push_back(to_floats(values));
  }
  return per_chip;
}

TEST(MeshWorkloadTest, ProgramsPerRangeRunOnTheirChipsWithTheirArgs) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  AddBuffers bufs = add_buffers(*mesh, 2);
  // Top row adds both tiles, (1, 0)-(1, 2) only the first; (1, 3) runs nothing.
  MeshWorkload workload;
  workload.add_program(MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(0, 3)),
                       add_program(*bufs.a, *bufs.b, *bufs.c, 2));
  AddProgramToMeshWorkload(workload, add_program(*bufs.a, *bufs.b, *bufs.c, 1),
                           MeshCoordinateRange(MeshCoordinate(1, 0), MeshCoordinate(1, 2)));
  EnqueueMeshWorkload(cq, workload, false);
  Finish(cq);
  const std::vector<std::vector<float>> c = read_c(*mesh, bufs.c);
  const size_t tile_values = tt::constants::TILE_HW;
  for (size_t chip = 0; chip < 8; ++chip) {
    const size_t tiles_added = chip < 4 ? 2 : chip < 7 ? 1 : 0;
    for (size_t i = 0; i < c[chip].size(); ++i)
      if (c[chip][i] != (i < tiles_added * tile_values ? 3.0f : -1.0f)) {
        ADD_FAILURE() << "chip " << chip << " value " << i << " is " << c[chip][i];
        break;
      }
    EXPECT_EQ(cq.chip_queue(chip).programs_run(), chip < 7 ? 1u : 0u);
  }
}

TEST(MeshWorkloadTest, BadWorkloadsThrowAndRunNothing) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  AddBuffers bufs = add_buffers(*mesh, 1);
  MeshWorkload empty;
  expect_validation_error([&] { EnqueueMeshWorkload(cq, empty, true); },
                          "EnqueueMeshWorkload: the workload has no programs; add one with workload.add_program("
                          "MeshCoordinateRange(mesh_device->shape()), std::move(program))");
  MeshWorkload workload;
  workload.add_program(MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(1, 1)),
                       add_program(*bufs.a, *bufs.b, *bufs.c, 1));
  expect_validation_error(
      [&] {
        workload.add_program(MeshCoordinateRange(MeshCoordinate(1, 1), MeshCoordinate(1, 3)),
                             add_program(*bufs.a, *bufs.b, *bufs.c, 1));
      },
      "MeshWorkload::add_program: MeshCoordinateRange(MeshCoordinate([1, 1]), MeshCoordinate([1, 3])) overlaps the "
      "range of an earlier program, MeshCoordinateRange(MeshCoordinate([0, 0]), MeshCoordinate([1, 1])); each device "
      "runs at most one program of a workload");
  EXPECT_EQ(workload.get_programs().size(), 1u);
  workload.add_program(MeshCoordinateRange(MeshCoordinate(0, 2), MeshCoordinate(2, 3)),
                       add_program(*bufs.a, *bufs.b, *bufs.c, 1));
  expect_validation_error([&] { EnqueueMeshWorkload(cq, workload, true); },
                          "EnqueueMeshWorkload: MeshCoordinateRange(MeshCoordinate([0, 2]), MeshCoordinate([2, 3])) "
                          "is not inside the 2x4 mesh, MeshCoordinateRange(MeshCoordinate([0, 0]), "
                          "MeshCoordinate([1, 3]))");
  for (size_t chip = 0; chip < 8; ++chip)
    EXPECT_EQ(cq.chip_queue(chip).programs_run(), 0u);
}

TEST(MeshWorkloadTest, EventsCoverTheirRangeOfChips) {
  auto mesh = open_mesh(2, 2);
  auto other = MeshDevice::create_unit_mesh(0);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  const MeshEvent all = EnqueueRecordEvent(cq);
  EXPECT_EQ(all.id(), 1u);
  EXPECT_EQ(all.device(), mesh.get());
  EXPECT_EQ(all.device_range(), MeshCoordinateRange(mesh->shape()));
  EXPECT_EQ(all.chip_events().size(), 4u);
  const MeshCoordinateRange column(MeshCoordinate(0, 1), MeshCoordinate(1, 1));
  const MeshEvent some = EnqueueRecordEventToHost(cq, {}, column);
  EXPECT_EQ(some.id(), 2u);
  ASSERT_EQ(some.chip_events().size(), 2u);
  EXPECT_EQ(some.chip_events()[1]->device().get(), &mesh->get_device(MeshCoordinate(1, 1))->native());
  EXPECT_TRUE(EventQuery(some));
  EventSynchronize(all);
  EnqueueWaitForEvent(cq, some);
  expect_validation_error(
      [&] { EnqueueRecordEvent(cq, {}, MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(0, 4))); },
      "EnqueueRecordEvent: MeshCoordinateRange(MeshCoordinate([0, 0]), MeshCoordinate([0, 4])) is "
      "not inside the 2x2 mesh, MeshCoordinateRange(MeshCoordinate([0, 0]), MeshCoordinate([1, 1]))");
  const MeshEvent foreign = EnqueueRecordEvent(other->mesh_command_queue());
  expect_validation_error([&] { EnqueueWaitForEvent(cq, foreign); },
                          "EnqueueWaitForEvent: the event was recorded on another MeshDevice's queue; a mesh command "
                          "queue waits only for events of its own mesh");
  Synchronize(mesh.get(), 0);
  expect_validation_error([&] { Synchronize(mesh.get(), 1); },
                          "MeshDevice::mesh_command_queue: command queue 1 does not exist; this mesh has one "
                          "command queue, id 0");
}

TEST(MeshWorkloadTest, TracesReplayOnEveryChip) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  AddBuffers bufs = add_buffers(*mesh, 1);
  MeshWorkload workload(add_program(*bufs.a, *bufs.b, *bufs.c, 1), MeshCoordinateRange(mesh->shape()));
  const MeshTraceId trace = BeginTraceCapture(mesh.get(), 0);
  EnqueueMeshWorkload(cq, workload, false);
  expect_validation_error([&] { BeginTraceCapture(mesh.get(), 0); },
                          "MeshDevice::begin_mesh_trace: trace 1 is being captured on this mesh; end it with "
                          "end_mesh_trace(0, 1) before beginning another");
  expect_validation_error([&] { ReplayTrace(mesh.get(), 0, trace, true); },
                          "MeshDevice::replay_mesh_trace: trace 1 is being captured on this mesh; end it before "
                          "replaying a trace");
  EndTraceCapture(mesh.get(), 0, trace);
  for (size_t chip = 0; chip < 8; ++chip)
    EXPECT_EQ(cq.chip_queue(chip).programs_run(), 0u); // captured, not run
  ReplayTrace(mesh.get(), 0, trace, false);
  ReplayTrace(mesh.get(), 0, trace, true);
  for (const std::vector<float>& c : read_c(*mesh, bufs.c))
    EXPECT_EQ(c, std::vector<float>(c.size(), 3.0f));
  for (size_t chip = 0; chip < 8; ++chip)
    EXPECT_EQ(cq.chip_queue(chip).programs_run(), 2u);
  ReleaseTrace(mesh.get(), trace);
  expect_validation_error([&] { ReplayTrace(mesh.get(), 0, trace, true); },
                          "MeshDevice::replay_mesh_trace: trace 1 does not exist on this mesh (never captured, or "
                          "released)");
  expect_validation_error([&] { EndTraceCapture(mesh.get(), 0, trace); },
                          "MeshDevice::end_mesh_trace: trace 1 is not being captured (no trace is); end the trace "
                          "begin_mesh_trace returned");
}

TEST(MeshWorkloadTest, ATraceOfPartOfTheMeshRunsOnlyThere) {
  auto mesh = open_mesh(2, 4);
  MeshCommandQueue& cq = mesh->mesh_command_queue();
  AddBuffers bufs = add_buffers(*mesh, 1);
  MeshWorkload workload(add_program(*bufs.a, *bufs.b, *bufs.c, 1),
                        MeshCoordinateRange(MeshCoordinate(0, 0), MeshCoordinate(0, 1)));
  const MeshTraceId trace = mesh->begin_mesh_trace(0);
  EnqueueMeshWorkload(cq, workload, false);
  mesh->end_mesh_trace(0, trace);
  mesh->replay_mesh_trace(0, trace, true);
  const std::vector<std::vector<float>> c = read_c(*mesh, bufs.c);
  for (size_t chip = 0; chip < 8; ++chip) {
    EXPECT_EQ(c[chip], std::vector<float>(c[chip].size(), chip < 2 ? 3.0f : -1.0f)) << "chip " << chip;
    EXPECT_EQ(cq.chip_queue(chip).programs_run(), chip < 2 ? 1u : 0u);
  }
  mesh->release_mesh_trace(trace);
}

} // namespace
