// Programs, kernels, circular buffers, semaphores, buffers and runtime args:
// Metalium's calls translated to tessel::Program and tessel::Buffer.
#include <string>

#include "tessel/error.hpp"
#include "tt-metalium/host_api.hpp"
#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/tensor_accessor_args.hpp"

namespace tt::tt_metal {

namespace {

tessel::CoreRangeSet core_set(const CoreSpec& spec) {
  return std::visit([](const auto& cores) { return tessel::CoreRangeSet(cores); }, spec);
}

int opt_level(KernelBuildOptLevel level) {
  switch (level) {
  case KernelBuildOptLevel::O0: return 0;
  case KernelBuildOptLevel::O1: return 1;
  case KernelBuildOptLevel::O2: return 2;
  case KernelBuildOptLevel::O3: return 3;
  case KernelBuildOptLevel::Os: return tessel::kOptLevelOs;
  case KernelBuildOptLevel::Ofast: return tessel::kOptLevelOfast;
  case KernelBuildOptLevel::Oz: return tessel::kOptLevelOz;
  }
  return -2; // not a KernelBuildOptLevel: the build refuses it as out of range
}

tessel::DataMovementConfig native_config(const DataMovementConfig& c) {
  return tessel::DataMovementConfig{c.processor,
                                    c.noc,
                                    c.compile_args,
                                    c.defines,
                                    tessel::NamedCompileArgs(c.named_compile_args.begin(), c.named_compile_args.end()),
                                    opt_level(c.opt_level)};
}

tessel::ComputeConfig native_config(const ComputeConfig& c) {
  tessel::ComputeConfig n;
  n.math_fidelity = c.math_fidelity;
  n.fp32_dest_acc_en = c.fp32_dest_acc_en;
  n.dst_full_sync_en = c.dst_full_sync_en;
  n.math_approx_mode = c.math_approx_mode;
  n.bfp8_pack_precise = c.bfp8_pack_precise;
  n.unpack_to_dest_mode = c.unpack_to_dest_mode;
  n.compile_args = c.compile_args;
  n.defines = c.defines;
  n.named_compile_args = tessel::NamedCompileArgs(c.named_compile_args.begin(), c.named_compile_args.end());
  n.opt_level = opt_level(c.opt_level);
  return n;
}

[[noreturn]] void reject_ethernet(const std::string& where) {
  throw tessel::ValidationError(where + ": EthernetConfig kernels are not supported; tessel simulates Tensix worker "
                                        "cores only (use DataMovementConfig or ComputeConfig)");
}

// Adds a kernel with `add(config)`, where config is the tessel form of `config`.
template <typename Add>
KernelHandle add_kernel(const KernelConfig& config, const std::string& where, Add add) {
  return std::visit(
      [&](const auto& c) -> KernelHandle {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, EthernetConfig>)
          reject_ethernet(where);
        else
          return add(native_config(c));
      },
      config);
}

} // namespace

RuntimeArgsData& Program::runtime_args_view(KernelHandle kernel, CoreCoord core) const {
  const std::span<uint32_t> args = program_.runtime_args(kernel, core);
  RuntimeArgsData& view = views_[{kernel, core.x, core.y}];
  view.rt_args_data = args.data();
  view.rt_args_count = args.size();
  return view;
}

RuntimeArgsData& Program::common_runtime_args_view(KernelHandle kernel) const {
  const std::span<uint32_t> args = program_.common_runtime_args(kernel);
  RuntimeArgsData& view = common_views_[kernel];
  view.rt_args_data = args.data();
  view.rt_args_count = args.size();
  return view;
}

Program CreateProgram() { return Program(); }

KernelHandle CreateKernel(Program& program, const std::string& file_name, const CoreSpec& core_spec,
                          const KernelConfig& config) {
  const tessel::CoreRangeSet cores = core_set(core_spec);
  return add_kernel(config, "CreateKernel(" + file_name + ")",
                    [&](const auto& c) { return program.native().add_kernel(file_name, cores, c); });
}

KernelHandle CreateKernelFromString(Program& program, const std::string& kernel_src_code, const CoreSpec& core_spec,
                                    const KernelConfig& config) {
  const tessel::CoreRangeSet cores = core_set(core_spec);
  const std::string name = "CreateKernelFromString#" + std::to_string(program.num_kernels());
  return add_kernel(config, name, [&](const auto& c) {
    return program.native().add_kernel_from_source(kernel_src_code, name, cores, c);
  });
}

CBHandle CreateCircularBuffer(Program& program, const CoreSpec& core_spec, const CircularBufferConfig& config) {
  return program.native().add_circular_buffer(core_set(core_spec), config);
}

uint32_t CreateSemaphore(Program& program, const std::variant<CoreRange, CoreRangeSet>& core_spec,
                         uint32_t initial_value, CoreType core_type) {
  if (core_type != CoreType::WORKER)
    throw tessel::ValidationError("CreateSemaphore: only CoreType::WORKER semaphores are supported; tessel simulates "
                                  "Tensix worker cores only");
  const tessel::CoreRangeSet cores = std::visit([](const auto& c) { return tessel::CoreRangeSet(c); }, core_spec);
  return program.native().add_semaphore(cores, initial_value);
}

void DeallocateBuffer(Buffer& buffer) { buffer.deallocate(); }

void AssignGlobalBufferToProgram(const std::shared_ptr<Buffer>& buffer, Program& program) { program.hold(buffer); }

void SetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreSpec& core_spec,
                    std::span<const uint32_t> runtime_args) {
  program.native().set_runtime_args(kernel, core_set(core_spec), runtime_args);
}

void SetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreSpec& core_spec,
                    std::initializer_list<uint32_t> runtime_args) {
  program.native().set_runtime_args(kernel, core_set(core_spec), runtime_args);
}

void SetRuntimeArgs(const Program& program, KernelHandle kernel, const std::vector<CoreCoord>& core_spec,
                    const std::vector<std::vector<uint32_t>>& runtime_args) {
  if (core_spec.size() != runtime_args.size())
    throw tessel::ValidationError("SetRuntimeArgs: " + std::to_string(core_spec.size()) + " cores but " +
                                  std::to_string(runtime_args.size()) + " runtime-arg vectors; give one per core");
  for (size_t i = 0; i < core_spec.size(); ++i)
    program.native().set_runtime_args(kernel, core_spec[i], runtime_args[i]);
}

void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel, std::span<const uint32_t> runtime_args) {
  program.native().set_common_runtime_args(kernel, runtime_args);
}

void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel, std::initializer_list<uint32_t> runtime_args) {
  program.native().set_common_runtime_args(kernel, runtime_args);
}

RuntimeArgsData& GetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreCoord& logical_core) {
  return program.runtime_args_view(kernel, logical_core);
}

RuntimeArgsData& GetCommonRuntimeArgs(const Program& program, KernelHandle kernel) {
  return program.common_runtime_args_view(kernel);
}

namespace {
const tessel::Buffer& checked_native(const Buffer* buffer) {
  if (!buffer) throw tessel::ValidationError("TensorAccessorArgs: null buffer");
  return buffer->native();
}
const tessel::Buffer& checked_native(const distributed::MeshBuffer* buffer) {
  if (!buffer) throw tessel::ValidationError("TensorAccessorArgs: null mesh buffer");
  return buffer->get_backing_buffer()->native();
}
} // namespace

TensorAccessorArgs::TensorAccessorArgs(const Buffer* buffer) : args_(checked_native(buffer)) {}
TensorAccessorArgs::TensorAccessorArgs(const distributed::MeshBuffer& buffer) : args_(checked_native(&buffer)) {}
TensorAccessorArgs::TensorAccessorArgs(const std::shared_ptr<distributed::MeshBuffer>& buffer)
    : args_(checked_native(buffer.get())) {}

} // namespace tt::tt_metal
