#include "tessel/device.hpp"

#include <atomic>
#include <mutex>

#include "base/env.hpp"
#include "base/trace_file.hpp"
#include "base/warning.hpp"
#include "runtime/device_state.hpp"
#include "runtime/device_timing.hpp"
#include "runtime/device_trace.hpp"
#include "sim/l1_layout.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/error.hpp"
#include "tessel/program_cache.hpp"

namespace tessel {

namespace runtime {
void DeviceState::require_open(const char* call) const {
  if (!open()) throw ValidationError(std::string(call) + ": the device is closed");
}
} // namespace runtime

namespace {
std::atomic<uint64_t> g_generation{1};

std::mutex g_lanes_mutex;
uint64_t g_lanes_in_use = 0; // bit per lane

uint32_t acquire_lane() {
  std::lock_guard lock(g_lanes_mutex);
  for (uint32_t i = 0; i < runtime::kMaxOpenDevices; ++i)
    if (!(g_lanes_in_use >> i & 1)) {
      g_lanes_in_use |= uint64_t(1) << i;
      return i;
    }
  throw ValidationError("Device::open: " + std::to_string(runtime::kMaxOpenDevices) +
                        " devices are open already; close one first");
}

sim::NocMode noc_mode_of(const DeviceConfig& config) {
  if (config.noc) return sim::parse_noc_mode(*config.noc, "Device::open: noc");
  const std::optional<std::string> env = base::env_text("TESSEL_NOC");
  if (!env || *env == "eager") return sim::NocMode::Eager;
  if (*env == "checked") return sim::NocMode::Checked;
  throw ValidationError("TESSEL_NOC='" + *env + "' is not valid: expected eager or checked");
}

// TESSEL_POLICY is the compat devices' setting (compat/src/device.cpp puts
// it into their config); the other front doors set a device's policy
// themselves. Set there and malformed, it is an error; set to another policy
// than the device's, a warning, so that nobody believes a run used it.
void check_policy_variable(const sim::SchedulerPolicy& policy) {
  const std::optional<std::string> env = base::env_text("TESSEL_POLICY");
  if (!env) return;
  sim::SchedulerPolicy wanted;
  try {
    wanted = sim::SchedulerPolicy::parse(*env);
  } catch (const ValidationError& e) {
    throw ValidationError("TESSEL_POLICY='" + *env + "' is not valid: " + e.what());
  }
  if (wanted.to_string() == policy.to_string()) return;
  const std::string message = "TESSEL_POLICY=" + *env +
                              " is read by compat devices only (docs/compat.md); this device runs under " +
                              policy.to_string() +
                              ", as its front door set it (tessel run --policy, DeviceConfig::policy, "
                              "Device.open(policy=), Session(policy=))";
  if (base::warn_once("TESSEL_POLICY " + *env + " " + policy.to_string(), message) == base::Warned::Strict)
    throw ValidationError(message + base::kStrictSuffix);
}

void release_lane(uint32_t lane) {
  std::lock_guard lock(g_lanes_mutex);
  g_lanes_in_use &= ~(uint64_t(1) << lane);
}
} // namespace

namespace runtime {
DeviceState::~DeviceState() { release_lane(lane); }
} // namespace runtime

Device::Device(const DeviceConfig& config) : state_(std::make_unique<runtime::DeviceState>()) {
  auto& s = *state_;
  s.config = config;
  s.lane = acquire_lane();
  sim::ArchSpec arch = sim::arch_preset(config.arch);
  if (config.grid_x || config.grid_y) arch = sim::with_grid(arch, config.grid_x, config.grid_y);
  sim::SchedulerPolicy policy = sim::SchedulerPolicy::parse(config.policy);
  check_policy_variable(policy);
  const sim::NocMode noc_mode = noc_mode_of(config);
  const bool timing = runtime::device_timing(config);
  const bool check_memory = config.check_memory ? *config.check_memory : base::env_flag("TESSEL_CHECK_MEMORY", true);
  const bool profiler =
      config.profiler ? *config.profiler
                      : base::env_flag("TESSEL_PROFILER", false) || base::env_flag("TT_METAL_DEVICE_PROFILER", false);
  s.arch = arch;
  if (!config.kernel_cache_dir.empty()) {
    s.own_cache = std::make_unique<jit::KernelCache>(config.kernel_cache_dir);
    s.cache = s.own_cache.get();
  } else {
    s.cache = &jit::default_kernel_cache();
  }
  s.chip = std::make_unique<sim::Chip>(arch, policy);
  s.chip->set_noc_mode(noc_mode);
  s.chip->set_check_memory(check_memory);
  s.chip->set_profiler_enabled(profiler);
  if (timing) sim::set_chip_timing(*s.chip, true); // before the trace, whose time base follows it
  // Last of what can fail: opening the trace starts its file afresh, so an
  // open refused for any other reason leaves an existing file as it was.
  sim::TraceOptions trace = runtime::open_device_trace(config, arch);
  if (trace.file) sim::set_chip_trace(*s.chip, std::move(trace));
  s.dram = std::make_unique<runtime::RangeAllocator>(runtime::dram_allocation_base(arch), arch.dram_bank_size_bytes);
  s.l1 = std::make_unique<runtime::RangeAllocator>(sim::kL1UnreservedBase, arch.l1_size_bytes);
  s.generation = g_generation.fetch_add(1);
  queue_ = std::make_unique<CommandQueue>(*this);
  program_cache_ = std::make_unique<ProgramCache>(*this);
}

std::shared_ptr<Device> Device::open(const DeviceConfig& config) { return std::shared_ptr<Device>(new Device(config)); }

Device::~Device() = default;

void Device::close() {
  if (state_->persistent && state_->persistent->lost) {
    // A thread still runs kernels over the chip: it stays, unreachable, until the process exits.
    (void)state_->chip.release();
    return;
  }
  // A persistent grid that can stop (a flow design's) ends before its chip does.
  if (state_->persistent && state_->persistent->release) {
    const std::function<void()> release = state_->persistent->release;
    release();
  }
  program_cache_->clear();
  state_->chip.reset();
}

bool Device::is_open() const { return state_->open(); }
uint64_t Device::generation() const { return state_->generation; }
const std::string& Device::arch_name() const { return state_->arch.name; }
CoreCoord Device::grid() const { return {state_->arch.grid_x, state_->arch.grid_y}; }

CoreCoord Device::worker_core_from_logical_core(CoreCoord logical) const {
  const auto& a = state_->arch;
  if (logical.x >= a.grid_x || logical.y >= a.grid_y)
    throw ValidationError("worker_core_from_logical_core: logical core " + logical.str() + " is outside the " +
                          std::to_string(a.grid_x) + "x" + std::to_string(a.grid_y) + " worker grid of " + a.name);
  return {logical.x + a.worker_noc_x0, logical.y + a.worker_noc_y0};
}

uint32_t Device::l1_size() const { return state_->arch.l1_size_bytes; }
uint32_t Device::l1_alignment() const { return state_->arch.l1_alignment; }
uint32_t Device::dram_alignment() const { return state_->arch.dram_alignment(); }
uint32_t Device::dram_banks() const { return state_->arch.dram_banks; }
uint64_t Device::dram_bank_size() const { return state_->arch.dram_bank_size_bytes; }
uint32_t Device::num_cb_indices() const { return state_->arch.num_cb_indices; }

Device::MemoryStatistics Device::memory_statistics(BufferType type) const {
  const runtime::RangeAllocator& a = type == BufferType::DRAM ? *state_->dram : *state_->l1;
  return {a.begin(), a.end(), a.bytes_allocated(), a.largest_free(), a.lowest_allocated()};
}
uint32_t Device::clock_mhz() const { return state_->arch.clock_mhz; }

std::string Device::policy() const {
  state_->require_open("Device::policy");
  return state_->chip->policy().to_string();
}

std::string Device::noc_mode() const {
  state_->require_open("Device::noc_mode");
  return sim::noc_mode_name(state_->chip->noc_mode());
}

bool Device::check_memory() const {
  state_->require_open("Device::check_memory");
  return state_->chip->check_memory();
}

void Device::set_policy(const std::string& policy) {
  state_->require_open("Device::set_policy");
  state_->chip->set_policy(sim::SchedulerPolicy::parse(policy));
}

std::string Device::trace_path() const {
  const sim::Tracer* t = state_->open() ? state_->chip->tracer() : nullptr;
  return t ? t->file().path() : std::string();
}

uint64_t Device::trace_ring_events() const {
  const sim::Tracer* t = state_->open() ? state_->chip->tracer() : nullptr;
  return t ? t->ring_events() : 0;
}

bool Device::timing_enabled() const { return state_->open() && state_->chip->timing() != nullptr; }

TimingReport Device::last_run_timing() const {
  state_->require_open("Device::last_run_timing");
  const sim::Timing* t = state_->chip->timing();
  if (!t)
    throw ValidationError("Device::last_run_timing: this device does not estimate time; open it with "
                          "DeviceConfig::timing = true or TESSEL_TIMING=1");
  return runtime::timing_report(t->last_run());
}

CommandQueue& Device::command_queue() { return *queue_; }
ProgramCache& Device::program_cache() { return *program_cache_; }
runtime::DeviceState& Device::state() { return *state_; }

} // namespace tessel
