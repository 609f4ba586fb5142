// matmul_single_core in TT-Metalium's mesh spellings: C = A B on core (0,0),
// bfloat16 inputs tilized with tilize_nfaces, the compute kernel
// accumulating over K in DST. The program is run once, then captured in a
// trace and replayed into a cleared output. Check, both times: PCC >= 0.999
// against a float64 reference, and every value within (Kt + 1) bfloat16
// roundings of sum_k |a_ik b_kj|.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/tilize_utils.hpp>

#include "matmul_common/compat/matmul_check.hpp"

using namespace tt::tt_metal;
using namespace tt::constants;

namespace {

bool check(const std::vector<bfloat16>& a, const std::vector<bfloat16>& b, const std::vector<bfloat16>& c, uint32_t M,
           uint32_t N, uint32_t K, const char* what) {
  const std::string label = std::string("matmul_single_core: ") + what;
  return check_bf16_matmul(a, b, c, M, N, K, K / TILE_WIDTH + 1, label.c_str());
}

} // namespace

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    constexpr uint32_t M = 96, N = 96, K = 128;
    constexpr uint32_t Mt = M / TILE_HEIGHT, Nt = N / TILE_WIDTH, Kt = K / TILE_WIDTH;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;

    std::mt19937 rng(3);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
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
    distributed::EnqueueWriteMeshBuffer(cq, a_buf, tilize_nfaces(a, M, K), false);
    distributed::EnqueueWriteMeshBuffer(cq, b_buf, tilize_nfaces(b, K, N), false);

    Program program = CreateProgram();
    constexpr CoreCoord core = {0, 0};
    for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
      CreateCircularBuffer(
          program, core,
          CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
    std::vector<uint32_t> reader_args, writer_args;
    TensorAccessorArgs(*a_buf).append_to(reader_args);
    TensorAccessorArgs(*b_buf).append_to(reader_args);
    TensorAccessorArgs(*c_buf).append_to(writer_args);
    KernelHandle reader = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_single_core/kernels/reader_single_core_mm.cpp", core,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_0, .noc = NOC::RISCV_0_default, .compile_args = reader_args});
    KernelHandle writer = CreateKernel(
        program, OVERRIDE_KERNEL_PREFIX "matmul_single_core/kernels/writer_unary_interleaved_start_id.cpp", core,
        DataMovementConfig{
            .processor = DataMovementProcessor::RISCV_1, .noc = NOC::RISCV_1_default, .compile_args = writer_args});
    KernelHandle compute = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "matmul_single_core/kernels/mm.cpp", core,
                                        ComputeConfig{.math_fidelity = MathFidelity::HiFi4});
    SetRuntimeArgs(program, reader, core, {a_buf->address(), b_buf->address(), Mt, Kt, Nt});
    SetRuntimeArgs(program, compute, core, {Mt * Nt, Kt});
    SetRuntimeArgs(program, writer, core, {c_buf->address(), Mt * Nt, 0});

    distributed::MeshWorkload workload;
    workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
    distributed::EnqueueMeshWorkload(cq, workload, false);
    std::vector<bfloat16> c_tiles;
    distributed::EnqueueReadMeshBuffer(cq, c_tiles, c_buf, true);
    bool ok = check(a, b, untilize_nfaces(c_tiles, M, N), M, N, K, "enqueued");

    // The same workload from a trace, into a cleared output.
    distributed::EnqueueWriteMeshBuffer(cq, c_buf, std::vector<bfloat16>(M * N, bfloat16(0.0f)), true);
    const distributed::MeshTraceId trace = distributed::BeginTraceCapture(mesh_device.get(), 0);
    distributed::EnqueueMeshWorkload(cq, workload, false);
    distributed::EndTraceCapture(mesh_device.get(), 0, trace);
    distributed::ReplayTrace(mesh_device.get(), 0, trace, false);
    distributed::Finish(cq);
    distributed::ReleaseTrace(mesh_device.get(), trace);
    distributed::ReadShard(cq, c_tiles, c_buf, distributed::MeshCoordinate(0, 0), true);
    ok = check(a, b, untilize_nfaces(c_tiles, M, N), M, N, K, "replayed from a trace") && ok;

    mesh_device->close();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul_single_core: %s\n", e.what());
    return 1;
  }
}
