// fabric: the fabric between simulated chips (docs/multichip.md).
//  - Its cycle estimate against published Ethernet figures: one chip streams
//    packets of TT-Fabric's default payload (4352 B) to its neighbour ->
//    GB/s per link vs 12.5 (Wormhole, 100 Gb/s) / 50 (Blackhole, 400 Gb/s
//    per Ethernet tile); one packet crosses 7 hops of a 1x8 line -> ns per
//    hop vs Wormhole's ~650 ns (tt-metal tech_reports/EthernetMultichip).
//  - Host cost: a header-only packet to the neighbour in one process (ns
//    per packet), and the same between two MPI ranks.
//  - Host time of a 32-chip (8x4, 2x2-core grids) all-reduce of 1 MiB per
//    chip: one process vs 2 and 4 MPI ranks on this machine (mpirun, when
//    Open MPI and tessel's MPI plugin are there), with the host's load.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "bench.hpp"
#include "tessel/mesh.hpp"
#include "tessel/ranks.hpp"
#include "tessel/tessel.hpp"

namespace tessel::bench {

namespace {

const char* const kSender = R"KERNEL(// fabric_bench_sender.cpp: `packets` packets of `bytes` to the neighbour's
// buffer (bytes 0: header-only increments), then one increment of its semaphore.
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"

void kernel_main() {
  size_t a = 0;
  const uint32_t dst = get_arg_val<uint32_t>(a++), packets = get_arg_val<uint32_t>(a++);
  const uint32_t bytes = get_arg_val<uint32_t>(a++), sem_id = get_arg_val<uint32_t>(a++);
  const uint32_t hops = get_arg_val<uint32_t>(a++);
  auto fabric = FabricConnectionManager::build_from_args<FabricConnectionManager::BUILD_AND_OPEN_CONNECTION>(a);
  auto& sender = fabric.get_forward_connection();
  volatile PACKET_HEADER_TYPE* h = PacketHeaderPool::allocate_header();
  h->to_chip_unicast(hops);
  const uint64_t sem = get_noc_addr(my_x[0], my_y[0], get_semaphore(sem_id));
  cb_reserve_back(0, 1);
  for (uint32_t i = 0; i < packets; ++i) {
    if (bytes) {
      h->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{get_noc_addr_from_bank_id<true>(0, dst)}, bytes);
      sender.wait_for_empty_write_slot();
      sender.send_payload_without_header_non_blocking_from_address(get_write_ptr(0), bytes);
    } else {
      h->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem, 1});
      sender.wait_for_empty_write_slot();
    }
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
  }
  if (bytes) {
    h->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem, 1});
    sender.send_payload_flush_blocking_from_address((uint32_t)h, sizeof(PACKET_HEADER_TYPE));
  }
  cb_push_back(0, 1);
  cb_wait_front(0, 1);
  cb_pop_front(0, 1);
  fabric.close();
}
)KERNEL";

const char* const kReceiver = R"KERNEL(// fabric_bench_receiver.cpp: waits for `count` increments.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0)), get_arg_val<uint32_t>(0));
}
)KERNEL";

constexpr CoreCoord kCore{0, 0};
constexpr uint32_t kPayload = 4352;

// A 1xN mesh (2x2-core grids) whose chip 0 sends to chip n-1 and chip n-1 waits.
struct Line {
  std::shared_ptr<Mesh> mesh;
  std::vector<Program> programs;
  std::vector<std::shared_ptr<Buffer>> buffers;
};

Line make_line(const std::string& arch, uint32_t chips, uint32_t packets, uint32_t bytes, bool timing) {
  Line line;
  MeshConfig config;
  config.rows = 1;
  config.cols = chips;
  config.device.arch = arch;
  config.device.grid_x = config.device.grid_y = 2;
  config.device.timing = timing;
  config.fabric = FabricConfig::Fabric1D;
  line.mesh = Mesh::open(config);
  Mesh& mesh = *line.mesh;
  line.programs.resize(chips);
  const uint32_t last = chips - 1;
  const CoreRangeSet core{CoreRange(kCore)};
  for (uint32_t c = mesh.first_local_chip(); c < mesh.first_local_chip() + mesh.local_chip_count(); ++c) {
    auto buffer = Buffer::create(mesh.device_ptr(c), {uint64_t(kPayload) * 8, kPayload, BufferType::DRAM});
    line.buffers.push_back(buffer);
    Program& p = line.programs[c];
    p.add_semaphore(core, 0);
    if (c == 0) {
      p.add_circular_buffer(core, CircularBufferConfig(kPayload, {{0, DataFormat::UInt32}}).set_page_size(0, kPayload));
      KernelHandle k = p.add_kernel_from_source(kSender, "fabric_bench_sender.cpp", core, DataMovementConfig{});
      std::vector<uint32_t> args = {uint32_t(buffer->address()), packets, bytes, 0, last, 1};
      mesh.append_fabric_connection_args(0, 1, 0, p, kCore, args);
      args.push_back(0);
      p.set_runtime_args(k, core, args);
    } else if (c == last) {
      KernelHandle k = p.add_kernel_from_source(kReceiver, "fabric_bench_receiver.cpp", core, DataMovementConfig{});
      p.set_runtime_args(k, core, {bytes ? 1u : packets});
    }
  }
  return line;
}

double run_line(Line& line) {
  std::vector<Program*> programs;
  for (uint32_t c = 0; c < line.mesh->size(); ++c)
    programs.push_back(line.mesh->is_local(c) && (c == 0 || c + 1 == line.mesh->size()) ? &line.programs[c] : nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  line.mesh->run(programs);
  return seconds_since(t0);
}

// The receiver's estimated cycles (its wait ends when the last packet arrives), in ns.
double receiver_ns(Line& line) {
  const TimingReport r = line.mesh->device(line.mesh->size() - 1).last_run_timing();
  uint64_t cycles = 0;
  for (const auto& risc : r.riscs)
    cycles = std::max(cycles, risc.total_cycles());
  return double(cycles) * 1000.0 / r.clock_mhz;
}

// The host time per packet of `packets` header-only packets from chip 0 to
// chip 1 (best of 3 runs, after a first that builds).
double host_ns_per_packet(uint32_t packets) {
  Line host = make_line("blackhole", 2, packets, 0, false);
  run_line(host);
  double best = 1e30;
  for (int i = 0; i < 3; ++i)
    best = std::min(best, run_line(host));
  return best * 1e9 / packets;
}

std::string self_path() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, size_t(n)) : "tessel";
}

// Runs `command`; its standard output.
std::string capture(const std::string& command) {
  std::string out;
  if (FILE* p = popen((command + " 2>&1").c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    pclose(p);
  }
  return out;
}

// The number after `key` in `text`, or -1.
double number_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  return at == std::string::npos ? -1 : std::strtod(text.c_str() + at + key.size(), nullptr);
}

std::string mpirun(uint32_t ranks) {
  return "mpirun " + std::string(geteuid() == 0 ? "--allow-run-as-root " : "") + "--oversubscribe -np " +
         std::to_string(ranks) + " ";
}

double load_average() {
  std::ifstream f("/proc/loadavg");
  double load = -1;
  f >> load;
  return load;
}

} // namespace

void run_fabric() {
  // The cycle estimate against published link figures.
  for (const char* arch : {"wormhole_b0", "blackhole"}) {
    const std::string a = arch == std::string("blackhole") ? "blackhole" : "wormhole";
    const double published_gbps = a == "blackhole" ? 50 : 12.5;
    constexpr uint32_t kPackets = 256;
    Line stream = make_line(arch, 2, kPackets, kPayload, true);
    run_line(stream);
    const double ns = receiver_ns(stream);
    const double gbps = double(kPackets) * kPayload / ns;
    figure("fabric_link_bandwidth_" + a + "_estimate", gbps, "GB/s");
    figure("fabric_link_bandwidth_" + a + "_ratio_to_published", gbps / published_gbps, "x");
    Line hops = make_line(arch, 8, 1, 0, true);
    run_line(hops);
    const double per_hop = receiver_ns(hops) / 7;
    figure("fabric_hop_latency_" + a + "_estimate", per_hop, "ns");
    figure("fabric_hop_latency_" + a + "_ratio_to_published", per_hop / 650, "x");
  }
  note("published: Wormhole 100 Gb/s per link and direction, ~650 ns per hop (tt-metal tech_reports/EthernetMultichip/"
       "BasicEthernetGuide.md); Blackhole 400 Gb/s per Ethernet tile (tt-isa-documentation, BlackholeA0/EthernetTile), "
       "its hop latency unpublished (assumed Wormhole's); the estimate adds the sender's NoC writes and the header");

  // Host cost of a packet, in one process.
  constexpr uint32_t kHostPackets = 20000;
  const double in_process_ns = host_ns_per_packet(kHostPackets);
  figure("fabric_packet_host_in_process", in_process_ns, "ns/packet");

  const std::string self = self_path();
  const bool have_mpi = capture("command -v mpirun").find("mpirun") != std::string::npos;
  if (have_mpi) {
    const std::string out = capture(mpirun(2) + self + " bench fabric_rank_hop");
    const double across = number_after(out, "fabric_packet_host_across_ranks ");
    if (across > 0) {
      figure("fabric_packet_host_across_ranks", across, "ns/packet");
      figure("fabric_packet_host_across_ranks_ratio_to_in_process", across / in_process_ns, "x");
    } else {
      note("mpirun -np 2 failed: " + out.substr(0, 400));
    }
  } else {
    note("no mpirun: the figures across ranks need Open MPI (Debian: openmpi-bin libopenmpi-dev)");
  }

  // A 32-chip all-reduce of 1 MiB per chip (512 bfloat16 tiles).
  const std::string run = self + " run ccl_all_reduce --mesh 8x4 --grid 2x2 --size 512";
  const double one = number_after(capture(run), "ran in ");
  figure("fabric_allreduce_32_chips_1MiB_one_process", one, "ms");
  if (have_mpi)
    for (uint32_t ranks : {2u, 4u}) {
      const double t = number_after(capture(mpirun(ranks) + run), "ran in ");
      figure("fabric_allreduce_32_chips_1MiB_" + std::to_string(ranks) + "_ranks", t, "ms");
      if (t > 0 && one > 0)
        figure("fabric_allreduce_32_chips_1MiB_" + std::to_string(ranks) + "_ranks_ratio_to_one_process", t / one, "x");
    }
  figure("host_load_average_1min", load_average(), "load");
  note("the all-reduce: tessel run ccl_all_reduce --mesh 8x4 --grid 2x2 --size 512 (the run's own \"ran in\" time, "
       "buffers and kernels cached); ranks oversubscribe this machine's cores");
}

// Run under mpirun -np 2 by `fabric`: the packets of fabric_packet_host_in_process, chip 0 on rank 0 and chip 1 on rank 1.
void run_fabric_rank_hop() {
  const double ns = host_ns_per_packet(20000);
  if (Ranks::world().rank() == 0) figure("fabric_packet_host_across_ranks", ns, "ns/packet");
  Ranks::world().finalize();
}

} // namespace tessel::bench
