// Trace capture and replay (CommandQueue's trace calls, trace.hpp).
//
// Capture state: DeviceState::capturing_trace_id names the open capture (0:
// none); traces_[id - 1] holds trace `id` (null once released). Ids are never
// reused, so an id below the next one either names a trace or a released one.
//
// Replay runs each captured launch exactly as enqueue_program's launch half
// does (runtime::configure_cores, then Chip::run) on the captured copy: no
// planning, no validation of the programs. What can have changed since the
// capture is checked once per replay: the device is open, no capture is open,
// and the traced CBs still fit under every L1 buffer.
#include "runtime/trace.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/device_state.hpp"
#include "runtime/dispatch.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"

namespace tessel {

namespace runtime {

std::unique_ptr<CapturedLaunch> capture_launch(const ProgramState& st, const ProgramPlan& plan, uint32_t grid_x) {
  auto launch = std::make_unique<CapturedLaunch>();
  ProgramState& frozen = launch->state;
  frozen.kernels = st.kernels;
  for (KernelSpec& k : frozen.kernels) {
    // Replay reads the args from launch->args, and no source.
    std::unordered_map<uint32_t, std::vector<uint32_t>>().swap(k.runtime_args);
    std::string().swap(k.source_text);
  }
  frozen.cb_end = st.cb_end;
  frozen.plan = plan;
  size_t with_args = 0;
  for (const CorePlan& cp : plan.cores)
    for (const CorePlan::Risc& r : cp.risc)
      with_args += r.kernel >= 0 && r.args;
  launch->args.reserve(with_args); // the plan points into it: it must not reallocate
  for (CorePlan& cp : frozen.plan.cores) {
    const uint32_t key = core_key({cp.core_index % grid_x, cp.core_index / grid_x});
    for (CorePlan::Risc& r : cp.risc) {
      if (r.kernel < 0) continue;
      r.common = &frozen.kernels[size_t(r.kernel)].common_args;
      if (r.args) r.args = &launch->args.emplace_back(st.kernels[size_t(r.kernel)].runtime_args.at(key));
    }
  }
  for (sim::Launch& l : frozen.plan.launches) {
    auto cp = std::find_if(frozen.plan.cores.begin(), frozen.plan.cores.end(),
                           [&](const CorePlan& c) { return c.core_index == l.core_index; });
    if (cp == frozen.plan.cores.end() || cp->risc[l.risc].kernel < 0)
      throw std::logic_error("capture_launch: a launch on core index " + std::to_string(l.core_index) +
                             " has no kernel in the plan");
    l.kernel_name = frozen.kernels[size_t(cp->risc[l.risc].kernel)].name.c_str();
  }
  return launch;
}

} // namespace runtime

void CommandQueue::reject_during_capture(const char* call) const {
  const uint32_t id = device_.state().capturing_trace_id;
  if (id)
    throw ValidationError(std::string(call) + ": not allowed while trace " + std::to_string(id) +
                          " is being captured (a trace records only enqueue_program); call end_trace_capture(" +
                          std::to_string(id) + ") first");
}

runtime::Trace& CommandQueue::trace_at(uint32_t trace_id, const char* call) const {
  if (trace_id == 0 || trace_id > traces_.size())
    throw ValidationError(std::string(call) + ": trace " + std::to_string(trace_id) +
                          " does not exist; expected an id returned by begin_trace_capture on this queue (" +
                          (traces_.empty() ? std::string("none yet") : "1.." + std::to_string(traces_.size())) + ")");
  if (!traces_[trace_id - 1])
    throw ValidationError(std::string(call) + ": trace " + std::to_string(trace_id) +
                          " has been released; capture it again");
  return *traces_[trace_id - 1];
}

uint32_t CommandQueue::begin_trace_capture() {
  runtime::DeviceState& ds = device_.state();
  ds.require_open("begin_trace_capture");
  if (ds.capturing_trace_id)
    throw ValidationError("begin_trace_capture: trace " + std::to_string(ds.capturing_trace_id) +
                          " is already being captured; captures do not nest: call end_trace_capture(" +
                          std::to_string(ds.capturing_trace_id) + ") first");
  traces_.push_back(std::make_unique<runtime::Trace>());
  ds.capturing_trace_id = uint32_t(traces_.size());
  return ds.capturing_trace_id;
}

void CommandQueue::end_trace_capture(uint32_t trace_id) {
  runtime::DeviceState& ds = device_.state();
  if (ds.capturing_trace_id == 0)
    throw ValidationError("end_trace_capture: trace " + std::to_string(trace_id) +
                          " is not being captured; no capture is open (begin one with begin_trace_capture)");
  if (trace_id != ds.capturing_trace_id)
    throw ValidationError("end_trace_capture: trace " + std::to_string(trace_id) +
                          " is not being captured; the open capture is trace " + std::to_string(ds.capturing_trace_id));
  ds.capturing_trace_id = 0;
}

void CommandQueue::replay_trace(uint32_t trace_id, bool) {
  const char* call = "replay_trace";
  runtime::DeviceState& ds = device_.state();
  ds.require_open(call);
  reject_during_capture(call);
  const runtime::Trace& trace = trace_at(trace_id, call);
  const uint64_t lowest_l1_buffer = ds.l1->lowest_allocated();
  if (trace.cb_end > lowest_l1_buffer)
    throw ValidationError("replay_trace: trace " + std::to_string(trace_id) + " has circular buffers up to L1 offset " +
                          std::to_string(trace.cb_end) + ", but an L1 buffer now starts at offset " +
                          std::to_string(lowest_l1_buffer) + "; free that buffer, or allocate it before capturing");
  sim::Chip& chip = *ds.chip;
  for (const auto& launch : trace.launches) {
    runtime::configure_cores(launch->state, launch->state.plan, chip);
    chip.run(launch->state.plan.launches);
    ++programs_run_;
  }
}

void CommandQueue::release_trace(uint32_t trace_id) {
  const char* call = "release_trace";
  trace_at(trace_id, call);
  const uint32_t capturing = device_.state().capturing_trace_id;
  if (trace_id == capturing)
    throw ValidationError("release_trace: trace " + std::to_string(trace_id) +
                          " is still being captured; call end_trace_capture(" + std::to_string(trace_id) + ") first");
  traces_[trace_id - 1].reset();
}

uint32_t CommandQueue::trace_launch_count(uint32_t trace_id) const {
  return uint32_t(trace_at(trace_id, "trace_launch_count").launches.size());
}

} // namespace tessel
