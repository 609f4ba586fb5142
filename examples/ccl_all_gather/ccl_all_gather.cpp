// ccl_all_gather: every chip of a mesh ends with every chip's input, in chip
// order, moved over the fabric by one worker core per chip
// (kernels/all_gather.cpp).
//  - FABRIC_1D / FABRIC_1D_RING: each row of the mesh gathers on its own (a
//    one-column mesh gathers down the column), as ttnn's all-gather along
//    cluster axis 1: a chip multicasts its pages forward (East) and
//    backward (West) along its line; on a ring each chip reaches half its
//    peers each way over the wrap link.
//  - FABRIC_2D: the whole mesh gathers: one 2D multicast per page reaches
//    every other chip.
// The host checks every chip's output against the concatenated inputs and
// prints a checksum of all outputs (FNV-1a, 64 bits) so runs compare.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "example.hpp"
#include "tessel/mesh.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

namespace {

constexpr CoreCoord kWorker{0, 0};

uint64_t fnv1a(uint64_t hash, const std::vector<uint32_t>& words) {
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      hash ^= (w >> (8 * b)) & 0xffu;
      hash *= 0x100000001b3ull;
    }
  return hash;
}

// One chip's place in its gather: its group's chips in slot order, its slot.
struct Place {
  std::vector<uint32_t> group;
  uint32_t slot = 0;
};

Place place_of(const Mesh& mesh, uint32_t chip, FabricConfig fabric) {
  Place p;
  if (fabric == FabricConfig::Fabric2D) {
    for (uint32_t c = 0; c < mesh.size(); ++c)
      p.group.push_back(c);
    p.slot = chip;
  } else if (mesh.cols() > 1) {
    const uint32_t row = chip / mesh.cols();
    for (uint32_t c = 0; c < mesh.cols(); ++c)
      p.group.push_back(row * mesh.cols() + c);
    p.slot = chip % mesh.cols();
  } else {
    for (uint32_t r = 0; r < mesh.rows(); ++r)
      p.group.push_back(r);
    p.slot = chip;
  }
  return p;
}

} // namespace

RunResult run_ccl_all_gather(const RunOptions& o) {
  MeshConfig config;
  config.rows = o.mesh_rows ? o.mesh_rows : 2;
  config.cols = o.mesh_cols ? o.mesh_cols : 4;
  config.device = {o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir};
  config.fabric = parse_fabric_config(o.fabric.empty() ? "1d_ring" : o.fabric);
  if (config.fabric == FabricConfig::Disabled)
    throw ValidationError("ccl_all_gather moves data over the fabric: --fabric 1d, 1d_ring or 2d, not disabled");
  auto mesh = Mesh::open(config);
  const uint32_t pages = o.size ? o.size : 8;
  const uint32_t page_bytes = 2048; // one bfloat16 tile
  const uint32_t words_per_chip = pages * page_bytes / 4;
  const FabricConfig fabric = config.fabric;
  const bool line_along_rows = mesh->cols() > 1;
  const uint32_t fwd_dir = line_along_rows ? 0 : 3, bwd_dir = line_along_rows ? 1 : 2; // East/West, or South/North
  // A ring where the system closes the line (a wrap link from its last chip to its first); else a line.
  const uint32_t line_length = line_along_rows ? mesh->cols() : mesh->rows();
  const uint32_t line_last = line_along_rows ? mesh->cols() - 1 : (mesh->rows() - 1) * mesh->cols();
  const bool ring = fabric == FabricConfig::Fabric1DRing && line_length > 2 && mesh->neighbour(line_last, fwd_dir) == 0;

  std::vector<std::vector<uint32_t>> inputs(mesh->size());
  std::vector<std::shared_ptr<Buffer>> in_buffers, out_buffers;
  std::vector<Program> programs(mesh->size());
  std::vector<Program*> program_ptrs;
  Lcg lcg(0xa11ca7e5ull);
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t chip = 0; chip < mesh->size(); ++chip) {
    auto device = mesh->device_ptr(chip);
    const Place place = place_of(*mesh, chip, fabric);
    const uint32_t n = uint32_t(place.group.size());
    inputs[chip].resize(words_per_chip);
    for (uint32_t& w : inputs[chip])
      w = uint32_t(lcg.next() >> 32);
    auto in = Buffer::create(device, {uint64_t(pages) * page_bytes, page_bytes, BufferType::DRAM});
    auto out = Buffer::create(device, {uint64_t(n) * pages * page_bytes, page_bytes, BufferType::DRAM});
    device->command_queue().enqueue_write_buffer(*in, inputs[chip], true);
    in_buffers.push_back(in);
    out_buffers.push_back(out);

    Program& program = programs[chip];
    program.add_circular_buffer(CoreRangeSet(CoreRange(kWorker)),
                                CircularBufferConfig(page_bytes, {{0, DataFormat::Float16_b}}).set_page_size(0, page_bytes));
    const uint32_t sem = program.add_semaphore(CoreRangeSet(CoreRange(kWorker)), 0);
    std::vector<uint32_t> compile_args;
    TensorAccessorArgs(*in).append_to(compile_args);
    TensorAccessorArgs(*out).append_to(compile_args);
    DataMovementConfig dm{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, compile_args};
    if (fabric == FabricConfig::Fabric2D) dm.defines["FABRIC_2D"] = "1";
    KernelHandle k = program.add_kernel(kernel_path("ccl_all_gather", "all_gather.cpp"), CoreRangeSet(CoreRange(kWorker)), dm);

    // Who this chip sends to, each way.
    const uint32_t pos = place.slot;
    uint32_t forward = 0, backward = 0;
    if (fabric == FabricConfig::Fabric2D) {
      forward = n - 1;
    } else if (ring) {
      forward = n / 2;
      backward = (n - 1) / 2;
    } else {
      forward = n - 1 - pos;
      backward = pos;
    }
    std::vector<uint32_t> args = {in->address(), out->address(), page_bytes, pages, pos, forward, backward, sem, n - 1};
    if (fabric == FabricConfig::Fabric2D) {
      const uint32_t r = chip / mesh->cols(), c = chip % mesh->cols();
      args.insert(args.end(), {mesh->cols() - 1 - c, c, r, mesh->rows() - 1 - r, chip});
      int first = -1;
      for (uint32_t d = 0; d < 4 && first < 0; ++d)
        first = mesh->neighbour(chip, d);
      args.push_back(first >= 0);
      if (first >= 0) mesh->append_fabric_connection_args(chip, uint32_t(first), 0, program, kWorker, args);
      args.push_back(0);
    } else {
      for (auto [range, dir] : {std::pair{forward, fwd_dir}, std::pair{backward, bwd_dir}}) {
        args.push_back(range > 0);
        if (range > 0)
          mesh->append_fabric_connection_args(chip, uint32_t(mesh->neighbour(chip, dir)), 0, program, kWorker, args);
      }
    }
    program.set_runtime_args(k, CoreRangeSet(CoreRange(kWorker)), args);
    program_ptrs.push_back(&program);
  }
  mesh->run(program_ptrs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  uint64_t checksum = 0xcbf29ce484222325ull;
  uint32_t wrong = 0;
  std::string first_wrong;
  for (uint32_t chip = 0; chip < mesh->size(); ++chip) {
    std::vector<uint32_t> got;
    mesh->device(chip).command_queue().enqueue_read_buffer(*out_buffers[chip], got);
    const Place place = place_of(*mesh, chip, fabric);
    for (uint32_t s = 0; s < place.group.size(); ++s)
      for (uint32_t i = 0; i < words_per_chip; ++i)
        if (got[size_t(s) * words_per_chip + i] != inputs[place.group[s]][i]) {
          if (wrong++ == 0)
            first_wrong = "device " + std::to_string(chip) + " slot " + std::to_string(s) + " word " +
                          std::to_string(i);
        }
    checksum = fnv1a(checksum, got);
  }
  const Mesh::FabricStats stats = mesh->fabric_stats();
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016" PRIx64, checksum);
  RunResult r;
  r.passed = wrong == 0;
  r.seconds = seconds;
  r.summary = "all-gather of " + std::to_string(pages) + " pages of " + std::to_string(page_bytes) + " B per chip on a " +
              std::to_string(mesh->rows()) + "x" + std::to_string(mesh->cols()) + " " + mesh->device(0).arch_name() +
              " mesh over " + fabric_config_name(fabric) +
              (fabric == FabricConfig::Fabric2D ? "" : ring ? " (rings)" : " (lines)") + ": " + std::to_string(stats.packets) + " packets, " +
              std::to_string(stats.hops) + " hops; checksum " + hash +
              (wrong ? "; " + std::to_string(wrong) + " wrong words, the first at " + first_wrong : "");
  return r;
}

} // namespace tessel::examples
