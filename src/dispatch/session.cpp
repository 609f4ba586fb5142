// Session: opening a card, loading a persistent program onto every core,
// starting the card's thread (the grid plus the dispatcher) and closing.
#include "tessel/dispatch/session.hpp"

#include <algorithm>
#include <cstdlib>

#include "dispatch/run_state.hpp"
#include "dispatch/session_state.hpp"
#include "jit/cross_build.hpp"
#include "runtime/device_state.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/program.hpp"

namespace tessel::dispatch {

namespace {
using Clock = std::chrono::steady_clock;

bool power_of_two(uint32_t v) { return v && !(v & (v - 1)); }

DataFormat format_of(const std::string& name) {
  if (name == "bfloat16") return DataFormat::Float16_b;
  if (name == "float32") return DataFormat::Float32;
  if (name == "int32") return DataFormat::Int32;
  if (name == "uint32") return DataFormat::UInt32;
  if (name == "uint16") return DataFormat::UInt16;
  if (name == "uint8") return DataFormat::UInt8;
  if (name == "bfloat8_b") return DataFormat::Bfp8_b;
  return DataFormat::Bfp4_b;
}

void validate_options(const LoadOptions& o) {
  const auto bad = [](const std::string& what) { throw ValidationError("Session.load: " + what); };
  if (!power_of_two(o.host_depth) || o.host_depth > KM_HOST_DEPTH_MAX)
    bad("host_depth " + std::to_string(o.host_depth) + " is not valid: expected a power of two, at most 64");
  if (!power_of_two(o.event_depth) || o.event_depth > KM_EVENT_DEPTH_MAX)
    bad("event_depth " + std::to_string(o.event_depth) + " is not valid: expected a power of two, at most 128");
  if (o.batch < 1) bad("batch must be at least 1");
  if (!(o.deadline_s > 0)) bad("deadline must be positive seconds");
  if (!(o.start_s > 0)) bad("start must be positive seconds");
  if (o.wait_s < 0 || o.idle_s < 0 || o.kernel_idle_s < 0 || o.settle_us < 0)
    bad("wait, idle, kernel_idle and settle_microseconds must not be negative");
  if (o.trace > 4096) bad("trace " + std::to_string(o.trace) + " is too many: at most 4096 sequence numbers per core");
  if (o.thread != "card" && o.thread != "host") bad("thread '" + o.thread + "': expected \"card\" or \"host\"");
}

Defines kernel_defines(const ProgramSpec& p, const std::string& opt) {
  Defines d = p.defines;
  if (!opt.empty()) d["KM_OPT_LEVEL"] = std::to_string(opt_level_number(opt, "kernel"));
  return d;
}

uint32_t cb_bytes(const ProgramSpec& p, uint32_t trace) {
  uint64_t total = 2ull * KM_TOKEN_BYTES * p.depth + std::max<uint32_t>(trace, 1) * KM_TRACE_ENTRY_BYTES;
  for (const BufferSpec& b : p.buffers)
    total += uint64_t(b.page_bytes) * b.pages;
  return uint32_t(std::min<uint64_t>(total, ~0u));
}
} // namespace

namespace {
jit::BuildRequest cross_request(const std::string& path, jit::KernelKind kind, const ProgramSpec& spec,
                                const std::vector<uint32_t>& compile_args, const std::string& opt) {
  jit::BuildRequest r;
  r.source_path = path;
  r.kind = kind;
  r.opt_level = opt_level_number(opt, "kernel");
  for (const auto& [k, v] : kernel_defines(spec, opt))
    r.defines.emplace_back(k, v);
  r.compile_args = compile_args;
  return r;
}
} // namespace

// The program's threads cross-built for the cores' RISC-V targets (an
// estimate of silicon's sizes, jit/cross_build.hpp): KernelSizeError when they
// do not fit the kernel buffer, KernelInstructionError for an instruction the
// cores lack. Cached with the build.
KernelSizes check_cross_build(const ProgramSpec& spec, uint32_t kernel_bytes) {
  const jit::CrossReport report = jit::cross_check(
      cross_request(spec.reader_path, jit::KernelKind::DataMovement, spec, spec.reader_compile_args, spec.opt.reader),
      cross_request(spec.writer_path, jit::KernelKind::DataMovement, spec, spec.writer_compile_args, spec.opt.writer),
      cross_request(spec.compute_path, jit::KernelKind::Compute, spec, spec.compute_compile_args, spec.opt.compute));
  KernelSizes sizes;
  sizes.buffer_bytes = kernel_bytes;
  sizes.total_bytes = report.total_bytes;
  const KernelSizes::Thread* largest = nullptr;
  for (const jit::CrossThreadSize& t : report.threads)
    sizes.threads.push_back({t.thread, t.text_bytes});
  for (const KernelSizes::Thread& t : sizes.threads)
    if (!largest || t.text_bytes > largest->text_bytes) largest = &t;
  if (!report.findings.empty()) {
    std::vector<InstructionFinding> findings;
    std::string message = "Program '" + spec.name +
                          "': the kernels hold instructions the Tensix cores lack (a core "
                          "that meets one stops without a report):";
    for (const jit::InstructionFinding& f : report.findings) {
      findings.push_back({f.thread, f.instruction, f.function, f.file, f.line});
      message += "\n  " + f.thread + " thread: " + f.instruction + " in " + f.function +
                 (f.file.empty() ? std::string() : " at " + f.file + ":" + std::to_string(f.line));
    }
    message += "\n(a / on floats is the usual cause: divide by an integer, multiply by a reciprocal computed on the "
               "host, or use a reciprocal with Newton steps; TESSEL_INSN_CHECK=0 turns this check off)";
    throw KernelInstructionError(message, std::move(findings));
  }
  if (sizes.total_bytes > kernel_bytes)
    throw KernelSizeError("Program '" + spec.name + "': its kernels take " + std::to_string(sizes.total_bytes) +
                              " bytes (an estimate from a RISC-V build), more than the session's kernel buffer of " +
                              std::to_string(kernel_bytes) + " bytes; the largest thread is " + largest->name + " (" +
                              std::to_string(largest->text_bytes) +
                              " bytes). Give the session more with kernel_bytes, or lower the reader and writer "
                              "to Os first and the compute kernel only when that is not enough",
                          sizes);
  return sizes;
}

std::string sizes_line(const KernelSizes& sizes) {
  std::string line = "kernel sizes (estimate):";
  for (size_t i = 0; i < sizes.threads.size(); ++i)
    line += (i ? ", " : " ") + sizes.threads[i].name + " " + std::to_string(sizes.threads[i].text_bytes);
  return line + "; total " + std::to_string(sizes.total_bytes) + " of " + std::to_string(sizes.buffer_bytes) + " bytes";
}

sim::Chip* Session::Impl::chip() const { return device->state().chip.get(); }

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Session::~Session() {
  try {
    close(true);
  } catch (...) {
    // A destructor cannot report; close() would have thrown to a caller.
  }
}

std::unique_ptr<Session> Session::open(const SessionConfig& config) {
  if (config.pll_mhz != 200 && config.pll_mhz != 800 && config.pll_mhz != 1000 && config.pll_mhz != 1750)
    throw ValidationError("Session: pll_mhz " + std::to_string(config.pll_mhz) +
                          " is not one of the runtime's steps: expected 200, 800, 1000 or 1750");
  if (config.kernel_bytes &&
      (config.kernel_bytes % 64 || config.kernel_bytes < 64 || config.kernel_bytes > kMaxKernelBytes))
    throw ValidationError("Session: kernel_bytes " + std::to_string(config.kernel_bytes) +
                          " is not valid: expected a multiple of 64 from 64 to 1,531,712");
  if (!(config.grid_timeout_s > 0)) throw ValidationError("Session: grid_timeout must be positive seconds");
  if (config.device && config.kernel_bytes)
    throw ValidationError("Session: kernel_bytes is set only when the session opens the device (device= was given)");
  if (config.device && config.policy)
    throw ValidationError("Session: policy is set only when the session opens the device (device= was given: it "
                          "runs under its own policy, '" +
                          config.device->policy() + "'; set the policy on that device instead)");
  if (config.card >= 0) {
    if (const char* visible = std::getenv("TT_VISIBLE_DEVICES");
        visible && *visible && std::string(visible) != std::to_string(config.card))
      throw ValidationError("Session: card=" + std::to_string(config.card) + " but TT_VISIBLE_DEVICES already names " +
                            visible);
    hold_card(config.card);
  }
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->kernel_bytes = config.kernel_bytes ? config.kernel_bytes : kDefaultKernelBytes;
  if (config.device) {
    if (!config.device->is_open()) throw ValidationError("Session: the device given is closed");
    impl->device = config.device;
  } else {
    DeviceConfig dc;
    dc.arch = "blackhole";
    dc.policy = config.policy.value_or("deterministic");
    impl->device = Device::open(dc);
    impl->owns_device = true;
  }
  std::unique_ptr<Session> session(new Session(std::move(impl)));
  Impl& s = *session->impl_;
  const CoreCoord grid = s.device->grid();
  s.log("opened " + (config.card >= 0 ? "card " + std::to_string(config.card) : std::string("a card of its own")) +
        ": " + s.device->arch_name() + ", " + std::to_string(grid.x) + " x " + std::to_string(grid.y) +
        " Tensix cores, as a 1 x 1 mesh in slow dispatch, program cache off");
  s.log("X280 clock set to " + std::to_string(config.pll_mhz) + " MHz");
  const auto [kernel, left] = session->l1();
  s.log("kernel buffer " + std::to_string(kernel) + " bytes, L1 left " + std::to_string(left) + " bytes per core");
  return session;
}

Device& Session::device() { return *impl_->device; }
std::shared_ptr<Device> Session::device_ptr() { return impl_->device; }
CoreCoord Session::grid() const { return impl_->device->grid(); }
uint32_t Session::pll_mhz() const { return impl_->config.pll_mhz; }
void Session::log(const std::string& line) const { impl_->log(line); }
void Session::set_log(std::function<void(const std::string&)> log) { impl_->config.log = std::move(log); }
bool Session::closed() const { return impl_->closed; }
Run* Session::run() { return impl_->run.get(); }
std::shared_ptr<Run> Session::run_ptr() { return impl_->run; }

std::pair<uint32_t, uint32_t> Session::l1() const { return {impl_->kernel_bytes, kL1Budget - impl_->kernel_bytes}; }

Run& Session::load(const ProgramSpec& spec, const LoadOptions& options) {
  Impl& s = *impl_;
  if (s.closed) throw ValidationError("Session.load: the session is closed");
  if (s.run && s.run->impl().card_lost)
    throw DispatchError("Session.load: the grid of the run loaded before did not return (GridTimeout): this card "
                        "cannot load again; open a new Session");
  spec.validate();
  validate_options(options);
  const CoreCoord grid = s.device->grid();
  const uint32_t cores = grid.x * grid.y;
  // L1: the program's circular buffers must fit what the kernel buffer leaves.
  const uint32_t l1_left = std::min<uint32_t>(l1().second, s.device->l1_size() - 0x4000);
  if (cb_bytes(spec, options.trace) > l1_left)
    throw ProgramError("Program '" + spec.name + "': its circular buffers take " +
                       std::to_string(cb_bytes(spec, options.trace)) + " bytes per core, but " +
                       std::to_string(l1_left) + " bytes of L1 are left beside the kernel buffer of " +
                       std::to_string(s.kernel_bytes) + " bytes");
  // Everything about the request is checked: now the loaded run goes.
  if (s.run && !s.run->stopped()) s.run->abort();
  s.run.reset();

  auto r = std::make_unique<Run::Impl>();
  r->session = &s;
  r->options = options;
  r->depth = spec.depth;
  r->cores = cores;
  r->grid_x = grid.x;
  r->program = std::make_unique<Program>();
  Program& p = *r->program;
  const CoreRangeSet all(CoreRange(CoreCoord{0, 0}, CoreCoord{grid.x - 1, grid.y - 1}));
  KernelHandle reader, writer, compute;
  try {
    DataMovementConfig rc{DataMovementProcessor::RISCV_1,
                          NOC::RISCV_1_default,
                          spec.reader_compile_args,
                          kernel_defines(spec, spec.opt.reader),
                          {},
                          opt_level_number(spec.opt.reader, "reader")};
    DataMovementConfig wc{DataMovementProcessor::RISCV_0,
                          NOC::RISCV_0_default,
                          spec.writer_compile_args,
                          kernel_defines(spec, spec.opt.writer),
                          {},
                          opt_level_number(spec.opt.writer, "writer")};
    ComputeConfig cc = spec.compute;
    cc.compile_args = spec.compute_compile_args;
    cc.defines = kernel_defines(spec, spec.opt.compute);
    cc.opt_level = opt_level_number(spec.opt.compute, "compute");
    reader = p.add_kernel(spec.reader_path, all, rc);
    writer = p.add_kernel(spec.writer_path, all, wc);
    compute = p.add_kernel(spec.compute_path, all, cc);
    for (const BufferSpec& b : spec.buffers) {
      CircularBufferConfig cb(b.page_bytes * b.pages, {{uint8_t(b.index), format_of(b.format)}});
      cb.set_page_size(uint8_t(b.index), b.page_bytes);
      p.add_circular_buffer(all, cb);
    }
    for (uint32_t index : {KM_CB_TOKEN_COMPUTE, KM_CB_TOKEN_WRITER}) {
      CircularBufferConfig cb(KM_TOKEN_BYTES * spec.depth, {{uint8_t(index), DataFormat::UInt32}});
      cb.set_page_size(uint8_t(index), KM_TOKEN_BYTES);
      p.add_circular_buffer(all, cb);
    }
    CircularBufferConfig trace_cb(std::max<uint32_t>(options.trace, 1) * KM_TRACE_ENTRY_BYTES,
                                  {{uint8_t(KM_CB_TRACE), DataFormat::UInt32}});
    trace_cb.set_page_size(uint8_t(KM_CB_TRACE), KM_TRACE_ENTRY_BYTES);
    p.add_circular_buffer(all, trace_cb);
    for (uint32_t y = 0; y < grid.y; ++y)
      for (uint32_t x = 0; x < grid.x; ++x) {
        const uint32_t index = y * grid.x + x;
        CoreArgs own = spec.args ? spec.args(CoreCoord{x, y}) : CoreArgs{};
        const auto args_for = [&](uint32_t role, const std::vector<uint32_t>& mine) {
          std::vector<uint32_t> a = {role, index, cores, spec.depth};
          a.insert(a.end(), mine.begin(), mine.end());
          return a;
        };
        p.set_runtime_args(reader, CoreRangeSet(CoreCoord{x, y}), args_for(KM_ROLE_READER, own.reader));
        p.set_runtime_args(writer, CoreRangeSet(CoreCoord{x, y}), args_for(KM_ROLE_WRITER, own.writer));
        p.set_runtime_args(compute, CoreRangeSet(CoreCoord{x, y}), args_for(KM_ROLE_COMPUTE, own.compute));
      }
    s.device->command_queue().compile_program(p);
    r->sizes = check_cross_build(spec, s.kernel_bytes);
    // The X280 threads build here too, before anything runs.
    if (options.thread == "card")
      for (const X280ThreadSpec& t : spec.threads)
        r->threads.push_back(X280Thread::build(t, spec.regions));
    r->thread_results.resize(r->threads.size());
  } catch (const DispatchError&) {
    throw;
  } catch (const tessel::ProgramError& e) {
    throw ProgramError(std::string(e.what()));
  } catch (const tessel::ValidationError& e) {
    throw ProgramError("Program '" + spec.name + "': " + e.what());
  }

  sim::Chip& chip = *s.chip();
  r->memory = std::make_unique<CardMemory>();
  DispatcherConfig dc;
  dc.depth = spec.depth;
  dc.host_depth = options.host_depth;
  dc.event_depth = options.event_depth;
  dc.trace = options.trace;
  dc.deadline_s = options.deadline_s;
  dc.wait_s = options.wait_s;
  dc.idle_s = options.idle_s;
  dc.kernel_idle_s = options.kernel_idle_s;
  r->dispatcher = std::make_unique<Dispatcher>(chip, *r->memory, dc);
  // A program with an X280 thread has no upload region: the thread's ring lies there.
  r->memory->upload_bytes = spec.threads.empty() ? KM_UPLOAD_REGION_BYTES : 0u;
  std::vector<X280Thread*> threads;
  for (auto& t : r->threads)
    threads.push_back(t.get());
  r->dispatcher->set_threads(std::move(threads));
  // The control blocks are the runtime's L1: NoC transfers into them are legal.
  chip.memory_map().add(sim::MemoryKind::L1, KM_CONTROL_L1, uint64_t(cores) * KM_CONTROL_BYTES, KM_CONTROL_BYTES,
                        KM_CONTROL_BYTES, cores);
  s.log(sizes_line(r->sizes));
  s.log("launch: program '" + spec.name + "' on " + std::to_string(cores) + " cores, depth " +
        std::to_string(spec.depth) + ", host depth " + std::to_string(options.host_depth) + ", event depth " +
        std::to_string(options.event_depth));
  Run::Impl* rp = r.get();
  std::shared_ptr<Device> device = s.device;
  s.device->state().persistent =
      runtime::DeviceState::PersistentGrid{"the persistent program '" + spec.name + "' of a dispatch Session", {}};
  // The thread keeps what it uses after its run as plain pointers: after a
  // GridTimeout the Run is gone, and its memory and dispatcher are left to it.
  rp->card = std::thread([device, &chip, &d = *rp->dispatcher, mem = rp->memory.get(), &program = *rp->program] {
    runtime::mark_card_thread();
    chip.set_agent(&d);
    try {
      device->command_queue().enqueue_program(program);
      const bool ended = d.exited() || d.aborting();
      d.finish(KM_STATE_DONE, ended ? KM_ERROR_NONE : KM_ERROR_KERNEL,
               ended ? "" : "the persistent kernels returned before EXIT (a kernel_main that does not serve?)");
    } catch (const sim::RunStopped& e) {
      d.finish(KM_STATE_DONE, KM_ERROR_STOPPED, e.what());
    } catch (const tessel::Interrupted& e) { // Ctrl-C stops the runs in progress, the card's too
      d.finish(KM_STATE_DONE, KM_ERROR_STOPPED, e.what());
    } catch (const std::exception& e) {
      d.finish(KM_STATE_DONE, KM_ERROR_KERNEL, e.what());
    }
    d.forget_card_thread();
    chip.set_agent(nullptr);
    mem->finished.store(1, std::memory_order_release);
    unpark(mem->host_park);
  });
  const auto t0 = Clock::now();
  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.start_s));
  CardMemory& m = *r->memory;
  while (!m.ready.load(std::memory_order_acquire) && !m.finished.load(std::memory_order_acquire) &&
         Clock::now() < deadline) {
    m.host_park.parked.store(1);
    if (!m.ready.load() && !m.finished.load()) park(m.host_park, 10000);
    m.host_park.parked.store(0);
  }
  if (!m.ready.load(std::memory_order_acquire)) {
    Run run(std::move(r));
    const bool finished = run.impl().card_finished();
    const ResultBlock result = run.abort();
    throw StartError(
        std::string("Session.load: the dispatcher did not report READY from every core ") +
            (finished ? "(the kernel finished first)" : "within " + std::to_string(options.start_s) + " s") +
            (result.message.empty() ? "" : ": " + result.message),
        result);
  }
  s.log("kernel started: READY from every core (" + std::to_string(cores) + ") in " +
        std::to_string(int(std::chrono::duration<double, std::milli>(Clock::now() - t0).count())) + " ms");
  for (auto& t : r->threads) {
    t->start();
    s.log("X280 thread started on cluster " + std::to_string(t->cluster()));
  }
  if (!spec.threads.empty() && options.thread == "host")
    s.log("X280 threads: thread=\"host\", their host_fallback runs instead");
  s.run = std::make_shared<Run>(std::move(r));
  return *s.run;
}

void Session::close(bool aborting) {
  Impl& s = *impl_;
  if (s.closed) return;
  if (s.run && !s.run->stopped()) {
    if (aborting)
      s.run->abort();
    else
      s.run->stop();
  }
  s.log("runtime closed");
  const bool card_lost = s.run && s.run->impl().card_lost;
  s.run.reset();
  // After a GridTimeout the card's thread may still use the chip: the device
  // stays open (and referenced) until the process exits.
  if (card_lost) new std::shared_ptr<Device>(s.device);
  if (s.owns_device && s.device && !card_lost) s.device->close();
  s.device.reset();
  s.closed = true;
}

} // namespace tessel::dispatch
