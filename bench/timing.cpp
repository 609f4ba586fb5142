// timing: the cycle estimate (docs/timing.md) set against published silicon
// figures. Tiny programs run on timed devices of both architectures:
//  - matmul: one core, one DST block of 8 tiles (matmul_block 4 x 2 x 1)
//    accumulated many times, at each math fidelity -> tile products per
//    second vs the matrix engine's 4096 flops/cycle over the fidelity phases
//    (tt-metal tech report "Matrix Engine");
//  - dram: every core streams pages from every DRAM bank -> chip GB/s vs the
//    card's (Wormhole n150 288 GB/s, Blackhole p150 512 GB/s);
//  - noc: one core writes pages to its neighbour -> B/cycle vs the NoC
//    interface width (32 B/cycle Wormhole, 64 B/cycle Blackhole);
//  - null: empty kernels on 1 core (BRISC) and on every RISC of every core
//    -> us vs tt-metal's null-program dispatch (perf.md §1.4).
// Each figure is printed with the published one and ours / theirs. These are
// estimates of the model against its own sources: the dispatch figures are
// fitted to the null-program numbers, so their ratio is 1 by construction.
#include <string>

#include "bench.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {

const char* const kMover = R"KERNEL(// timing_bench_mover.cpp: streams for the timing benchmark.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t mode = get_arg_val<uint32_t>(0);
  const uint32_t a = get_arg_val<uint32_t>(1), b = get_arg_val<uint32_t>(2), c = get_arg_val<uint32_t>(3),
                 d = get_arg_val<uint32_t>(4), e = get_arg_val<uint32_t>(5);
  if (mode == 1) { // d reads of c bytes at address b, from banks a, a+1, ... (of e), a barrier every 8
    cb_reserve_back(0, 1);
    for (uint32_t i = 0; i < d; ++i) {
      noc_async_read(get_noc_addr_from_bank_id<true>((a + i) % e, b), get_write_ptr(0), c);
      if (i % 8 == 7) noc_async_read_barrier();
    }
    noc_async_read_barrier();
  } else if (mode == 2) { // d writes of c bytes to CB 0 of the core at NoC (a, b), a barrier every 8
    cb_reserve_back(0, 1);
    const uint32_t l1 = get_write_ptr(0);
    for (uint32_t i = 0; i < d; ++i) {
      noc_async_write(l1, get_noc_addr(a, b, l1), c);
      if (i % 8 == 7) noc_async_write_barrier();
    }
    noc_async_write_barrier();
  }
}
)KERNEL";

const char* const kNull = R"KERNEL(// timing_bench_null.cpp
void kernel_main() {}
)KERNEL";

const char* const kReader = R"KERNEL(// timing_bench_reader.cpp: the matmul block's operands (2 tiles of in0, 4 of in1).
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  cb_reserve_back(0, 2);
  cb_push_back(0, 2);
  cb_reserve_back(1, 4);
  cb_push_back(1, 4);
}
)KERNEL";

const char* const kMatmul = R"KERNEL(// timing_bench_matmul.cpp: n matmul_block calls (ct 4, rt 2, kt 1) into DST 0..7.
#include "api/compute/common.h"
#include "api/compute/matmul.h"

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  mm_block_init(0, 1, 16, 0, 4, 2, 1);
  cb_wait_front(0, 2);
  cb_wait_front(1, 4);
  tile_regs_acquire();
  for (uint32_t i = 0; i < n; ++i) matmul_block(0, 1, 0, 0, 0, 0, 4, 2, 1);
  tile_regs_commit();
  tile_regs_wait();
  tile_regs_release();
  cb_pop_front(0, 2);
  cb_pop_front(1, 4);
}
)KERNEL";

std::shared_ptr<Device> open_timed(const std::string& arch, uint32_t gx = 0, uint32_t gy = 0) {
  DeviceConfig config;
  config.arch = arch;
  config.grid_x = gx;
  config.grid_y = gy;
  config.timing = true;
  return Device::open(config);
}

std::string short_name(const std::string& arch) { return arch == "wormhole_b0" ? "wormhole" : "blackhole"; }

void compare(const std::string& name, double ours, double theirs, const char* unit) {
  figure(name, ours, unit);
  figure(name + "_published", theirs, unit);
  figure(name + "_ratio", ours / theirs, "x");
}

void matmul(const std::string& arch) {
  const struct {
    MathFidelity fidelity;
    const char* name;
    uint32_t phases;
  } kFidelities[] = {{MathFidelity::LoFi, "lofi", 1},
                     {MathFidelity::HiFi2, "hifi2", 2},
                     {MathFidelity::HiFi3, "hifi3", 3},
                     {MathFidelity::HiFi4, "hifi4", 4}};
  for (const auto& f : kFidelities) {
    auto device = open_timed(arch, 1, 1);
    const CoreCoord core{0, 0};
    Program p;
    CircularBufferConfig cbs(10 * 2048,
                             {{0, DataFormat::Float16_b}, {1, DataFormat::Float16_b}, {16, DataFormat::Float16_b}});
    for (uint8_t i : {0, 1, 16})
      cbs.set_page_size(i, 2048);
    p.add_circular_buffer(core, cbs);
    p.add_kernel_from_source(kReader, "timing_bench_reader.cpp", core, DataMovementConfig{});
    ComputeConfig cc;
    cc.math_fidelity = f.fidelity;
    KernelHandle mm = p.add_kernel_from_source(kMatmul, "timing_bench_matmul.cpp", core, cc);
    const uint32_t calls = 512;
    p.set_runtime_args(mm, core, {calls});
    device->command_queue().enqueue_program(p);
    uint64_t busy = 0;
    for (const RiscTiming& r : device->last_run_timing().riscs)
      if (r.risc == "COMPUTE") busy = r.busy_cycles;
    const double hz = device->clock_mhz() * 1e6;
    const double ours = double(calls) * 8 / (double(busy) / hz);
    const double theirs = hz * 4096.0 / (2.0 * 32 * 32 * 32 * f.phases); // 4096 flops/cycle / phases
    compare("timing_" + short_name(arch) + "_matmul_" + f.name + "_tiles_per_s_per_core", ours, theirs, "tiles/s");
  }
}

void dram(const std::string& arch, double published_gbs) {
  auto device = open_timed(arch);
  const CoreCoord grid = device->grid();
  const uint32_t banks = device->dram_banks(), page = 8192, reads = 64;
  auto buf = Buffer::create(device, {uint64_t(page) * banks, page, BufferType::DRAM});
  const CoreRange all({0, 0}, {grid.x - 1, grid.y - 1});
  Program p;
  CircularBufferConfig cb(page, {{0, DataFormat::Float16_b}});
  cb.set_page_size(0, page);
  p.add_circular_buffer(all, cb);
  KernelHandle k = p.add_kernel_from_source(kMover, "timing_bench_mover.cpp", all, DataMovementConfig{});
  for (uint32_t y = 0; y < grid.y; ++y)
    for (uint32_t x = 0; x < grid.x; ++x)
      p.set_runtime_args(k, CoreCoord{x, y},
                         {1, (y * grid.x + x) % banks, uint32_t(buf->address()), page, reads, banks});
  device->command_queue().enqueue_program(p);
  const TimingReport r = device->last_run_timing();
  const double bytes = double(page) * reads * grid.x * grid.y;
  const double ours = bytes / (double(r.kernel_cycles) / (device->clock_mhz() * 1e6)) / 1e9;
  compare("timing_" + short_name(arch) + "_dram_read_gb_per_s_chip", ours, published_gbs, "GB/s");
}

void noc(const std::string& arch, double published_bytes_per_cycle) {
  auto device = open_timed(arch, 2, 1);
  const uint32_t page = 8192, writes = 256;
  const CoreRange both({0, 0}, {1, 0});
  Program p;
  CircularBufferConfig cb(page, {{0, DataFormat::Float16_b}});
  cb.set_page_size(0, page);
  p.add_circular_buffer(both, cb);
  KernelHandle k = p.add_kernel_from_source(kMover, "timing_bench_mover.cpp", both, DataMovementConfig{});
  const CoreCoord to = device->worker_core_from_logical_core({1, 0});
  p.set_runtime_args(k, CoreCoord{0, 0}, {2, to.x, to.y, page, writes, 0});
  p.set_runtime_args(k, CoreCoord{1, 0}, {0, 0, 0, 0, 0, 0});
  device->command_queue().enqueue_program(p);
  const double ours = double(page) * writes / double(device->last_run_timing().kernel_cycles);
  compare("timing_" + short_name(arch) + "_noc_write_bytes_per_cycle_link", ours, published_bytes_per_cycle, "B/cycle");
}

void null_programs(const std::string& arch, double one_core_us, double all_cores_us) {
  auto device = open_timed(arch);
  const CoreCoord grid = device->grid();
  {
    Program p;
    p.add_kernel_from_source(kNull, "timing_bench_null.cpp", CoreCoord{0, 0}, DataMovementConfig{});
    device->command_queue().enqueue_program(p);
    compare("timing_" + short_name(arch) + "_null_program_1_core_us", device->last_run_timing().device_us(),
            one_core_us, "us");
  }
  {
    Program p;
    const CoreRange all({0, 0}, {grid.x - 1, grid.y - 1});
    p.add_kernel_from_source(kNull, "timing_bench_null.cpp", all,
                             DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
    p.add_kernel_from_source(kNull, "timing_bench_null.cpp", all,
                             DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default});
    p.add_kernel_from_source(kNull, "timing_bench_null.cpp", all, ComputeConfig{});
    device->command_queue().enqueue_program(p);
    compare("timing_" + short_name(arch) + "_null_program_all_cores_us", device->last_run_timing().device_us(),
            all_cores_us, "us");
  }
}

} // namespace

void run_timing() {
  for (const std::string arch : {"wormhole_b0", "blackhole"}) {
    const bool wh = arch == "wormhole_b0";
    matmul(arch);
    dram(arch, wh ? 288 : 512);
    noc(arch, wh ? 32 : 64);
    null_programs(arch, wh ? 1.05 : 0.92, wh ? 1.21 : 0.94);
  }
}

} // namespace tessel::bench
