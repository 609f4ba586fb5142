// eltwise_binary in TT-Metalium's mesh spellings: C = A op B on bfloat16
// tiles for op = add, sub and mul (picked by the ELTWISE_OP defines), split
// over the grid with split_work_to_cores. Each result must be within one
// bfloat16 rounding of the float64 result on the stored inputs.
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
#include <tt-metalium/work_split.hpp>

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();
    constexpr uint32_t num_tiles = 40;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;

    distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    distributed::ReplicatedBufferConfig buffer_config{.size = num_tiles * tile_bytes};
    auto a = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
    auto b = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());
    auto c = distributed::MeshBuffer::create(buffer_config, dram_config, mesh_device.get());

    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    std::vector<bfloat16> a_vec(num_tiles * TILE_HW), b_vec(a_vec.size());
    for (size_t i = 0; i < a_vec.size(); ++i) {
      a_vec[i] = bfloat16(dist(rng));
      b_vec[i] = bfloat16(dist(rng));
    }
    distributed::EnqueueWriteMeshBuffer(cq, a, a_vec, false);
    distributed::EnqueueWriteMeshBuffer(cq, b, b_vec, false);

    const auto [num_cores, all_cores, core_group_1, core_group_2, tiles_per_core_1, tiles_per_core_2] =
        split_work_to_cores(mesh_device->compute_with_storage_grid_size(), num_tiles);

    struct Op {
      const char* name;
      const char* call;
      double (*ref)(double, double);
    };
    const Op ops[] = {{"add", "add_tiles", [](double x, double y) { return x + y; }},
                      {"sub", "sub_tiles", [](double x, double y) { return x - y; }},
                      {"mul", "mul_tiles", [](double x, double y) { return x * y; }}};
    bool ok = true;
    for (const Op& op : ops) {
      Program program = CreateProgram();
      for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_1, tt::CBIndex::c_16})
        CreateCircularBuffer(
            program, all_cores,
            CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
      std::vector<uint32_t> reader_args, writer_args;
      TensorAccessorArgs(*a).append_to(reader_args);
      TensorAccessorArgs(*b).append_to(reader_args);
      TensorAccessorArgs(*c).append_to(writer_args);
      KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/reader.cpp", all_cores,
                                         DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                            .noc = NOC::RISCV_0_default,
                                                            .compile_args = reader_args});
      KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/writer.cpp", all_cores,
                                         DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                            .noc = NOC::RISCV_1_default,
                                                            .compile_args = writer_args});
      KernelHandle compute = CreateKernel(
          program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/compute.cpp", all_cores,
          ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                        .defines = {{"ELTWISE_OP", op.call}, {"ELTWISE_OP_INIT", std::string(op.call) + "_init"}}});
      uint32_t start = 0;
      for (const auto& [group, count] :
           {std::pair{core_group_1, tiles_per_core_1}, std::pair{core_group_2, tiles_per_core_2}})
        for (const CoreRange& range : group.ranges())
          for (const CoreCoord& core : range) {
            SetRuntimeArgs(program, reader, core, {a->address(), b->address(), start, count});
            SetRuntimeArgs(program, compute, core, {count});
            SetRuntimeArgs(program, writer, core, {c->address(), start, count});
            start += count;
          }

      distributed::MeshWorkload workload;
      workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
      distributed::EnqueueMeshWorkload(cq, workload, false);
      std::vector<bfloat16> c_vec;
      distributed::EnqueueReadMeshBuffer(cq, c_vec, c, true);

      // One bfloat16 rounding of the exact result: half a bf16 ULP, 2^-8 relative at most.
      uint32_t bad = 0;
      for (size_t i = 0; i < c_vec.size(); ++i) {
        const double ref = op.ref(float(a_vec[i]), float(b_vec[i]));
        if (!(std::fabs(double(float(c_vec[i])) - ref) <= std::ldexp(std::fabs(ref), -8))) ++bad;
      }
      std::printf("eltwise_binary: %s on %u tiles over %u cores: %s\n", op.name, num_tiles, num_cores,
                  bad ? "VALUES OUTSIDE THE BOUND" : "every value within one bf16 rounding");
      ok = ok && bad == 0 && start == num_tiles;
    }
    mesh_device->close();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "eltwise_binary: %s\n", e.what());
    return 1;
  }
}
