#include "tessel/program.hpp"

#include "tessel/buffer.hpp"

#include "base/warning.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "jit/cache_key.hpp"
#include "runtime/kernel_bindings.hpp"
#include "runtime/program_state.hpp"
#include "sim/l1_layout.hpp"
#include "tessel/error.hpp"

namespace tessel {

namespace fs = std::filesystem;
using runtime::KernelSpec;

namespace {

constexpr uint32_t kMaxCbIndices = TESSEL_MAX_CBS;
constexpr uint32_t kCbStartAlignment = 64; // where each circular-buffer config starts in L1

std::string resolve_kernel_path(const std::string& path) {
  if (path.empty()) throw ValidationError("add_kernel: empty kernel path");
  std::vector<std::string> tried;
  auto found = [&](const fs::path& p) {
    std::error_code ec;
    tried.push_back(p.string());
    return fs::is_regular_file(p, ec);
  };
  fs::path p(path);
  if (p.is_absolute()) {
    if (found(p)) return fs::weakly_canonical(p).string();
  } else {
    if (found(fs::current_path() / p)) return fs::weakly_canonical(fs::current_path() / p).string();
    if (const char* env = std::getenv("TESSEL_KERNEL_PATH")) {
      std::stringstream ss(env);
      std::string dir;
      while (std::getline(ss, dir, ':'))
        if (!dir.empty() && found(fs::path(dir) / p)) return fs::weakly_canonical(fs::path(dir) / p).string();
    }
    // TT-Metalium resolves a relative kernel path against its root.
    if (const char* home = std::getenv("TT_METAL_HOME"); home && *home && found(fs::path(home) / p))
      return fs::weakly_canonical(fs::path(home) / p).string();
  }
  std::string msg = "add_kernel: kernel file '" + path + "' not found; tried:";
  for (auto& t : tried)
    msg += " " + t;
  if (!p.is_absolute())
    msg += " (relative paths are looked up in the working directory, then $TESSEL_KERNEL_PATH, then $TT_METAL_HOME)";
  throw ValidationError(msg);
}

const char* risc_label(uint32_t risc) {
  return risc == TESSEL_RISC_BRISC ? "RISCV_0 (BRISC)" : risc == TESSEL_RISC_NCRISC ? "RISCV_1 (NCRISC)" : "compute";
}

void check_cores_given(const CoreRangeSet& cores, const char* call) {
  if (cores.num_cores() == 0) throw ValidationError(std::string(call) + ": no cores given");
  const auto& rs = cores.ranges();
  for (size_t i = 0; i < rs.size(); ++i)
    for (size_t j = i + 1; j < rs.size(); ++j)
      if (rs[i].intersects(rs[j]))
        throw ValidationError(std::string(call) + ": core ranges " + rs[i].str() + " and " + rs[j].str() +
                              " overlap; each core may appear once");
}

std::string first_common_core(const CoreRangeSet& a, const CoreRangeSet& b) {
  for (CoreCoord c : a.cores())
    if (b.contains(c)) return c.str();
  return "?";
}

} // namespace

CircularBufferConfig::CircularBufferConfig(uint32_t total_size_bytes, std::map<uint8_t, DataFormat> formats)
    : total_size_bytes_(total_size_bytes), formats_(std::move(formats)) {}

CircularBufferConfig& CircularBufferConfig::set_page_size(uint8_t index, uint32_t page_size_bytes) {
  if (!formats_.count(index))
    throw ValidationError("CircularBufferConfig::set_page_size: CB index " + std::to_string(index) +
                          " has no data format in this config; give it one in the constructor");
  page_sizes_[index] = page_size_bytes;
  return *this;
}

CircularBufferConfig& CircularBufferConfig::set_globally_allocated_address(const Buffer& buffer) {
  if (buffer.type() != BufferType::L1 || !buffer.is_allocated()) {
    const std::string message = std::string("CircularBufferConfig::set_globally_allocated_address: the buffer is ") +
                                (buffer.is_allocated() ? "in DRAM" : "deallocated") +
                                "; expected an allocated L1 buffer, whose range on each core the CB uses";
    throw ValidationError(message);
  }
  global_address_ = buffer.address();
  global_bytes_ = buffer.bytes_per_bank();
  return *this;
}

Program::Program() : state_(std::make_unique<runtime::ProgramState>()) {}
Program::~Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;

runtime::ProgramState& Program::live() const {
  if (!state_) throw ValidationError("Program: this program was moved from; use the program it was moved to");
  return *state_;
}

runtime::ProgramState& Program::state() { return live(); }

uint32_t Program::num_kernels() const { return uint32_t(live().kernels.size()); }

namespace {
KernelHandle add(runtime::ProgramState& st, KernelSpec spec) {
  check_cores_given(spec.cores, "add_kernel");
  for (const KernelSpec& k : st.kernels)
    if (k.risc == spec.risc && k.cores.intersects(spec.cores))
      throw ValidationError("add_kernel: kernel '" + spec.name + "' on " + risc_label(spec.risc) +
                            " overlaps kernel '" + k.name + "' at core " + first_common_core(spec.cores, k.cores) +
                            "; each RISC of a core runs one kernel");
  if (spec.compile_args.size() > 4096)
    throw ValidationError("add_kernel: kernel '" + spec.name + "' has " + std::to_string(spec.compile_args.size()) +
                          " compile-time args; at most 4096 are supported");
  if (spec.source_path.empty() && spec.source_text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ValidationError("add_kernel_from_source: kernel '" + spec.name + "' has empty source text");
  if (spec.compute) {
    const ComputeConfig& cc = spec.compute_config;
    if (cc.unpack_to_dest_mode.size() > TESSEL_MAX_CBS)
      throw ValidationError("add_kernel: kernel '" + spec.name + "' has unpack_to_dest_mode for " +
                            std::to_string(cc.unpack_to_dest_mode.size()) + " CB indices; there are at most " +
                            std::to_string(TESSEL_MAX_CBS));
    for (size_t i = 0; i < cc.unpack_to_dest_mode.size(); ++i)
      if (cc.unpack_to_dest_mode[i] == UnpackToDestMode::UnpackToDestFp32 && !cc.fp32_dest_acc_en)
        throw ValidationError("add_kernel: kernel '" + spec.name + "' sets UnpackToDestFp32 for CB " +
                              std::to_string(i) +
                              " without fp32_dest_acc_en; unpacking to DST in 32 bits needs "
                              "the 32-bit DST");
  }
  if (spec.bindings) {
    try {
      spec.defines["TESSEL_KERNEL_BINDINGS"] =
          runtime::kernel_bindings_source(*spec.bindings, spec.named_compile_args, spec.compile_args);
    } catch (const ValidationError& e) {
      throw ValidationError("add_kernel: kernel '" + spec.name + "': " + e.what());
    }
  }
  try {
    jit::validate_request(runtime::build_request(spec)); // defines, named args, opt level
  } catch (const ValidationError& e) {
    throw ValidationError(std::string("add_kernel: ") + e.what());
  }
  st.kernels.push_back(std::move(spec));
  ++st.kernels_version;
  ++st.layout_version;
  return KernelHandle(st.kernels.size() - 1);
}

KernelSpec dm_spec(const DataMovementConfig& c) {
  KernelSpec s;
  s.risc = c.processor == DataMovementProcessor::RISCV_0 ? TESSEL_RISC_BRISC : TESSEL_RISC_NCRISC;
  s.noc = uint32_t(c.noc);
  s.compile_args = c.compile_args;
  s.defines = c.defines;
  s.named_compile_args = c.named_compile_args;
  s.opt_level = c.opt_level;
  s.include_dirs = c.include_dirs;
  s.bindings = c.bindings;
  return s;
}

KernelSpec compute_spec(const ComputeConfig& c) {
  KernelSpec s;
  s.compute = true;
  s.risc = TESSEL_RISC_COMPUTE;
  s.compile_args = c.compile_args;
  s.defines = c.defines;
  s.named_compile_args = c.named_compile_args;
  s.opt_level = c.opt_level;
  s.include_dirs = c.include_dirs;
  s.bindings = c.bindings;
  s.compute_config = c;
  for (size_t i = 0; i < c.unpack_to_dest_mode.size() && i < 64; ++i)
    if (c.unpack_to_dest_mode[i] == UnpackToDestMode::UnpackToDestFp32) s.unpack_to_dest_fp32 |= uint64_t(1) << i;
  return s;
}

// A kernel inside a TT-Metalium checkout (ttnn's operation kernels, the
// programming examples) includes helper headers by paths from the checkout's
// root, its ttnn/ and its ttnn/cpp/ folders, which TT-Metalium's build puts on
// the include path: so does tessel, after the kernel's own directory and the
// kernel API, for that checkout and for $TT_METAL_HOME's.
void add_checkout_include_dirs(KernelSpec& s) {
  auto add_root = [&](const std::string& root) {
    for (std::string dir : {root, root + "/ttnn", root + "/ttnn/cpp"})
      if (std::find(s.include_dirs.begin(), s.include_dirs.end(), dir) == s.include_dirs.end())
        s.include_dirs.push_back(std::move(dir));
  };
  for (std::string_view marker : {"/ttnn/cpp/ttnn/", "/tt_metal/programming_examples/"})
    if (const size_t at = s.source_path.rfind(marker); at != std::string::npos) {
      add_root(s.source_path.substr(0, at));
      break;
    }
  if (const char* home = std::getenv("TT_METAL_HOME"); home && *home) {
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(home, ec);
    if (!ec && fs::is_directory(root, ec)) add_root(root.string());
  }
}
} // namespace

KernelHandle Program::add_kernel(const std::string& path, const CoreRangeSet& cores, const DataMovementConfig& c) {
  KernelSpec s = dm_spec(c);
  s.source_path = resolve_kernel_path(path);
  add_checkout_include_dirs(s);
  s.name = path;
  s.cores = cores;
  return add(live(), std::move(s));
}

KernelHandle Program::add_kernel(const std::string& path, const CoreRangeSet& cores, const ComputeConfig& c) {
  KernelSpec s = compute_spec(c);
  s.source_path = resolve_kernel_path(path);
  add_checkout_include_dirs(s);
  s.name = path;
  s.cores = cores;
  return add(live(), std::move(s));
}

KernelHandle Program::add_kernel_from_source(const std::string& source, const std::string& name,
                                             const CoreRangeSet& cores, const DataMovementConfig& c) {
  KernelSpec s = dm_spec(c);
  s.source_text = source;
  s.name = name.empty() ? "kernel.cpp" : name;
  s.cores = cores;
  return add(live(), std::move(s));
}

KernelHandle Program::add_kernel_from_source(const std::string& source, const std::string& name,
                                             const CoreRangeSet& cores, const ComputeConfig& c) {
  KernelSpec s = compute_spec(c);
  s.source_text = source;
  s.name = name.empty() ? "kernel.cpp" : name;
  s.cores = cores;
  return add(live(), std::move(s));
}

CircularBufferHandle Program::add_circular_buffer(const CoreRangeSet& cores, const CircularBufferConfig& config) {
  auto& st = live();
  const char* call = "add_circular_buffer";
  check_cores_given(cores, call);
  if (config.formats().empty()) throw ValidationError(std::string(call) + ": the config names no CB index");
  if (config.total_size() == 0) throw ValidationError(std::string(call) + ": total size is 0");
  for (auto& [index, format] : config.formats()) {
    const std::string cb = "CB " + std::to_string(index);
    if (index >= kMaxCbIndices)
      throw ValidationError(std::string(call) + ": " + cb + " is out of range; CB indices are 0.." +
                            std::to_string(kMaxCbIndices - 1) + " (0..31 on wormhole_b0)");
    if (tile_size(format) == 0) throw ValidationError(std::string(call) + ": " + cb + " has no valid data format");
    auto ps = config.page_sizes().find(index);
    if (ps == config.page_sizes().end() || ps->second == 0)
      throw ValidationError(std::string(call) + ": " + cb + " has no page size; call set_page_size(" +
                            std::to_string(index) + ", bytes)");
    if (config.total_size() % ps->second != 0)
      throw ValidationError(std::string(call) + ": " + cb + ": total size " + std::to_string(config.total_size()) +
                            " is not a multiple of its page size " + std::to_string(ps->second));
    // Silicon takes any page size that divides the total: a page that is no
    // multiple of the L1 alignment is a likely bug (transfers into later pages
    // are misaligned), a warning.
    if (ps->second % 16 != 0) {
      const std::string message = std::string(call) + ": " + cb + ": page size " + std::to_string(ps->second) +
                                  " is not a multiple of the 16-byte L1 alignment: NoC transfers into or out of its "
                                  "pages must share their misalignment";
      if (base::warn_once(message, message) == base::Warned::Strict)
        throw ValidationError(message + base::kStrictSuffix);
    }
    // visible = received - acked is computed mod 2^16: 65536 pages would read as 0.
    if (config.total_size() / ps->second > 0xFFFF)
      throw ValidationError(std::string(call) + ": " + cb + ": " + std::to_string(config.total_size() / ps->second) +
                            " pages of " + std::to_string(ps->second) +
                            " bytes; a CB holds at most 65535 pages (its page counters are 16-bit)");
    for (const auto& other : st.cbs)
      if (other.config.formats().count(index) && other.cores.intersects(cores))
        throw ValidationError(std::string(call) + ": " + cb + " is already configured on core " +
                              first_common_core(cores, other.cores));
  }
  if (const std::optional<uint32_t> address = config.globally_allocated_address()) {
    // In a buffer's range: outside the program's CB area.
    if (config.total_size() > config.global_bytes_per_core()) {
      const std::string message = std::string(call) + ": total size " + std::to_string(config.total_size()) +
                                  " bytes is more than the " + std::to_string(config.global_bytes_per_core()) +
                                  " bytes per core of the L1 buffer at " + std::to_string(*address) +
                                  " it is placed in; expected at most the buffer's range";
      throw ValidationError(message);
    }
    st.cbs.push_back({cores, config, *address});
  } else {
    // A config sits at the same offset on all its cores: above every CB
    // already on any of them. CBs on disjoint cores may share offsets.
    const std::vector<CoreCoord> core_list = cores.cores();
    uint32_t base = sim::kL1UnreservedBase;
    CoreCoord fullest = core_list.front();
    for (CoreCoord c : core_list)
      if (auto it = st.cb_end_per_core.find(runtime::core_key(c));
          it != st.cb_end_per_core.end() && it->second > base) {
        base = it->second;
        fullest = c;
      }
    // Each config starts at the DRAM alignment, as Metalium places CBs, so a
    // DRAM page read into a CB's first page is aligned whatever came before
    // (64 bytes: Blackhole's; Wormhole's 32 divides it).
    base = (base + kCbStartAlignment - 1) / kCbStartAlignment * kCbStartAlignment;
    const uint64_t end = uint64_t(base) + ((uint64_t(config.total_size()) + 15) / 16) * 16;
    if (end > runtime::kMaxL1Bytes)
      throw ValidationError(std::string(call) + ": the program's circular buffers would need " +
                            std::to_string(end - sim::kL1UnreservedBase) + " bytes of L1 on core " + fullest.str() +
                            ", more than the " + std::to_string(runtime::kMaxL1Bytes - sim::kL1UnreservedBase) +
                            " bytes available");
    st.cbs.push_back({cores, config, base});
    for (CoreCoord c : core_list)
      st.cb_end_per_core[runtime::core_key(c)] = uint32_t(end);
    st.cb_end = std::max(st.cb_end, uint32_t(end));
  }
  ++st.layout_version;
  return CircularBufferHandle(st.cbs.size() - 1);
}

uint32_t Program::add_semaphore(const CoreRangeSet& cores, uint32_t initial_value) {
  if (live().semaphores.size() >= TESSEL_MAX_SEMAPHORES)
    throw ValidationError("add_semaphore: a program has at most " + std::to_string(TESSEL_MAX_SEMAPHORES) +
                          " semaphores");
  return add_semaphore(cores, initial_value, uint32_t(live().semaphores.size()));
}

uint32_t Program::add_semaphore(const CoreRangeSet& cores, uint32_t initial_value, uint32_t id) {
  auto& st = live();
  check_cores_given(cores, "add_semaphore");
  if (id >= TESSEL_MAX_SEMAPHORES)
    throw ValidationError("add_semaphore: semaphore id " + std::to_string(id) +
                          " is out of range: a program has at most " + std::to_string(TESSEL_MAX_SEMAPHORES) +
                          " semaphores (ids 0.." + std::to_string(TESSEL_MAX_SEMAPHORES - 1) + ")");
  if (id < st.semaphores.size() && st.semaphores[id].cores.num_cores() != 0)
    throw ValidationError("add_semaphore: semaphore id " + std::to_string(id) +
                          " is already used in this program (on cores " + st.semaphores[id].cores.str() + ")");
  // Unused ids below `id` stay as gaps (no cores).
  if (id >= st.semaphores.size()) st.semaphores.resize(id + 1);
  st.semaphores[id] = {cores, initial_value};
  ++st.layout_version;
  return id;
}

namespace {
KernelSpec& kernel_at(runtime::ProgramState& st, KernelHandle k, const char* call) {
  if (k >= st.kernels.size())
    throw ValidationError(std::string(call) + ": kernel handle " + std::to_string(k) +
                          " does not exist (the program has " + std::to_string(st.kernels.size()) + " kernels)");
  return st.kernels[k];
}

void check_arg_count(const KernelSpec& k, size_t unique, size_t common, const char* call) {
  if (unique + common > TESSEL_MAX_RUNTIME_ARGS)
    throw ValidationError(std::string(call) + ": kernel '" + k.name + "' would get " + std::to_string(unique) +
                          " unique + " + std::to_string(common) + " common runtime args; at most " +
                          std::to_string(TESSEL_MAX_RUNTIME_ARGS) + " in total per core");
}
} // namespace

void Program::set_runtime_args(KernelHandle kernel, const CoreRangeSet& cores, std::span<const uint32_t> args) {
  auto& st = live();
  const char* call = "set_runtime_args";
  KernelSpec& k = kernel_at(st, kernel, call);
  check_cores_given(cores, call);
  std::vector<CoreCoord> list = cores.cores();
  for (CoreCoord c : list)
    if (!k.cores.contains(c))
      throw ValidationError(std::string(call) + ": core " + c.str() + " is not one of the cores of kernel '" + k.name +
                            "', " + k.cores.str());
  check_arg_count(k, args.size(), k.common_args.size(), call);
  bool layout_changed = false;
  for (CoreCoord c : list) {
    auto [it, fresh] = k.runtime_args.try_emplace(runtime::core_key(c));
    if (fresh || it->second.size() != args.size()) layout_changed = true;
    it->second.assign(args.begin(), args.end());
  }
  if (layout_changed) ++st.layout_version;
}

void Program::set_common_runtime_args(KernelHandle kernel, std::span<const uint32_t> args) {
  auto& st = live();
  const char* call = "set_common_runtime_args";
  KernelSpec& k = kernel_at(st, kernel, call);
  size_t max_unique = 0;
  for (auto& [key, v] : k.runtime_args)
    max_unique = std::max(max_unique, v.size());
  check_arg_count(k, max_unique, args.size(), call);
  if (!k.common_args_set || k.common_args.size() != args.size()) ++st.layout_version;
  k.common_args.assign(args.begin(), args.end());
  k.common_args_set = true;
}

std::span<uint32_t> Program::runtime_args(KernelHandle kernel, CoreCoord core) {
  KernelSpec& k = kernel_at(live(), kernel, "runtime_args");
  auto it = k.runtime_args.find(runtime::core_key(core));
  if (it == k.runtime_args.end())
    throw ValidationError("runtime_args: kernel '" + k.name + "' has no runtime args on core " + core.str() +
                          "; set them first with set_runtime_args");
  return it->second;
}

std::span<uint32_t> Program::common_runtime_args(KernelHandle kernel) {
  KernelSpec& k = kernel_at(live(), kernel, "common_runtime_args");
  return k.common_args;
}

} // namespace tessel
