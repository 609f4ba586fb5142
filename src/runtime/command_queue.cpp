// CommandQueue: host transfers and program dispatch.
//
// Dispatch of a program has two parts:
//  - planning (only when the program's structure or the device changed):
//    validate against the device, build kernel binaries (cached), lay out
//    CBs and semaphores per core, and list the launches. Nothing on the device
//    changes until planning has succeeded.
//  - launching (every enqueue): write each core's CB interfaces, semaphore
//    initial values and runtime arguments, then run the chip. This path does
//    no allocation. During a trace capture the launch is recorded instead
//    (trace.cpp) and run by replay_trace.
#include "tessel/command_queue.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/device_state.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/event_state.hpp"
#include "runtime/program_state.hpp"
#include "runtime/trace.hpp"
#include "sim/l1_layout.hpp"
#include "tessel/buffer.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/program.hpp"

namespace tessel {

using runtime::CorePlan;
using runtime::KernelSpec;
using runtime::ProgramPlan;
using runtime::ProgramState;

namespace {
void check_transfer(Device& device, const Buffer& buffer, const void* host, uint64_t size_bytes, runtime::HostSide side,
                    const char* call) {
  device.state().require_open(call);
  if (&buffer.device() != &device) throw ValidationError(std::string(call) + ": the buffer belongs to another device");
  runtime::check_transfer(buffer, host, size_bytes, side, call);
}
} // namespace

CommandQueue::CommandQueue(Device& device) : device_(device), progress_(std::make_shared<runtime::QueueProgress>()) {}

CommandQueue::~CommandQueue() = default;

void CommandQueue::enqueue_write_buffer(Buffer& buffer, const void* src, uint64_t size_bytes, bool) {
  check_transfer(device_, buffer, src, size_bytes, runtime::HostSide::Source, "enqueue_write_buffer");
  reject_during_capture("enqueue_write_buffer");
  runtime::copy_to_device(buffer, src);
}

void CommandQueue::enqueue_read_buffer(Buffer& buffer, void* dst, uint64_t size_bytes, bool) {
  check_transfer(device_, buffer, dst, size_bytes, runtime::HostSide::Destination, "enqueue_read_buffer");
  reject_during_capture("enqueue_read_buffer");
  runtime::copy_from_device(buffer, dst);
}

void CommandQueue::finish() {
  device_.state().require_open("finish");
  reject_during_capture("finish");
}

namespace {

void validate_for_device(const ProgramState& st, const runtime::DeviceState& ds) {
  const auto& a = ds.arch;
  auto check_cores = [&](const CoreRangeSet& cores, const std::string& what) {
    for (const CoreRange& r : cores.ranges())
      if (r.end_coord.x >= a.grid_x || r.end_coord.y >= a.grid_y)
        throw ValidationError("enqueue_program: " + what + " is placed on cores " + r.str() + ", outside the " +
                              std::to_string(a.grid_x) + "x" + std::to_string(a.grid_y) + " worker grid of " + a.name);
  };
  if (st.kernels.empty()) throw ValidationError("enqueue_program: the program has no kernels");
  for (const KernelSpec& k : st.kernels)
    check_cores(k.cores, "kernel '" + k.name + "'");
  for (size_t i = 0; i < st.cbs.size(); ++i) {
    check_cores(st.cbs[i].cores, "circular buffer config " + std::to_string(i));
    for (auto& [index, fmt] : st.cbs[i].config.formats())
      if (index >= a.num_cb_indices)
        throw ValidationError("enqueue_program: CB index " + std::to_string(index) + " is out of range for " + a.name +
                              ", which has " + std::to_string(a.num_cb_indices) + " CB indices");
  }
  for (size_t i = 0; i < st.semaphores.size(); ++i)
    check_cores(st.semaphores[i].cores, "semaphore " + std::to_string(i));
  if (st.cb_end > a.l1_size_bytes)
    throw ValidationError("enqueue_program: the program's circular buffers end at L1 offset " +
                          std::to_string(st.cb_end) + ", beyond the " + std::to_string(a.l1_size_bytes) +
                          "-byte L1 of " + a.name);
}

// Builds a complete new plan; the program's current plan is untouched on failure.
ProgramPlan make_plan(ProgramState& st, runtime::DeviceState& ds) {
  validate_for_device(st, ds);
  ProgramPlan plan;
  plan.device_generation = ds.generation;
  plan.kernels_version = st.kernels_version;
  plan.layout_version = st.layout_version;
  plan.cb_end = st.cb_end;

  // Kernels that use get_tile_size are built with the CBs' tile sizes, so a
  // change of CBs asks the cache again (a memo hit when nothing changed).
  const bool same_binaries = st.plan.device_generation == ds.generation &&
                             st.plan.kernels_version == st.kernels_version &&
                             st.plan.layout_version == st.layout_version;
  if (same_binaries) {
    plan.binaries = st.plan.binaries;
  } else {
    std::vector<jit::BuildRequest> requests;
    requests.reserve(st.kernels.size());
    for (const KernelSpec& k : st.kernels)
      requests.push_back(runtime::build_request(k, &st.cbs, &ds.arch));
    plan.binaries = ds.cache->build_all(requests);
  }

  sim::Chip& chip = *ds.chip;
  const uint32_t gx = ds.arch.grid_x;
  std::vector<int> plan_of_core(chip.core_count(), -1);
  auto core_plan = [&](CoreCoord c) -> CorePlan& {
    uint32_t idx = c.y * gx + c.x;
    if (plan_of_core[idx] < 0) {
      plan_of_core[idx] = int(plan.cores.size());
      plan.cores.emplace_back();
      plan.cores.back().core_index = idx;
    }
    return plan.cores[size_t(plan_of_core[idx])];
  };

  for (size_t ki = 0; ki < st.kernels.size(); ++ki) {
    const KernelSpec& k = st.kernels[ki];
    for (CoreCoord c : k.cores.cores()) {
      CorePlan& cp = core_plan(c);
      auto& r = cp.risc[k.risc];
      r.kernel = int(ki);
      auto it = k.runtime_args.find(runtime::core_key(c));
      r.args = it == k.runtime_args.end() ? nullptr : &it->second;
      r.common = &k.common_args;
    }
  }
  for (const auto& cb : st.cbs) {
    for (CoreCoord c : cb.cores.cores()) {
      CorePlan& cp = core_plan(c);
      uint8_t* l1 = chip.core(c.y * gx + c.x).l1;
      for (auto& [index, fmt] : cb.config.formats()) {
        tessel_cb_iface q = {};
        const uint32_t page = cb.config.page_sizes().at(index);
        q.fifo_addr = uint32_t(reinterpret_cast<uintptr_t>(l1 + cb.l1_offset));
        q.fifo_size = cb.config.total_size();
        q.fifo_limit = q.fifo_addr + q.fifo_size;
        q.page_size = page;
        q.num_pages = q.fifo_size / page;
        q.wr_ptr = q.rd_ptr = q.fifo_addr;
        q.data_format = uint32_t(fmt);
        q.tile_size = tile_size(fmt);
        q.configured = 1;
        cp.cbs.push_back(q);
        cp.cb_indices.push_back(index);
        cp.cb_mask |= uint64_t(1) << index;
        if (cb.config.globally_allocated_address()) cp.cb_global_mask |= uint64_t(1) << index;
      }
    }
  }
  for (uint32_t id = 0; id < st.semaphores.size(); ++id)
    for (CoreCoord c : st.semaphores[id].cores.cores()) {
      CorePlan& cp = core_plan(c);
      cp.semaphores.emplace_back(id, st.semaphores[id].initial_value);
      cp.num_semaphores = std::max(cp.num_semaphores, id + 1);
      cp.semaphore_mask |= 1u << id;
    }

  // Launch order: core by core, BRISC, NCRISC, compute (the deterministic order).
  std::sort(plan.cores.begin(), plan.cores.end(),
            [](const CorePlan& a, const CorePlan& b) { return a.core_index < b.core_index; });
  for (CorePlan& cp : plan.cores)
    for (uint32_t r = 0; r < TESSEL_RISC_COUNT; ++r)
      if (cp.risc[r].kernel >= 0) {
        const KernelSpec& k = st.kernels[size_t(cp.risc[r].kernel)];
        sim::Launch l;
        l.core_index = cp.core_index;
        l.risc = r;
        jit::KernelBinary& binary = *plan.binaries[size_t(cp.risc[r].kernel)];
        const uint32_t instance = runtime::kernel_instance_index(ds.lane, cp.core_index, r);
        l.entry = binary.instance(instance);
        if (!binary.mutable_symbols().empty()) plan.global_resets.emplace_back(&binary, instance);
        l.kernel_name = k.name.c_str();
        plan.launches.push_back(l);
      }
  return plan;
}

} // namespace

namespace runtime {
void configure_cores(const ProgramState& st, const ProgramPlan& plan, sim::Chip& chip) {
  for (auto [binary, instance] : plan.global_resets)
    binary->reset_globals(instance);
  const uint64_t configuration = chip.new_configuration();
  for (const CorePlan& cp : plan.cores) {
    sim::Core& core = chip.core(cp.core_index);
    core.configuration = configuration;
    core.semaphore_mask = cp.semaphore_mask;
    uint64_t stale = core.cb_configured_mask & ~cp.cb_mask;
    while (stale) {
      int i = __builtin_ctzll(stale);
      core.cbs[i].configured = 0;
      stale &= stale - 1;
    }
    for (size_t i = 0; i < cp.cbs.size(); ++i)
      core.cbs[cp.cb_indices[i]] = cp.cbs[i];
    core.cb_configured_mask = cp.cb_mask;
    core.cb_global_mask = cp.cb_global_mask;
    for (auto [id, value] : cp.semaphores)
      std::memcpy(core.l1 + sim::semaphore_offset(id), &value, 4);
    const uint32_t sem_base = uint32_t(reinterpret_cast<uintptr_t>(core.l1 + sim::kL1SemaphoreBase));
    for (uint32_t r = 0; r < TESSEL_RISC_COUNT; ++r) {
      const auto& rp = cp.risc[r];
      if (rp.kernel < 0) continue;
      tessel_kernel_ctx& k = core.ctx[r];
      const KernelSpec& spec = st.kernels[size_t(rp.kernel)];
      uint32_t* args = reinterpret_cast<uint32_t*>(core.l1 + sim::unique_args_offset(r));
      uint32_t* common = reinterpret_cast<uint32_t*>(core.l1 + sim::common_args_offset(r));
      const uint32_t n = rp.args ? uint32_t(rp.args->size()) : 0;
      const uint32_t nc = uint32_t(rp.common->size());
      if (n) std::memcpy(args, rp.args->data(), n * 4);
      if (nc) std::memcpy(common, rp.common->data(), nc * 4);
      k.rt_args = args;
      k.rt_arg_count = n;
      k.common_args = common;
      k.common_arg_count = nc;
      k.noc_index = spec.noc;
      k.semaphore_l1 = sem_base;
      k.num_semaphores = cp.num_semaphores;
      k.semaphore_mask = cp.semaphore_mask;
      k.dprint_length = 0;
      k.dprint_thread = TESSEL_DPRINT_THREAD_ALL;
      const ComputeConfig& cc = spec.compute_config;
      k.fp32_dest_acc_en = spec.compute && cc.fp32_dest_acc_en;
      k.dst_full_sync_en = spec.compute && cc.dst_full_sync_en;
      k.math_fidelity = spec.compute ? uint32_t(cc.math_fidelity) : 0;
      k.math_approx_mode = spec.compute && cc.math_approx_mode;
      k.unpack_to_dest_fp32 = spec.unpack_to_dest_fp32;
    }
  }
}

} // namespace runtime

namespace {
void ensure_plan(ProgramState& st, runtime::DeviceState& ds) {
  if (st.plan.device_generation != ds.generation || st.plan.kernels_version != st.kernels_version ||
      st.plan.layout_version != st.layout_version) {
    ProgramPlan plan = make_plan(st, ds);
    st.plan = std::move(plan);
  }
}
} // namespace

void CommandQueue::compile_program(Program& program) {
  runtime::DeviceState& ds = device_.state();
  ds.require_open("compile_program");
  ensure_plan(program.state(), ds);
}

namespace runtime {
namespace {
thread_local bool card_thread = false;
}
void mark_card_thread() { card_thread = true; }
} // namespace runtime

namespace runtime {
std::span<const sim::Launch> prepare_launch(Device& device, Program& program, const char* call) {
  runtime::DeviceState& ds = device.state();
  ds.require_open(call);
  ProgramState& st = program.state();
  // L1 buffers may have been allocated since planning: check the CBs still fit
  // under them, before planning (which may compile) changes anything.
  const uint64_t lowest_l1_buffer = ds.l1->lowest_allocated();
  if (st.cb_end > lowest_l1_buffer)
    throw ValidationError(std::string(call) + ": the program's circular buffers occupy L1 up to offset " +
                          std::to_string(st.cb_end) + ", but an L1 buffer starts at offset " +
                          std::to_string(lowest_l1_buffer) + " (L1 is " + std::to_string(ds.arch.l1_size_bytes) +
                          " bytes per core: reduce the CBs or free L1 buffers)");
  ensure_plan(st, ds);
  return st.plan.launches;
}

void release_persistent_grid(DeviceState& ds, const char* call) {
  if (!ds.persistent || card_thread) return;
  if (!ds.persistent->release)
    throw ValidationError(std::string(call) + ": the device is running " + ds.persistent->owner +
                          " on its card thread; stop or close it before launching another program");
  const std::function<void()> release = ds.persistent->release; // clears ds.persistent
  release();
}
} // namespace runtime

void CommandQueue::enqueue_program(Program& program, bool) {
  runtime::DeviceState& ds = device_.state();
  const std::span<const sim::Launch> launches = runtime::prepare_launch(device_, program, "enqueue_program");
  ProgramState& st = program.state();
  if (ds.capturing_trace_id) {
    // Recorded with its dispatch values as they are now, run by replay_trace.
    traces_[ds.capturing_trace_id - 1]->append(runtime::capture_launch(st, st.plan, ds.arch.grid_x));
    return;
  }
  runtime::release_persistent_grid(ds, "enqueue_program");
  runtime::configure_cores(st, st.plan, *ds.chip);
  ds.chip->run(launches);
  ++programs_run_;
}

} // namespace tessel
