// Writing an emitted runner's manifest (resources/runner_manifest.hpp): the
// spelling of every value, and the text of an Operation.
#include "resources/runner_manifest.hpp"

#include <cctype>

#include "tessel/runner.hpp"

namespace tessel::resources {

std::string escape_string(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default: out += c;
    }
  }
  return out;
}

std::string quote_string(const std::string& s) { return "\"" + escape_string(s) + "\""; }

// "kernel 0 (Kernel 'sender' (DataMovement))"
std::string kernel_label(size_t i, const KernelSelector& k) {
  return "kernel " + std::to_string(i) + " (" + describe(k) + ")";
}

namespace {

std::string cores_text(const CoreRangeSet& set) {
  std::string s = "{";
  for (size_t i = 0; i < set.ranges().size(); ++i)
    s += (i ? "," : "") + set.ranges()[i].str();
  return s + "}";
}

std::string u32_list(const std::vector<uint32_t>& values) {
  std::string s;
  for (uint32_t v : values)
    s += " " + std::to_string(v);
  return s;
}

const char* fidelity_name(MathFidelity f) {
  switch (f) {
  case MathFidelity::LoFi: return "LoFi";
  case MathFidelity::HiFi2: return "HiFi2";
  case MathFidelity::HiFi3: return "HiFi3";
  case MathFidelity::HiFi4: return "HiFi4";
  }
  return "?";
}

std::string config_text(const KernelDescriptor::Config& config) {
  if (std::holds_alternative<ReaderConfigDescriptor>(config)) return "config reader";
  if (std::holds_alternative<WriterConfigDescriptor>(config)) return "config writer";
  if (const auto* dm = std::get_if<DataMovementConfigDescriptor>(&config))
    return std::string("config data_movement ") +
           (dm->processor == DataMovementProcessor::RISCV_0 ? "RISCV_0" : "RISCV_1") + " " +
           (dm->noc == NOC::NOC_0 ? "NOC_0" : "NOC_1");
  const auto& c = std::get<ComputeConfigDescriptor>(config);
  std::string modes;
  for (size_t i = 0; i < c.unpack_to_dest_mode.size(); ++i)
    modes += std::string(i ? "," : "") +
             (c.unpack_to_dest_mode[i] == UnpackToDestMode::Default ? "Default" : "UnpackToDestFp32");
  auto flag = [](bool b) { return b ? "1" : "0"; };
  return std::string("config compute ") + fidelity_name(c.math_fidelity) +
         " fp32_dest_acc_en=" + flag(c.fp32_dest_acc_en) + " dst_full_sync_en=" + flag(c.dst_full_sync_en) +
         " math_approx_mode=" + flag(c.math_approx_mode) + " bfp8_pack_precise=" + flag(c.bfp8_pack_precise) +
         " unpack_to_dest_mode=" + modes + (c.enable_trisc2_rvv ? " enable_trisc2_rvv=1" : "");
}

} // namespace

std::string kernel_file_name(size_t i, const KernelSelector& k) {
  std::string ident = std::holds_alternative<Kernel>(k) ? std::get<Kernel>(k).name() : to_string(kind_of(k));
  for (char& c : ident)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return "kernel" + std::to_string(i) + "-" + ident + ".cpp";
}

std::string manifest_text(const Operation& op) {
  // The name is escaped here too: a raw newline would end the comment early.
  std::string m = "# tessel emitted runner: the structure of operation '" + escape_string(op.name()) +
                  "'; the runtime resource factory supplies everything else on every run\n";
  m += "tessel-runner " + std::to_string(kRunnerFormatVersion) + "\n";
  m += "operation " + quote_string(op.name()) + "\n";
  for (size_t i = 0; i < op.kernels().size(); ++i) {
    const OperationKernel& k = op.kernels()[i];
    if (const auto* h = std::get_if<Kernel>(&k.kernel))
      m += "kernel captured " + quote_string(h->name()) + " " + to_string(h->kind()) + "\n";
    else
      m += "kernel kind " + to_string(kind_of(k.kernel)) + "\n";
    m += "  source " + quote_string(kernel_file_name(i, k.kernel)) + "\n";
    m += "  " + config_text(k.config) + "\n";
    m += "  compile_args" + u32_list(k.compile_args) + "\n";
    for (const auto& [name, value] : k.defines)
      m += "  define " + quote_string(name) + " " + quote_string(value) + "\n";
    for (const auto& [cores, args] : k.specializations)
      m += "  specialization " + cores_text(cores) + u32_list(args) + "\n";
  }
  for (const CBDescriptor& cb : op.circular_buffers()) {
    m += "cb " + std::to_string(cb.total_size);
    for (const CBFormatDescriptor& f : cb.format_descriptors)
      m += " " + std::to_string(f.buffer_index) + ":" + to_string(f.data_format) + ":" + std::to_string(f.page_size);
    m += "\n";
  }
  for (uint32_t initial : op.own_semaphores())
    m += "semaphore " + std::to_string(initial) + "\n";
  for (const FabricManagerClaim& c : op.fabric_claims()) {
    m += "claim " + quote_string(c.name()) + " ";
    if (const auto* h = std::get_if<Kernel>(&c.kernel()))
      m += "captured " + quote_string(h->name()) + "\n";
    else
      m += "kind " + to_string(std::get<KernelKind>(c.kernel())) + "\n";
  }
  const FabricTopology& topology = op.fabric_topology();
  m += "topology " + std::to_string(topology.num_devices) + "\n";
  for (const FabricLink& l : topology.links)
    m += "link " + std::to_string(l.local_device) + " " + std::to_string(l.remote_device) + " " +
         std::to_string(l.link_index) + "\n";
  for (const FabricLink& l : topology.generated)
    m += "generated " + std::to_string(l.local_device) + " " + std::to_string(l.remote_device) + " " +
         std::to_string(l.link_index) + "\n";
  m += "end\n";
  return m;
}

} // namespace tessel::resources
