// loopback in TT-Metalium's mesh spellings: one BRISC kernel on core (0,0)
// copies a DRAM buffer to another through a one-page L1 scratch buffer; the
// output must equal the input bit for bit.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <numeric>
#include <vector>

#include <tt-metalium/distributed.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>

using namespace tt::tt_metal;

int main() {
  try {
    auto mesh_device = distributed::MeshDevice::create_unit_mesh(0);
    distributed::MeshCommandQueue& cq = mesh_device->mesh_command_queue();

    constexpr uint32_t num_tiles = 16;
    constexpr uint32_t tile_bytes = 2048; // one bf16 tile
    distributed::DeviceLocalBufferConfig dram_config{.page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    distributed::DeviceLocalBufferConfig l1_config{.page_size = tile_bytes, .buffer_type = BufferType::L1};
    distributed::ReplicatedBufferConfig dram_size{.size = num_tiles * tile_bytes};
    distributed::ReplicatedBufferConfig l1_size{.size = tile_bytes};
    auto src = distributed::MeshBuffer::create(dram_size, dram_config, mesh_device.get());
    auto dst = distributed::MeshBuffer::create(dram_size, dram_config, mesh_device.get());
    auto scratch = distributed::MeshBuffer::create(l1_size, l1_config, mesh_device.get());

    std::vector<uint32_t> input(dram_size.size / sizeof(uint32_t));
    std::iota(input.begin(), input.end(), 0x1000u);
    distributed::EnqueueWriteMeshBuffer(cq, src, input, false);

    Program program = CreateProgram();
    constexpr CoreCoord core = {0, 0};
    std::vector<uint32_t> compile_args;
    TensorAccessorArgs(*src).append_to(compile_args);
    TensorAccessorArgs(*dst).append_to(compile_args);
    KernelHandle copy = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "loopback/kernels/loopback_dram_copy.cpp", core,
                                     DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                        .noc = NOC::RISCV_0_default,
                                                        .compile_args = compile_args});
    SetRuntimeArgs(program, copy, core, {scratch->address(), src->address(), dst->address(), num_tiles});

    distributed::MeshWorkload workload;
    workload.add_program(distributed::MeshCoordinateRange(mesh_device->shape()), std::move(program));
    distributed::EnqueueMeshWorkload(cq, workload, false);
    distributed::Finish(cq);

    std::vector<uint32_t> output;
    distributed::ReadShard(cq, output, dst, distributed::MeshCoordinate(0, 0), true);
    mesh_device->close();

    if (output != input) {
      std::printf("loopback: FAILED: output differs from input\n");
      return 1;
    }
    std::printf("loopback: copied %u tiles DRAM -> L1 -> DRAM: output matches input\n", num_tiles);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loopback: %s\n", e.what());
    return 1;
  }
}
