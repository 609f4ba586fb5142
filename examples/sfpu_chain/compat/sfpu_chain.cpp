// sfpu_chain in TT-Metalium's mesh spellings: z = relu(sigmoid(exp(x)) *
// tanh(y)) with every step on the SFPU inside one DST acquire per tile; the
// reader and writer are eltwise_binary's. Each value must be within
// 3.5 (2^-8 + 2^-24) of the float64 result, relative (the first-order bound
// of the chain with a 16-bit DST; sfpu_chain.cpp derives it).
#include <algorithm>
#include <cmath>
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
#include <tt-metalium/work_split.hpp>

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    constexpr uint32_t num_tiles = 16;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;
    distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    distributed::ReplicatedBufferConfig buffer_config{.size = num_tiles * tile_bytes};
    auto x_buf = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
    auto y_buf = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
    auto z_buf = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());

    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<bfloat16> x(num_tiles * TILE_HW), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = bfloat16(dist(rng));
      y[i] = bfloat16(dist(rng));
    }
    distributed::EnqueueWriteMeshBuffer(cq, x_buf, x, false);
    distributed::EnqueueWriteMeshBuffer(cq, y_buf, y, false);

    const auto [num_cores, all_cores, core_group_1, core_group_2, tiles_per_core_1, tiles_per_core_2] =
        split_work_to_cores(mesh_device->compute_with_storage_grid_size(), num_tiles);
    Program program = CreateProgram();
    for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      CreateCircularBuffer(
          program, all_cores,
          CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*x_buf).append_to(reader_args);
    TensorAccessorArgs(*y_buf).append_to(reader_args);
    TensorAccessorArgs(*z_buf).append_to(writer_args);
    KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/reader.cpp", all_cores,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                          .noc = NOC::RISCV_0_default,
                                                          .compile_args = reader_args});
    KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/writer.cpp", all_cores,
                                       DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                          .noc = NOC::RISCV_1_default,
                                                          .compile_args = writer_args});
    KernelHandle compute = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "sfpu_chain/kernels/compute.cpp", all_cores,
                                        ComputeConfig{.math_fidelity = MathFidelity::HiFi4});
    uint32_t start = 0;
    for (const auto& [group, count] :
         {std::pair{core_group_1, tiles_per_core_1}, std::pair{core_group_2, tiles_per_core_2}})
      for (const CoreRange& range : group.ranges())
        for (const CoreCoord& core : range) {
          SetRuntimeArgs(program, reader, core, {x_buf->address(), y_buf->address(), start, count});
          SetRuntimeArgs(program, compute, core, {count});
          SetRuntimeArgs(program, writer, core, {z_buf->address(), start, count});
          start += count;
        }

    distributed::MeshWorkload workload;
    workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
    distributed::EnqueueMeshWorkload(cq, workload, false);
    std::vector<bfloat16> z;
    distributed::ReadShard(cq, z, z_buf, distributed::MeshCoordinate(0, 0), true);
    mesh_device->close();

    const double bound = 3.5 * (0x1p-8 + 0x1p-24);
    uint32_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < z.size(); ++i) {
      const double a = 1 / (1 + std::exp(-std::exp(double(float(x[i])))));
      const double ref = std::max(a * std::tanh(double(float(y[i]))), 0.0);
      const double err = std::fabs(double(float(z[i])) - ref);
      if (!(err <= bound * ref + 0x1p-126)) ++bad;
      if (ref > 0) worst = std::max(worst, err / ref);
    }
    std::printf("sfpu_chain: z = relu(sigmoid(exp(x)) * tanh(y)) on %u tiles over %u cores: %s (max rel err %.2g)\n",
                num_tiles, num_cores, bad ? "VALUES OUTSIDE THE BOUND" : "every value within its bound", worst);
    return bad == 0 && start == num_tiles ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sfpu_chain: %s\n", e.what());
    return 1;
  }
}
