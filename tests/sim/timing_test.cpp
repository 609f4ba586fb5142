// The cycle estimate (src/sim/timing*.cpp, docs/timing.md): DRAM and NoC
// transfers cost exactly the documented formula, contention at a DRAM bank,
// waits that move the clock up to the producer's time, compute by fidelity,
// the run report, determinism, the parallel policy, TESSEL_TIMING, and the
// trace's estimated time base.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "ops_kernel.hpp"
#include "tessel/trace_stats.hpp"

namespace tessel::test {
namespace {

// Wormhole's table (docs/timing.md): call 8, NoC issue 16, NoC 32 B/cycle,
// DRAM bank 24 B/cycle, fixed NoC latency 32, DRAM latency 200, 4 per hop.
constexpr uint64_t kCall = 8, kIssue = 16, kFixed = 32, kDram = 200, kHop = 4;

const char* const kMover = R"KERNEL(// timing_mover.cpp: the transfers and waits of the timing tests.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  const uint32_t a = get_arg_val<uint32_t>(1), b = get_arg_val<uint32_t>(2), c = get_arg_val<uint32_t>(3),
                 d = get_arg_val<uint32_t>(4);
  volatile uint32_t* sem = reinterpret_cast<volatile uint32_t*>(uintptr_t(get_semaphore(0)));
  switch (mode) {
  case 1: // d reads of c bytes from DRAM bank a at b into CB 0, a barrier after each
    cb_reserve_back(0, 1);
    for (uint32_t i = 0; i < d; ++i) {
      noc_async_read(get_noc_addr_from_bank_id<true>(a, b), get_write_ptr(0), c);
      noc_async_read_barrier();
    }
    break;
  case 2: // d reads as above with one barrier at the end
    cb_reserve_back(0, 1);
    for (uint32_t i = 0; i < d; ++i) noc_async_read(get_noc_addr_from_bank_id<true>(a, b), get_write_ptr(0), c);
    noc_async_read_barrier();
    break;
  case 3: // increment semaphore 0 of the core at NoC (a, b)
    noc_semaphore_inc(get_noc_addr(a, b, get_semaphore(0)), 1);
    noc_async_atomic_barrier();
    break;
  case 4: // wait for semaphore 0 to reach 1
    noc_semaphore_wait_min(sem, 1);
    break;
  case 5: // produce one page into CB 0, read from DRAM bank a at b (c bytes)
    cb_reserve_back(0, 1);
    noc_async_read(get_noc_addr_from_bank_id<true>(a, b), get_write_ptr(0), c);
    noc_async_read_barrier();
    cb_push_back(0, 1);
    break;
  case 6: // consume one page of CB 0
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
    break;
  default: break;
  }
}
)KERNEL";

const char* const kMatmulReader = R"KERNEL(// timing_reader.cpp: one tile into CBs 0 and 1.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  for (uint32_t cb = 0; cb < 2; ++cb) {
    cb_reserve_back(cb, 1);
    cb_push_back(cb, 1);
  }
}
)KERNEL";

const char* const kMatmulCompute = R"KERNEL(// timing_matmul.cpp: n tile products accumulated in DST 0.
#include "api/compute/common.h"
#include "api/compute/matmul.h"

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  mm_init(0, 1, 16);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  tile_regs_acquire();
  for (uint32_t i = 0; i < n; ++i) matmul_tiles(0, 1, 0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}
)KERNEL";

std::shared_ptr<Device> open_timed(const std::string& arch, uint32_t gx, uint32_t gy,
                                   const std::string& policy = "deterministic") {
  DeviceConfig config;
  config.arch = arch;
  config.grid_x = gx;
  config.grid_y = gy;
  config.policy = policy;
  config.timing = true;
  return Device::open(config);
}

const RiscTiming& find_risc(const TimingReport& r, CoreCoord core, const std::string& risc) {
  for (const RiscTiming& x : r.riscs)
    if (x.core == core && x.risc == risc) return x;
  ADD_FAILURE() << "no " << risc << " of core " << core.str() << " in the report";
  static const RiscTiming none;
  return none;
}

// A program of mover kernels on BRISC (and NCRISC) of `cores`, CB 0 (two
// 4 KiB pages) and semaphore 0 on every core.
struct Mover {
  Program program;
  KernelHandle brisc, ncrisc;
  Mover(const CoreRangeSet& cores) {
    program.add_circular_buffer(cores, one_cb_config(8192, 4096));
    program.add_semaphore(cores, 0);
    brisc = program.add_kernel_from_source(kMover, "timing_mover.cpp", cores,
                                           DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
    ncrisc = program.add_kernel_from_source(kMover, "timing_mover.cpp", cores,
                                            DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_0_default});
  }
};

std::shared_ptr<Buffer> dram_pages(const std::shared_ptr<Device>& device, uint32_t page_bytes) {
  return Buffer::create(device, {uint64_t(page_bytes) * device->dram_banks(), page_bytes, BufferType::DRAM});
}

// Core (0,0)'s BRISC reads one 4 KiB page of `buf` (bank 0); its NCRISC does nothing.
struct OneDramRead : Mover {
  explicit OneDramRead(const Buffer& buf) : Mover(CoreCoord{0, 0}) {
    program.set_runtime_args(brisc, CoreCoord{0, 0}, {1, 0, uint32_t(buf.address()), 4096, 1});
    program.set_runtime_args(ncrisc, CoreCoord{0, 0}, {0, 0, 0, 0, 0});
  }
};

TEST(TimingTest, OneDramReadCostsTheDocumentedFormula) {
  auto device = open_timed("wormhole_b0", 2, 2);
  auto buf = dram_pages(device, 4096);
  OneDramRead m(*buf);
  device->command_queue().enqueue_program(m.program);
  const TimingReport r = device->last_run_timing();
  // Core (0,0) is NoC (1,1), bank 0 NoC (0,0), the NoC torus 3 x 12: on
  // NoC 0 the request takes 2 + 11 hops, the data 1 + 1 back.
  const uint64_t start = kCall + kCall + kIssue; // cb_reserve_back, then the read's issue
  const uint64_t bytes = (4096 + 23) / 24;       // the bank's 24 B/cycle (the NoC's 32 is faster)
  const uint64_t landed = start + bytes + kFixed + kDram + 15 * kHop;
  const RiscTiming& b = find_risc(r, {0, 0}, "BRISC");
  EXPECT_EQ(b.total_cycles(), landed);
  EXPECT_EQ(b.busy_cycles, start + kCall); // and the barrier's call; the rest is waiting for the data
  EXPECT_EQ(r.clock_mhz, 1000);
  EXPECT_EQ(r.kernel_cycles, landed);
  EXPECT_EQ(r.dispatch_cycles, 1050u); // tt-metal's 1-core null program on Wormhole: 1.05 us
  EXPECT_EQ(r.device_cycles, r.kernel_cycles + r.dispatch_cycles);
  EXPECT_EQ(r.runs, 1u);
}

TEST(TimingTest, SemaphoreWriteLandsAfterItsHops) {
  // (0,0) increments a semaphore of core (x,0) (NoC (x+1,1)), which waits for
  // it: the waiter's wait ends when the increment lands, h hops away.
  for (uint32_t x : {1u, 3u}) {
    auto device = open_timed("wormhole_b0", 4, 1);
    Mover m(CoreRange({0, 0}, {3, 0}));
    const CoreCoord dst = device->worker_core_from_logical_core({x, 0});
    m.program.set_runtime_args(m.brisc, CoreRange({0, 0}, {3, 0}), {0, 0, 0, 0, 0});
    m.program.set_runtime_args(m.brisc, CoreCoord{0, 0}, {3, dst.x, dst.y, 0, 0});
    m.program.set_runtime_args(m.brisc, CoreCoord{x, 0}, {4, 0, 0, 0, 0});
    m.program.set_runtime_args(m.ncrisc, CoreRange({0, 0}, {3, 0}), {0, 0, 0, 0, 0});
    device->command_queue().enqueue_program(m.program);
    const TimingReport r = device->last_run_timing();
    const uint64_t landed = kCall + kIssue + 1 /* 4 bytes at 32 B/cycle */ + kFixed + x * kHop;
    const RiscTiming& w = find_risc(r, {x, 0}, "BRISC");
    EXPECT_EQ(w.total_cycles(), landed) << "hops " << x;
    EXPECT_EQ(w.busy_cycles, kCall) << "hops " << x;
  }
}

TEST(TimingTest, TwoCoresReadingOneBankTakeAboutTwiceOne) {
  auto one = open_timed("wormhole_b0", 2, 1), two = open_timed("wormhole_b0", 2, 1);
  auto buf1 = dram_pages(one, 4096), buf2 = dram_pages(two, 4096);
  uint64_t cycles[2];
  for (int n = 0; n < 2; ++n) {
    auto& device = n ? two : one;
    const uint32_t addr = uint32_t((n ? buf2 : buf1)->address());
    Mover m(CoreRange({0, 0}, {1, 0}));
    m.program.set_runtime_args(m.brisc, CoreRange({0, 0}, {1, 0}), {0, 0, 0, 0, 0});
    m.program.set_runtime_args(m.ncrisc, CoreRange({0, 0}, {1, 0}), {0, 0, 0, 0, 0});
    m.program.set_runtime_args(m.brisc, CoreCoord{0, 0}, {2, 3, addr, 4096, 32});
    if (n) m.program.set_runtime_args(m.brisc, CoreCoord{1, 0}, {2, 3, addr, 4096, 32});
    device->command_queue().enqueue_program(m.program);
    cycles[n] = device->last_run_timing().kernel_cycles;
  }
  // 32 x 4 KiB through one 24 B/cycle bank: 5462 cycles; twice that for two.
  EXPECT_GT(cycles[0], 32u * 4096 / 24);
  const double ratio = double(cycles[1]) / double(cycles[0]);
  EXPECT_GT(ratio, 1.8) << cycles[0] << " vs " << cycles[1];
  EXPECT_LT(ratio, 2.1) << cycles[0] << " vs " << cycles[1];
}

TEST(TimingTest, ConsumerWaitEndsAtTheProducersPush) {
  auto device = open_timed("wormhole_b0", 2, 2);
  auto buf = dram_pages(device, 4096);
  Mover m(CoreCoord{0, 0});
  m.program.set_runtime_args(m.brisc, CoreCoord{0, 0}, {5, 0, uint32_t(buf->address()), 4096, 0});
  m.program.set_runtime_args(m.ncrisc, CoreCoord{0, 0}, {6, 0, 0, 0, 0});
  device->command_queue().enqueue_program(m.program);
  const TimingReport r = device->last_run_timing();
  const uint64_t landed = kCall + kCall + kIssue + (4096 + 23) / 24 + kFixed + kDram + 15 * kHop;
  const uint64_t pushed = landed + kCall; // the barrier ends at `landed`; cb_push_back
  const RiscTiming& producer = find_risc(r, {0, 0}, "BRISC");
  const RiscTiming& consumer = find_risc(r, {0, 0}, "NCRISC");
  EXPECT_EQ(producer.total_cycles(), pushed);
  EXPECT_EQ(consumer.total_cycles(), pushed + kCall); // then cb_pop_front
  EXPECT_EQ(consumer.wait_cycles, pushed - kCall);    // all but its own two calls
}

uint64_t matmul_busy(MathFidelity fidelity, uint32_t n) {
  auto device = open_timed("blackhole", 1, 1);
  Program p;
  const CoreCoord core{0, 0};
  CircularBufferConfig cbs(3 * 2048,
                           {{0, DataFormat::Float16_b}, {1, DataFormat::Float16_b}, {16, DataFormat::Float16_b}});
  for (uint8_t i : {0, 1, 16})
    cbs.set_page_size(i, 2048);
  p.add_circular_buffer(core, cbs);
  p.add_kernel_from_source(kMatmulReader, "timing_reader.cpp", core, DataMovementConfig{});
  ComputeConfig cc;
  cc.math_fidelity = fidelity;
  KernelHandle mm = p.add_kernel_from_source(kMatmulCompute, "timing_matmul.cpp", core, cc);
  p.set_runtime_args(mm, core, {n});
  device->command_queue().enqueue_program(p);
  return find_risc(device->last_run_timing(), core, "COMPUTE").busy_cycles;
}

TEST(TimingTest, MatmulCyclesScaleWithFidelityPhases) {
  // 16 cycles per 32x32x32 tile product per fidelity phase (4096 flops/cycle).
  const uint64_t lofi = matmul_busy(MathFidelity::LoFi, 64), hifi2 = matmul_busy(MathFidelity::HiFi2, 64),
                 hifi4 = matmul_busy(MathFidelity::HiFi4, 64);
  EXPECT_EQ(hifi2 - lofi, 64u * 16);
  EXPECT_EQ(hifi4 - lofi, 64u * 16 * 3);
  EXPECT_EQ(matmul_busy(MathFidelity::LoFi, 128) - lofi, 64u * (16 + kCall));
}

const char* const kSfpuCompute = R"KERNEL(// timing_sfpu.cpp: n calls of one SFPU op on DST 0.
#include "compute_kernel_api.h"
#include "compute_kernel_api/eltwise_unary/comp.h"
#include "compute_kernel_api/eltwise_unary/erf_erfc.h"
#include "compute_kernel_api/eltwise_unary/where.h"
#include "compute_kernel_api/eltwise_binary_sfpu.h"

void kernel_main() {
  const uint32_t op = get_arg_val<uint32_t>(0), n = get_arg_val<uint32_t>(1);
  init_sfpu(0, 16);
  tile_regs_acquire();
  if (op == 0) { eqz_tile_init(); for (uint32_t i = 0; i < n; ++i) eqz_tile(0); }
  if (op == 1) { erf_tile_init(); for (uint32_t i = 0; i < n; ++i) erf_tile(0); }
  if (op == 2) { where_tile_init(); for (uint32_t i = 0; i < n; ++i) where_tile<DataFormat::Float16_b>(0, 1, 2, 0); }
  if (op == 3) { power_binary_tile_init(); for (uint32_t i = 0; i < n; ++i) power_binary_tile(0, 1, 0); }
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
}
)KERNEL";

uint64_t sfpu_busy(uint32_t op, uint32_t n) {
  auto device = open_timed("wormhole_b0", 1, 1);
  Program p;
  const CoreCoord core{0, 0};
  CircularBufferConfig cbs(2 * 2048, {{0, DataFormat::Float16_b}, {16, DataFormat::Float16_b}});
  for (uint8_t i : {0, 16})
    cbs.set_page_size(i, 2048);
  p.add_circular_buffer(core, cbs);
  KernelHandle k = p.add_kernel_from_source(kSfpuCompute, "timing_sfpu.cpp", core, ComputeConfig{});
  p.set_runtime_args(k, core, {op, n});
  device->command_queue().enqueue_program(p);
  return find_risc(device->last_run_timing(), core, "COMPUTE").busy_cycles;
}

TEST(TimingTest, SfpuOpsCostTheirTableEntry) {
  // sfpu simple 64 cycles, sfpu complex 512 (docs/timing.md), plus the call.
  EXPECT_EQ(sfpu_busy(0, 64) - sfpu_busy(0, 32), 32u * (64 + kCall));  // eqz_tile: simple
  EXPECT_EQ(sfpu_busy(1, 64) - sfpu_busy(1, 32), 32u * (512 + kCall)); // erf_tile: complex
  EXPECT_EQ(sfpu_busy(2, 64) - sfpu_busy(2, 32), 32u * (64 + kCall));  // where_tile: simple
  EXPECT_EQ(sfpu_busy(3, 64) - sfpu_busy(3, 32), 32u * (512 + kCall)); // power_binary_tile: complex
}

TimingReport contention_run(const std::string& policy) {
  auto device = open_timed("wormhole_b0", 4, 1, policy);
  auto buf = dram_pages(device, 4096);
  Mover m(CoreRange({0, 0}, {3, 0}));
  m.program.set_runtime_args(m.brisc, CoreRange({0, 0}, {3, 0}), {2, 5, uint32_t(buf->address()), 4096, 16});
  m.program.set_runtime_args(m.ncrisc, CoreRange({0, 0}, {3, 0}), {0, 0, 0, 0, 0});
  device->command_queue().enqueue_program(m.program);
  return device->last_run_timing();
}

TEST(TimingTest, DeterministicRunsGiveIdenticalEstimates) {
  const TimingReport a = contention_run("deterministic"), b = contention_run("deterministic");
  EXPECT_EQ(a.kernel_cycles, b.kernel_cycles);
  ASSERT_EQ(a.riscs.size(), b.riscs.size());
  for (size_t i = 0; i < a.riscs.size(); ++i) {
    EXPECT_EQ(a.riscs[i].busy_cycles, b.riscs[i].busy_cycles) << i;
    EXPECT_EQ(a.riscs[i].wait_cycles, b.riscs[i].wait_cycles) << i;
  }
  // Four cores on one bank: about four times one core's 16 pages.
  EXPECT_GT(a.kernel_cycles, 4u * 16 * 4096 / 24);
  EXPECT_LT(a.kernel_cycles, 4u * 16 * 4096 / 24 + 2000);
}

TEST(TimingTest, RepeatedRunsOnOneDeviceGiveIdenticalEstimates) {
  // Each run ends mid-bucket (10923+ cycles of contention); the next must
  // not find the last one's bookings, nor start at a different phase.
  auto device = open_timed("wormhole_b0", 4, 1);
  auto buf = dram_pages(device, 4096);
  Mover m(CoreRange({0, 0}, {3, 0}));
  m.program.set_runtime_args(m.brisc, CoreRange({0, 0}, {3, 0}), {2, 5, uint32_t(buf->address()), 4096, 16});
  m.program.set_runtime_args(m.ncrisc, CoreRange({0, 0}, {3, 0}), {0, 0, 0, 0, 0});
  device->command_queue().enqueue_program(m.program);
  const TimingReport first = device->last_run_timing();
  for (int run = 1; run < 6; ++run) {
    device->command_queue().enqueue_program(m.program);
    const TimingReport r = device->last_run_timing();
    EXPECT_EQ(r.kernel_cycles, first.kernel_cycles) << "run " << run;
    ASSERT_EQ(r.riscs.size(), first.riscs.size());
    for (size_t i = 0; i < r.riscs.size(); ++i) {
      EXPECT_EQ(r.riscs[i].busy_cycles, first.riscs[i].busy_cycles) << "run " << run << ", row " << i;
      EXPECT_EQ(r.riscs[i].wait_cycles, first.riscs[i].wait_cycles) << "run " << run << ", row " << i;
    }
  }
}

TEST(TimingTest, ParallelPolicyEstimatesWithinATolerance) {
  const TimingReport d = contention_run("deterministic");
  for (int i = 0; i < 3; ++i) {
    const TimingReport p = contention_run("parallel:2");
    EXPECT_NEAR(double(p.kernel_cycles), double(d.kernel_cycles), 0.1 * double(d.kernel_cycles));
    EXPECT_EQ(p.riscs.size(), d.riscs.size());
  }
}

TEST(TimingTest, ReportRowsAddUpAndKernelTimeIsTheLatestRisc) {
  const TimingReport r = contention_run("deterministic");
  uint64_t latest = 0;
  for (const RiscTiming& x : r.riscs)
    latest = std::max(latest, x.total_cycles());
  EXPECT_EQ(r.kernel_cycles, latest);
  EXPECT_EQ(r.riscs.size(), 8u); // BRISC and NCRISC of 4 cores
  EXPECT_EQ(r.dispatch_cycles, 1050u + 3 * 2539 / 1000);
}

TEST(TimingTest, OffByDefaultAndTheReportSaysSo) {
  auto device = open_device("wormhole_b0", 1, 1);
  EXPECT_FALSE(device->timing_enabled());
  const std::string m = error_from<ValidationError>([&] { device->last_run_timing(); });
  EXPECT_NE(m.find("does not estimate time"), std::string::npos) << m;
  auto timed = open_timed("wormhole_b0", 1, 1);
  EXPECT_TRUE(timed->timing_enabled());
  EXPECT_EQ(timed->last_run_timing().runs, 0u);
  EXPECT_EQ(timed->last_run_timing().clock_mhz, 1000.0); // the clock a report counts, before any run too
}

// A run that stops (here a deadlock) reports its estimate up to the stop,
// marked stopped, not the run before's; the next run is whole again.
TEST(TimingTest, AStoppedRunReportsItsEstimateUpToTheStop) {
  auto device = open_timed("wormhole_b0", 1, 1);
  auto buf = dram_pages(device, 4096);
  OneDramRead m(*buf);
  device->command_queue().enqueue_program(m.program);
  const TimingReport whole = device->last_run_timing();
  EXPECT_FALSE(whole.stopped);
  Program stuck;
  const CoreCoord a{0, 0};
  stuck.add_semaphore(CoreRange(a, a), 0);
  stuck.add_kernel_from_source(R"(#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  noc_async_read_barrier(); // two calls, charged: then a wait that never ends
  noc_async_write_barrier();
  noc_semaphore_wait(reinterpret_cast<volatile uint32_t*>(get_semaphore(0)), 1);
}
)",
                               "stuck.cpp", a, DataMovementConfig{});
  EXPECT_THROW(device->command_queue().enqueue_program(stuck), DeadlockError);
  const TimingReport r = device->last_run_timing();
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.runs, whole.runs + 1);
  EXPECT_GT(r.kernel_cycles, 0u);
  EXPECT_NE(format_timing_report({r, 1, r.device_cycles}).find("up to where it stopped"), std::string::npos);
  device->command_queue().enqueue_program(m.program);
  EXPECT_FALSE(device->last_run_timing().stopped);
  EXPECT_EQ(device->last_run_timing().device_cycles, whole.device_cycles);
}

TEST(TimingTest, EnvironmentTakesOnlyZeroOrOne) {
  const char* saved = std::getenv("TESSEL_TIMING");
  const std::string keep = saved ? saved : "";
  setenv("TESSEL_TIMING", "yes", 1);
  const std::string m = error_from<ValidationError>([] { open_device("wormhole_b0", 1, 1); });
  EXPECT_EQ(m, "Device::open: TESSEL_TIMING='yes' is not valid: expected 0 (off) or 1 (estimate cycles, "
               "docs/timing.md)");
  setenv("TESSEL_TIMING", "1", 1);
  EXPECT_TRUE(open_device("wormhole_b0", 1, 1)->timing_enabled());
  setenv("TESSEL_TIMING", "0", 1);
  EXPECT_FALSE(open_device("wormhole_b0", 1, 1)->timing_enabled());
  if (saved)
    setenv("TESSEL_TIMING", keep.c_str(), 1);
  else
    unsetenv("TESSEL_TIMING");
}

// On each arch's clock: Wormhole's 1 GHz and Blackhole's 1.35 GHz (a cycle
// of 0.741 ns); either way a cycle is a nanosecond of the file.
class TimingTraceTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(TimingTraceTest, TraceIsStampedInEstimatedTimeAndReadBackInCycles) {
  const auto [arch, cycle_ns] = GetParam();
  const std::string path = std::filesystem::temp_directory_path().string() + "/tessel_timing_test_" +
                           std::to_string(getpid()) + "_" + arch + ".json";
  uint64_t total = 0;
  {
    DeviceConfig config;
    config.arch = arch;
    config.grid_x = 2, config.grid_y = 2;
    config.timing = true;
    config.trace_path = path;
    auto device = Device::open(config);
    auto buf = dram_pages(device, 4096);
    OneDramRead m(*buf);
    device->command_queue().enqueue_program(m.program);
    total = find_risc(device->last_run_timing(), {0, 0}, "BRISC").total_cycles();
    device->close();
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(
      text.str().find(std::string("\"time_base\":\"estimated\",\"ns_per_step\":1,\"cycle_ns\":") + cycle_ns + ","),
      std::string::npos);
  EXPECT_NE(text.str().find(std::string("shown as 1 ns each; a cycle is ") + cycle_ns + " ns"), std::string::npos);
  const TraceStats s = read_trace_stats(path);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].time_base, "estimated");
  bool found = false;
  for (const TraceRiscStats& r : s.riscs)
    if (r.core == CoreCoord{0, 0} && r.risc == "BRISC") {
      found = true;
      EXPECT_EQ(r.kernel_time, total);
      EXPECT_LE(r.wait_time, r.kernel_time);
    }
  EXPECT_TRUE(found);
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Archs, TimingTraceTest,
                         ::testing::Values(std::pair<std::string, std::string>{"wormhole_b0", "1.000"},
                                           std::pair<std::string, std::string>{"blackhole", "0.741"}),
                         [](const auto& info) { return info.param.first; });

} // namespace
} // namespace tessel::test
