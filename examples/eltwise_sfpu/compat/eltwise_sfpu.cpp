// eltwise_sfpu in TT-Metalium's legacy spellings: y = op(x) on bfloat16 tiles
// for a few SFPU ops (picked by the SFPU_OP defines, one program each), split
// over the grid. exp and sqrt must be within one bfloat16 rounding of the
// float64 result plus half a float ULP, relu and abs exact.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include <tt-metalium/bfloat16.hpp>
#include <tt-metalium/constants.hpp>
#include <tt-metalium/host_api.hpp>
#include <tt-metalium/tensor_accessor_args.hpp>
#include <tt-metalium/work_split.hpp>

using namespace tt::tt_metal;
using namespace tt::constants;

int main() {
  try {
    IDevice* device = CreateDevice(0);
    CommandQueue& cq = device->command_queue();
    constexpr uint32_t num_tiles = 24;
    constexpr uint32_t tile_bytes = sizeof(bfloat16) * TILE_HW;
    InterleavedBufferConfig config{
        .device = device, .size = num_tiles * tile_bytes, .page_size = tile_bytes, .buffer_type = BufferType::DRAM};
    std::shared_ptr<Buffer> x_buf = CreateBuffer(config);
    std::shared_ptr<Buffer> y_buf = CreateBuffer(config);

    const auto [num_cores, all_cores, core_group_1, core_group_2, tiles_per_core_1, tiles_per_core_2] =
        split_work_to_cores(device->compute_with_storage_grid_size(), num_tiles);

    struct Op {
      const char* name;
      const char* init;
      const char* call;
      float lo, hi;
      double (*ref)(double);
      bool exact;
    };
    const Op ops[] = {
        {"exp", "exp_tile_init()", "exp_tile(0)", -8, 8, [](double v) { return std::exp(v); }, false},
        {"sqrt", "sqrt_tile_init()", "sqrt_tile(0)", 0, 100, [](double v) { return std::sqrt(v); }, false},
        {"relu", "relu_tile_init()", "relu_tile(0)", -4, 4, [](double v) { return std::max(v, 0.0); }, true},
        {"abs", "abs_tile_init()", "abs_tile(0)", -4, 4, [](double v) { return std::fabs(v); }, true},
    };
    std::mt19937 rng(7);
    bool ok = true;
    for (const Op& op : ops) {
      std::uniform_real_distribution<float> dist(op.lo, op.hi);
      std::vector<bfloat16> x(num_tiles * TILE_HW);
      for (bfloat16& v : x)
        v = bfloat16(dist(rng));
      EnqueueWriteBuffer(cq, x_buf, x, false);

      Program program = CreateProgram();
      for (tt::CBIndex cb : {tt::CBIndex::c_0, tt::CBIndex::c_16})
        CreateCircularBuffer(
            program, all_cores,
            CircularBufferConfig(2 * tile_bytes, {{cb, tt::DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
      std::vector<uint32_t> reader_args, writer_args;
      TensorAccessorArgs(*x_buf).append_to(reader_args);
      TensorAccessorArgs(*y_buf).append_to(writer_args);
      KernelHandle reader = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_sfpu/kernels/reader.cpp", all_cores,
                                         DataMovementConfig{.processor = DataMovementProcessor::RISCV_0,
                                                            .noc = NOC::RISCV_0_default,
                                                            .compile_args = reader_args});
      KernelHandle writer = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_binary/kernels/writer.cpp", all_cores,
                                         DataMovementConfig{.processor = DataMovementProcessor::RISCV_1,
                                                            .noc = NOC::RISCV_1_default,
                                                            .compile_args = writer_args});
      KernelHandle compute = CreateKernel(program, OVERRIDE_KERNEL_PREFIX "eltwise_sfpu/kernels/compute.cpp", all_cores,
                                          ComputeConfig{.math_fidelity = MathFidelity::HiFi4,
                                                        .defines = {{"SFPU_OP_INIT", op.init}, {"SFPU_OP", op.call}}});
      uint32_t start = 0;
      for (const auto& [group, count] :
           {std::pair{core_group_1, tiles_per_core_1}, std::pair{core_group_2, tiles_per_core_2}})
        for (const CoreCoord& core : corerange_to_cores(group)) {
          SetRuntimeArgs(program, reader, core, {x_buf->address(), start, count});
          SetRuntimeArgs(program, compute, core, {count});
          SetRuntimeArgs(program, writer, core, {y_buf->address(), start, count});
          start += count;
        }
      EnqueueProgram(cq, program, false);
      std::vector<bfloat16> y;
      EnqueueReadBuffer(cq, y_buf, y, true);

      uint32_t bad = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        const double ref = op.ref(float(x[i]));
        const double allowed = op.exact ? 0.0 : std::ldexp(std::fabs(ref), -8) + std::ldexp(std::fabs(ref), -24);
        if (!(std::fabs(double(float(y[i])) - ref) <= allowed)) ++bad;
      }
      std::printf("eltwise_sfpu: %s on %u tiles over %u cores: %s\n", op.name, num_tiles, num_cores,
                  bad ? "VALUES OUTSIDE THE BOUND" : "every value within its bound");
      ok = ok && bad == 0 && start == num_tiles;
    }
    Finish(cq);
    CloseDevice(device);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "eltwise_sfpu: %s\n", e.what());
    return 1;
  }
}
