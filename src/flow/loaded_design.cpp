#include "tessel/flow/loaded_design.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "flow/gridless.hpp"
#include "flow/layout.hpp"
#include "flow/sequencer.hpp"
#include "runtime/device_state.hpp"
#include "sim/chip.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/interrupt.hpp"
#include "tessel/iron_abi.h"
#include "tessel/program.hpp"

namespace tessel::flow {

namespace {
using Clock = std::chrono::steady_clock;
constexpr const char* kMoverSource = "#include \"tessel/iron_mover.h\"\n";

// One grid runs on a device at a time: the design whose grid runs there now.
// A call of another design stops it first (it starts afresh at its own next
// call: every call ends with nothing left in its fifos, so only a worker's
// place in a loop that spans calls is lost). Host threads only.
std::mutex active_mutex;
std::map<const Device*, LoadedDesign::Impl*> active;
} // namespace

struct LoadedDesign::Impl {
  std::shared_ptr<Device> device;
  DesignSpec spec;
  Layout layout;
  Program program;
  std::unique_ptr<CallLine> line;
  std::unique_ptr<Sequencer> sequencer;
  std::thread card;
  bool running = false, closed = false;
  bool gridless = false; // no worker and no channel: nothing runs on the grid
  uint64_t calls = 0, launches = 0;
  std::exception_ptr card_error; // the run's own error (a kernel's), if it ended with one

  sim::Chip& chip() { return *device->state().chip; }
  void launch();
  void halt();
};

void LoadedDesign::Impl::launch() {
  {
    Impl* other = nullptr;
    {
      std::lock_guard<std::mutex> lock(active_mutex);
      auto it = active.find(device.get());
      if (it != active.end() && it->second != this) other = it->second;
    }
    if (other) other->halt();
    std::lock_guard<std::mutex> lock(active_mutex);
    active[device.get()] = this;
  }
  // A host launch on this device stops this grid first (it starts afresh at
  // the next call).
  device->state().persistent =
      runtime::DeviceState::PersistentGrid{"the grid of design '" + spec.name + "'", [this] { halt(); }};
  sim::Chip& c = chip();
  // The tables and pools are the runtime's L1: NoC transfers into them are legal.
  const uint32_t cores = device->grid().x * device->grid().y;
  const uint32_t region = (layout.region_bytes + 15) & ~15u;
  c.memory_map().add(sim::MemoryKind::L1, IRON_TABLE_L1, uint64_t(cores) * region, region, region, cores);
  // The tables' initial images: every lock at its initial count, no task.
  for (const CoreImage& img : layout.cores)
    std::memcpy(c.core(img.chip_index).l1 + IRON_TABLE_L1, img.table.data(), img.table.size());
  line = std::make_unique<CallLine>();
  sequencer = std::make_unique<Sequencer>(c, spec, layout, *line);
  card_error = nullptr;
  CallLine* l = line.get();
  Sequencer* s = sequencer.get();
  std::shared_ptr<Device> dev = device;
  Program* p = &program;
  std::exception_ptr* err = &card_error;
  card = std::thread([l, s, dev, p, err] {
    sim::Chip& chip = *dev->state().chip;
    runtime::mark_card_thread();
    chip.set_agent(s);
    try {
      dev->command_queue().enqueue_program(*p);
    } catch (const sim::RunStopped&) {
    } catch (...) {
      *err = std::current_exception();
    }
    chip.set_agent(nullptr);
    l->finished.store(1, std::memory_order_release);
    base::unpark(l->host_park);
  });
  running = true;
  ++launches;
}

void LoadedDesign::Impl::halt() {
  if (!running) return;
  line->stop.store(1, std::memory_order_release);
  base::unpark(line->card_park);
  card.join();
  running = false;
  if (device->is_open()) chip().memory_map().remove(sim::MemoryKind::L1, IRON_TABLE_L1);
  device->state().persistent.reset();
  std::lock_guard<std::mutex> lock(active_mutex);
  auto it = active.find(device.get());
  if (it != active.end() && it->second == this) active.erase(it);
}

LoadedDesign::LoadedDesign(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LoadedDesign::~LoadedDesign() {
  try {
    close();
  } catch (...) {
  }
}

std::unique_ptr<LoadedDesign> LoadedDesign::load(std::shared_ptr<Device> device, DesignSpec spec) {
  if (!device || !device->is_open()) throw ValidationError("LoadedDesign::load: the device is not open");
  spec.validate(device->grid());
  auto impl = std::make_unique<Impl>();
  Impl& d = *impl;
  d.device = device;
  d.layout = lay_out(spec, d.chip(), device->l1_size());
  d.spec = std::move(spec);
  const DesignSpec& s = d.spec;

  // Kernels: each worker on RISCV_1 of its core, the mover on RISCV_0 of
  // every core with channels. A worker is an AIE core's program, whose
  // kernels do the arithmetic: built at -O3 (vectorised loops), as compute
  // kernels are, where data-movement kernels default to -O2.
  try {
    for (const WorkerSpec& w : s.workers) {
      DataMovementConfig cfg{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default, {}, {}, {}, 3, w.include_dirs};
      d.program.add_kernel_from_source(w.source, w.source_name.empty() ? w.name : w.source_name, CoreRangeSet(w.core),
                                       cfg);
    }
    std::vector<CoreRange> movers;
    for (const CoreImage& img : d.layout.cores)
      if (!img.channels.empty()) movers.emplace_back(img.core, img.core);
    if (!movers.empty()) {
      DataMovementConfig cfg{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, {}, {}, {}, -1};
      d.program.add_kernel_from_source(kMoverSource, "iron_mover", CoreRangeSet(movers), cfg);
    }
    // A design without workers and channels is legal: its stream can only
    // loop (every other op names a channel or a worker), so its calls run
    // on the host and no grid is launched.
    d.gridless = s.workers.empty() && movers.empty();
    if (!d.gridless) device->command_queue().compile_program(d.program);
  } catch (const ProgramError&) {
    throw;
  } catch (const ValidationError& e) {
    throw ProgramError("design '" + s.name + "': " + e.what());
  }
  return std::unique_ptr<LoadedDesign>(new LoadedDesign(std::move(impl)));
}

CallStats LoadedDesign::call(std::span<const HostSpan> buffers, std::span<const int64_t> parameters, double timeout_s) {
  Impl& d = *impl_;
  const DesignSpec& s = d.spec;
  if (d.closed) throw ValidationError("design '" + s.name + "': called after close()");
  if (!d.device->is_open()) throw ValidationError("design '" + s.name + "': its device is closed");
  if (buffers.size() != s.args.size())
    throw ValidationError("design '" + s.name + "': called with " + std::to_string(buffers.size()) +
                          " host buffers; its Runtime declares " + std::to_string(s.args.size()));
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].bytes != s.args[i].bytes || !buffers[i].data)
      throw ValidationError("design '" + s.name + "': host buffer " + std::to_string(i) + " ('" + s.args[i].name +
                            "') has " + std::to_string(buffers[i].bytes) + " bytes; the design was built for " +
                            std::to_string(s.args[i].bytes));
  if (parameters.size() != s.sequence.parameters)
    throw ValidationError("design '" + s.name + "': called with " + std::to_string(parameters.size()) +
                          " dispatch values; the sequence takes " + std::to_string(s.sequence.parameters));
  if (d.gridless) {
    ++d.calls;
    return run_gridless(s, parameters, d.calls, timeout_s);
  }
  if (!d.running) d.launch();
  // The shims read and write the host buffers themselves (as an NPU's shim
  // DMA does host memory), so nothing is copied around the call; the card is
  // parked between calls, and what it reads is published with the request.
  CallLine& l = *d.line;
  l.host_data.resize(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    l.host_data[i] = static_cast<uint8_t*>(buffers[i].data);
  l.parameters.assign(parameters.begin(), parameters.end());
  const uint32_t request = l.requested.load() + 1;
  l.requested.store(request, std::memory_order_release);
  base::unpark(l.card_park);
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  uint32_t checks = 0;
  bool timed_out = false;
  const auto ended = [&] {
    return l.answered.load(std::memory_order_acquire) == request || l.finished.load(std::memory_order_acquire);
  };
  while (!base::spin_or_park(l.host_park, checks, kSpinChecks, 20000, ended)) {
    if (checks >= kSpinChecks && (interrupt_requested() || Clock::now() > deadline)) {
      timed_out = !interrupt_requested();
      break;
    }
  }
  ++d.calls;
  const bool answered = l.answered.load(std::memory_order_acquire) == request;
  if (!answered || l.result.failure != CallFailure::None) {
    const CallResult result = answered ? l.result : CallResult{};
    d.halt(); // the next call starts the grid afresh
    if (d.card_error) std::rethrow_exception(d.card_error);
    if (!answered) {
      if (timed_out)
        throw FlowError("design '" + s.name + "': call " + std::to_string(d.calls) + " did not end within " +
                        std::to_string(timeout_s) + " s; the grid was stopped");
      throw Interrupted("design '" + s.name + "': call " + std::to_string(d.calls) + " interrupted");
    }
    if (result.failure == CallFailure::Deadlock) throw DeadlockError(result.message);
    throw FlowError(result.message);
  }
  return l.result.stats;
}

void LoadedDesign::close() {
  Impl& d = *impl_;
  if (d.closed) return;
  d.halt();
  d.closed = true;
}

const DesignSpec& LoadedDesign::spec() const { return impl_->spec; }
uint64_t LoadedDesign::calls() const { return impl_->calls; }
uint64_t LoadedDesign::launches() const { return impl_->launches; }

} // namespace tessel::flow
