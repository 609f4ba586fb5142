// A distributed eltwise add in TT-Metalium's mesh spellings, over a 2x4 mesh:
// A is a 128 x 128 bfloat16 array sharded into 64 x 32 blocks (two tiles'
// worth), one block per chip in row-major order; B is two tiles replicated
// on every chip; each chip computes its block of C = A + B with
// examples/eltwise_binary's kernels, and C is read back assembled from its
// shards. Inputs are small integers, so every sum is exact in bfloat16 and
// the result must equal the host reference.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

using namespace tt::tt_metal;
using namespace tt::tt_metal::distributed;

int main() {
  try {
    auto mesh_device = MeshDevice::create(MeshDeviceConfig(MeshShape(2, 4)));
    MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * tt::constants::TILE_HW;
    constexpr uint32_t tiles_per_chip = 2;
    const Shape2D shard_shape{64, 32};
    const Shape2D global_shape{shard_shape.height() * mesh_device->num_rows(),
                               shard_shape.width() * mesh_device->num_cols()};
    const uint32_t global_bytes = uint32_t(global_shape.height() * global_shape.width() * sizeof(bfloat16));

    const DeviceLocalBufferConfig dram{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    const distributed::ShardedBufferConfig sharded{.global_size = global_bytes,
                                                   .global_buffer_shape = global_shape,
                                                   .shard_shape = shard_shape,
                                                   .shard_orientation = ShardOrientation::ROW_MAJOR};
    auto a = MeshBuffer::create(sharded, dram, mesh_device.get());
    auto b = MeshBuffer::create(ReplicatedBufferConfig{.size = tiles_per_chip * tile_bytes}, dram, mesh_device.get());
    auto c = MeshBuffer::create(sharded, dram, mesh_device.get());

    std::mt19937 rng(7);
    std::uniform_int_distribution<int> small(-64, 64);
    std::vector<bfloat16> a_values(global_shape.height() * global_shape.width());
    std::vector<bfloat16> b_values(shard_shape.height() * shard_shape.width());
    for (bfloat16& v : a_values)
      v = bfloat16(float(small(rng)));
    for (bfloat16& v : b_values)
      v = bfloat16(float(small(rng)));
    EnqueueWriteMeshBuffer(cq, a, a_values, false);
    EnqueueWriteMeshBuffer(cq, b, b_values, false);

    const CoreCoord core{0, 0};
    Program program = CreateProgram();
    for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      CreateCircularBuffer(
          program, core,
          CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*a->get_reference_buffer()).append_to(reader_args);
    TensorAccessorArgs(*b->get_reference_buffer()).append_to(reader_args);
    TensorAccessorArgs(*c->get_reference_buffer()).append_to(writer_args);
    KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/reader.cpp", core,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                          .noc = NOC::RISCV_0_default,
                                                          .compile_args = reader_args});
    KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/writer.cpp", core,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                          .noc = NOC::RISCV_1_default,
                                                          .compile_args = writer_args});
    KernelHandle compute =
        CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/compute.cpp", core,
                     ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                                   .defines = {{"ELTWISE_OP", "add_tiles"}, {"ELTWISE_OP_INIT", "add_tiles_init"}}});
    SetRuntimeArgs(program, reader, core, {a->address(), b->address(), 0, tiles_per_chip});
    SetRuntimeArgs(program, compute, core, {tiles_per_chip});
    SetRuntimeArgs(program, writer, core, {c->address(), 0, tiles_per_chip});

    MeshWorkload workload;
    AddProgramToMeshWorkload(workload, std::move(program), MeshCoordinateRange(mesh_device->shape()));
    EnqueueMeshWorkload(cq, workload, false);
    Finish(cq);
    std::vector<bfloat16> c_values;
    EnqueueReadMeshBuffer(cq, c_values, c, true);

    // Element (r, col) of the global array sits at (r % 64, col % 32) of its shard,
    // which the chip adds to the same element of its copy of B.
    size_t mismatches = 0;
    for (size_t r = 0; r < global_shape.height(); ++r)
      for (size_t col = 0; col < global_shape.width(); ++col) {
        const size_t i = r * global_shape.width() + col;
        const size_t in_shard = (r % shard_shape.height()) * shard_shape.width() + col % shard_shape.width();
        if (float(c_values[i]) != float(a_values[i]) + float(b_values[in_shard])) ++mismatches;
      }
    std::printf("distributed_eltwise_add: %zu values over %zu devices: %s\n", c_values.size(),
                mesh_device->num_devices(), mismatches ? "MISMATCHES" : "every value equals the host reference");
    mesh_device->close();
    return mismatches == 0 && c_values.size() == a_values.size() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distributed_eltwise_add: %s\n", e.what());
    return 1;
  }
}
