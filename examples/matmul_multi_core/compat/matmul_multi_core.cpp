// matmul_multi_core in TT-Metalium's mesh spellings, shaped like Metalium's
// example: the Mt x Nt output tiles are split over the grid with
// split_work_to_cores, each core taking a contiguous run; bfloat16 inputs
// tilized with tilize_nfaces. Check: PCC >= 0.999 against a float64
// reference and every value within (Kt + 1) bfloat16 roundings of
// sum_k |a_ik b_kj|.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <utility>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "matmul_common/compat/matmul_check.hpp"
#include <tt-metalium/work_split.hpp>

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    constexpr uint32_t M = 160, N = 128, K = 96;
    constexpr uint32_t Mt = M / TILE_HEIGHT, Nt = N / TILE_WIDTH, Kt = K / TILE_WIDTH;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;

    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
    std::vector<bfloat16> a(M * K), b(K * N);
    for (bfloat16& v : a)
      v = bfloat16(dist(rng));
    for (bfloat16& v : b)
      v = bfloat16(dist(rng));

    distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    auto a_buf = distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = Mt * Kt * tile_bytes},
                                                 dram_config, mesh_device.get());
    auto b_buf = distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = Kt * Nt * tile_bytes},
                                                 dram_config, mesh_device.get());
    auto c_buf = distributed::MeshBuffer::create(distributed::ReplicatedBufferConfig{.size = Mt * Nt * tile_bytes},
                                                 dram_config, mesh_device.get());

    auto [num_cores, all_cores, core_group_1, core_group_2, work_per_core_1, work_per_core_2] =
        split_work_to_cores(mesh_device->compute_with_storage_grid_size(), Mt * Nt);

    Program program{};
    for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      CreateCircularBuffer(
          program, all_cores,
          CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*a_buf).append_to(reader_args);
    TensorAccessorArgs(*b_buf).append_to(reader_args);
    TensorAccessorArgs(*c_buf).append_to(writer_args);
    KernelHandle reader = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_multi_core/kernels/reader_mm_output_tiles_partitioned.cpp", all_cores,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default, .compile_args = reader_args});
    KernelHandle writer = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_single_core/kernels/writer_unary_interleaved_start_id.cpp", all_cores,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default, .compile_args = writer_args});
    KernelHandle compute = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "matmul_single_core/kernels/mm.cpp", all_cores,
                                        ComputeConfig{.math_fidelity = MathFidelity::HiFi4, .compile_args = {}});

    uint32_t work_offset = 0;
    auto work_groups = {std::make_pair(core_group_1, work_per_core_1), std::make_pair(core_group_2, work_per_core_2)};
    for (const auto& [ranges, work_per_core] : work_groups)
      for (const auto& range : ranges.ranges())
        for (const auto& core : range) {
          SetRuntimeArgs(program, reader, core,
                         {a_buf->address(), b_buf->address(), Mt, Kt, Nt, work_offset, work_per_core});
          SetRuntimeArgs(program, writer, core, {c_buf->address(), work_per_core, work_offset});
          SetRuntimeArgs(program, compute, core, {work_per_core, Kt});
          work_offset += work_per_core;
        }

    distributed::EnqueueWriteMeshBuffer(cq, a_buf, tilize_nfaces(a, M, K), false);
    distributed::EnqueueWriteMeshBuffer(cq, b_buf, tilize_nfaces(b, K, N), false);
    distributed::MeshWorkload workload;
    workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
    distributed::EnqueueMeshWorkload(cq, workload, false);
    std::vector<bfloat16> c_tiles;
    distributed::EnqueueReadMeshBuffer(cq, c_tiles, c_buf, true);
    mesh_device->close();
    const std::vector<bfloat16> c = untilize_nfaces(c_tiles, M, N);

    std::printf("matmul_multi_core: %u output tiles over %u cores\n", Mt * Nt, num_cores);
    const bool ok = check_bf16_matmul(a, b, c, M, N, K, Kt + 1, "matmul_multi_core");
    return ok && work_offset == Mt * Nt ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_multi_core: %s\n", e.what());
    return 1;
  }
}
