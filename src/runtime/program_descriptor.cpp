// make_program (include/tessel/program_descriptor.hpp): a declarative
// program built with the imperative calls.
#include "tessel/program_descriptor.hpp"

#include <map>
#include <set>
#include <string>

#include "tessel/error.hpp"

namespace tessel {

namespace {

// Runs `f`, re-throwing a ValidationError with "make_program: <where>: " in front.
template <class F>
auto at(const std::string& where, F&& f) {
  try {
    return f();
  } catch (const ValidationError& e) {
    throw ValidationError("make_program: " + where + ": " + e.what());
  }
}

std::string kernel_name(size_t i) { return "kernels[" + std::to_string(i) + "]"; }

DataMovementConfig dm_config(const KernelDescriptor& k) {
  DataMovementConfig c;
  if (std::holds_alternative<WriterConfigDescriptor>(k.config)) {
    c.processor = DataMovementProcessor::RISCV_1;
    c.noc = NOC::RISCV_1_default;
  } else if (const auto* d = std::get_if<DataMovementConfigDescriptor>(&k.config)) {
    c.processor = d->processor;
    c.noc = d->noc;
  }
  c.compile_args = k.compile_time_args;
  c.defines = k.defines;
  c.named_compile_args = k.named_compile_time_args;
  c.opt_level = k.opt_level;
  return c;
}

ComputeConfig compute_config(const KernelDescriptor& k, const ComputeConfigDescriptor& d) {
  ComputeConfig c;
  c.math_fidelity = d.math_fidelity;
  c.fp32_dest_acc_en = d.fp32_dest_acc_en;
  c.dst_full_sync_en = d.dst_full_sync_en;
  c.unpack_to_dest_mode = d.unpack_to_dest_mode;
  c.math_approx_mode = d.math_approx_mode;
  c.bfp8_pack_precise = d.bfp8_pack_precise;
  c.enable_trisc2_rvv = d.enable_trisc2_rvv;
  c.compile_args = k.compile_time_args;
  c.defines = k.defines;
  c.named_compile_args = k.named_compile_time_args;
  c.opt_level = k.opt_level;
  return c;
}

template <class Config>
KernelHandle add_kernel(Program& p, const KernelDescriptor& k, size_t i, const Config& config) {
  if (k.source_type == KernelDescriptor::SourceType::FILE_PATH)
    return p.add_kernel(k.kernel_source, k.core_ranges, config);
  return p.add_kernel_from_source(k.kernel_source, kernel_name(i) + ".cpp", k.core_ranges, config);
}

} // namespace

Program make_program(const ProgramDescriptor& d) {
  Program p;
  for (size_t i = 0; i < d.cbs.size(); ++i)
    at("cbs[" + std::to_string(i) + "]", [&] {
      const CBDescriptor& cb = d.cbs[i];
      if (cb.format_descriptors.empty()) throw ValidationError("no format_descriptors: a CB needs at least one index");
      std::map<uint8_t, DataFormat> formats;
      for (const CBFormatDescriptor& f : cb.format_descriptors)
        if (!formats.emplace(f.buffer_index, f.data_format).second)
          throw ValidationError("buffer_index " + std::to_string(f.buffer_index) +
                                " appears twice in format_descriptors");
      CircularBufferConfig config(cb.total_size, formats);
      for (const CBFormatDescriptor& f : cb.format_descriptors)
        if (f.page_size != 0) config.set_page_size(f.buffer_index, f.page_size);
      return p.add_circular_buffer(cb.core_ranges, config);
    });
  for (size_t i = 0; i < d.semaphores.size(); ++i)
    at("semaphores[" + std::to_string(i) + "]", [&] {
      const SemaphoreDescriptor& s = d.semaphores[i];
      return p.add_semaphore(s.core_ranges, s.initial_value, s.id);
    });
  for (size_t i = 0; i < d.kernels.size(); ++i)
    at(kernel_name(i), [&] {
      const KernelDescriptor& k = d.kernels[i];
      const KernelHandle h = std::holds_alternative<ComputeConfigDescriptor>(k.config)
                                 ? add_kernel(p, k, i, compute_config(k, std::get<ComputeConfigDescriptor>(k.config)))
                                 : add_kernel(p, k, i, dm_config(k));
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (const auto& [core, values] : k.runtime_args) {
        if (!seen.emplace(core.x, core.y).second)
          throw ValidationError("runtime_args: core " + core.str() + " appears twice; give each core one vector");
        if (!k.core_ranges.contains(core))
          throw ValidationError("runtime_args: core " + core.str() + " is not one of the kernel's cores " +
                                k.core_ranges.str());
        p.set_runtime_args(h, core, values);
      }
      if (!k.common_runtime_args.empty()) p.set_common_runtime_args(h, k.common_runtime_args);
      return h;
    });
  return p;
}

} // namespace tessel
