#include "ccl_common.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "tessel/ranks.hpp"

namespace tessel::examples {

CclMesh open_ccl_mesh(const RunOptions& o, const char* example) {
  MeshConfig config;
  config.rows = o.mesh_rows ? o.mesh_rows : 2;
  config.cols = o.mesh_cols ? o.mesh_cols : 4;
  config.device = {o.arch, o.grid_x, o.grid_y, o.policy, o.kernel_cache_dir};
  config.fabric = parse_fabric_config(o.fabric.empty() ? "1d_ring" : o.fabric);
  if (config.fabric == FabricConfig::Disabled)
    throw ValidationError(std::string(example) +
                          " moves data over the fabric: --fabric 1d, 1d_ring or 2d, not disabled");
  CclMesh m;
  m.mesh = Mesh::open(config);
  m.fabric = config.fabric;
  m.along_rows = m.mesh->cols() > 1;
  m.forward_dir = m.along_rows ? 0 : 3;
  m.backward_dir = m.along_rows ? 1 : 2;
  const uint32_t length = m.along_rows ? m.mesh->cols() : m.mesh->rows();
  const uint32_t last = m.along_rows ? m.mesh->cols() - 1 : (m.mesh->rows() - 1) * m.mesh->cols();
  m.ring = m.fabric == FabricConfig::Fabric1DRing && length > 2 && m.mesh->neighbour(last, m.forward_dir) == 0;
  return m;
}

std::string CclMesh::description() const {
  return std::to_string(mesh->rows()) + "x" + std::to_string(mesh->cols()) + " " + mesh->device(mesh->first_local_chip()).arch_name() +
         " mesh over " + fabric_config_name(fabric) +
         (fabric == FabricConfig::Fabric2D ? "" : ring ? " (rings)" : " (lines)");
}

CclPlace ccl_place(const CclMesh& m, uint32_t chip) {
  const Mesh& mesh = *m.mesh;
  CclPlace p;
  if (m.fabric == FabricConfig::Fabric2D) {
    for (uint32_t c = 0; c < mesh.size(); ++c)
      p.group.push_back(c);
    p.slot = chip;
  } else if (m.along_rows) {
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

void append_ccl_connections(const CclMesh& m, uint32_t chip, bool forward, bool backward, Program& program,
                            std::vector<uint32_t>& args) {
  const Mesh& mesh = *m.mesh;
  if (m.fabric == FabricConfig::Fabric2D) {
    int first = -1;
    for (uint32_t d = 0; d < 4 && first < 0; ++d)
      first = mesh.neighbour(chip, d);
    forward = forward && first >= 0;
    args.push_back(forward);
    if (forward) mesh.append_fabric_connection_args(chip, uint32_t(first), 0, program, kCclWorker, args);
    args.push_back(0);
    return;
  }
  for (auto [wanted, dir] : {std::pair{forward, m.forward_dir}, std::pair{backward, m.backward_dir}}) {
    const int next = mesh.neighbour(chip, dir);
    const bool use = wanted && next >= 0;
    args.push_back(use);
    if (use) mesh.append_fabric_connection_args(chip, uint32_t(next), 0, program, kCclWorker, args);
  }
}

KernelHandle add_ccl_kernel(const CclMesh& m, Program& program, const std::string& example, const std::string& file,
                            std::vector<uint32_t> compile_args) {
  DataMovementConfig dm{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, std::move(compile_args)};
  if (m.fabric == FabricConfig::Fabric2D) dm.defines["FABRIC_2D"] = "1";
  return program.add_kernel(kernel_path(example, file), CoreRangeSet(CoreRange(kCclWorker)), dm);
}

void add_ccl_sum(Program& program, const Buffer& staging, const Buffer& output, uint32_t tiles, uint32_t slots,
                 uint32_t sem, uint32_t expected) {
  const CoreRangeSet worker{CoreRange(kCclWorker)};
  const uint32_t tile_bytes = tile_size(DataFormat::Float16_b);
  for (uint8_t cb : {uint8_t(1), uint8_t(2), uint8_t(16)})
    program.add_circular_buffer(
        worker, CircularBufferConfig(2 * tile_bytes, {{cb, DataFormat::Float16_b}}).set_page_size(cb, tile_bytes));
  std::vector<uint32_t> compile_args;
  TensorAccessorArgs(staging).append_to(compile_args);
  TensorAccessorArgs(output).append_to(compile_args);
  KernelHandle io = program.add_kernel(kernel_path("ccl_common", "sum_io.cpp"), worker,
                                       DataMovementConfig{DataMovementProcessor::RISCV_1, NOC::RISCV_1_default,
                                                          compile_args});
  program.set_runtime_args(io, worker, {staging.address(), output.address(), tiles, slots, sem, expected});
  KernelHandle sum = program.add_kernel(kernel_path("ccl_common", "sum.cpp"), worker, ComputeConfig{});
  program.set_runtime_args(sum, worker, {tiles, slots});
}

uint64_t ccl_fnv1a(uint64_t hash, const std::vector<uint32_t>& words) {
  for (uint32_t w : words)
    for (int b = 0; b < 4; ++b) {
      hash ^= (w >> (8 * b)) & 0xffu;
      hash *= 0x100000001b3ull;
    }
  return hash;
}

std::string ccl_hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}

std::vector<uint32_t> ccl_random_words(uint64_t seed, uint32_t chip, size_t words) {
  Lcg lcg(seed + 0x9e3779b97f4a7c15ull * (chip + 1));
  std::vector<uint32_t> out(words);
  for (uint32_t& w : out)
    w = uint32_t(lcg.next() >> 32);
  return out;
}

CclTotals ccl_totals(const CclMesh& m, const std::vector<uint64_t>& digests, uint64_t wrong,
                     const std::string& first_wrong) {
  const Mesh& mesh = *m.mesh;
  const Mesh::FabricStats stats = mesh.fabric_stats();
  // This rank's share: its counts, then its chips' digests, then its first wrong value.
  std::string mine;
  const auto put = [&](uint64_t v) { mine.append(reinterpret_cast<const char*>(&v), 8); };
  put(wrong);
  put(stats.packets);
  put(stats.hops);
  for (uint32_t c = mesh.first_local_chip(); c < mesh.first_local_chip() + mesh.local_chip_count(); ++c)
    put(digests[c]);
  mine += first_wrong;
  CclTotals t;
  t.checksum = kFnvOffset;
  for (const std::string& part : Ranks::world().all_gather(mine)) {
    uint64_t v[3];
    std::memcpy(v, part.data(), sizeof v);
    t.wrong += v[0];
    t.packets += v[1];
    t.hops += v[2];
    const size_t chips = mesh.local_chip_count();
    for (size_t i = 0; i < chips; ++i) {
      uint64_t digest;
      std::memcpy(&digest, part.data() + 24 + 8 * i, 8);
      t.checksum = ccl_fnv1a(t.checksum, {uint32_t(digest), uint32_t(digest >> 32)});
    }
    if (t.first_wrong.empty()) t.first_wrong = part.substr(24 + 8 * chips);
  }
  return t;
}

void run_ccl_programs(const CclMesh& m, std::vector<Program>& programs) {
  const Mesh& mesh = *m.mesh;
  std::vector<Program*> local(mesh.size(), nullptr);
  for (uint32_t c = mesh.first_local_chip(); c < mesh.first_local_chip() + mesh.local_chip_count(); ++c)
    local[c] = &programs[c];
  m.mesh->run(local);
}

const std::vector<uint32_t>& CclCheck::read(uint32_t chip, Buffer& output) {
  m_.mesh->device(chip).command_queue().enqueue_read_buffer(output, got_);
  digests_[chip] = ccl_fnv1a(kFnvOffset, got_);
  return got_;
}

void CclCheck::check_sums(uint32_t chip, const std::vector<std::vector<uint32_t>>& inputs, size_t offset,
                          size_t values) {
  for (size_t i = 0; i < values; ++i) {
    float want = 0;
    for (const std::vector<uint32_t>& input : inputs)
      want += ccl_bf16_at(input, offset + i);
    if (ccl_bf16_at(got_, i) != want)
      mismatch("device " + std::to_string(chip) + " value " + std::to_string(i) + " (" +
               std::to_string(ccl_bf16_at(got_, i)) + ", expected " + std::to_string(want) + ")");
  }
}

void CclCheck::mismatch(const std::string& where) {
  if (wrong_++ == 0) first_wrong_ = where;
}

RunResult CclCheck::result(const std::string& what, double seconds) const {
  const CclTotals totals = ccl_totals(m_, digests_, wrong_, first_wrong_);
  RunResult r;
  r.passed = totals.wrong == 0;
  r.seconds = seconds;
  r.summary = what + " on a " + m_.description() + ": " + totals.text();
  return r;
}

std::string CclTotals::text() const {
  return std::to_string(packets) + " packets, " + std::to_string(hops) + " hops; checksum " + ccl_hex(checksum) +
         (wrong ? "; " + std::to_string(wrong) + " wrong, the first at " + first_wrong : "");
}

std::vector<uint32_t> ccl_integer_tiles(uint64_t seed, uint32_t chip, uint32_t tiles) {
  Lcg lcg(seed + 0x9e3779b97f4a7c15ull * (chip + 1));
  std::vector<uint32_t> words(size_t(tiles) * 512);
  for (uint32_t& w : words) {
    const auto one = [&] { return uint32_t(float_to_bf16(float(int(lcg.next() >> 60) - 8))); };
    w = one() | (one() << 16);
  }
  return words;
}

float ccl_bf16_at(const std::vector<uint32_t>& words, size_t i) {
  return bf16_to_float(uint16_t(words[i / 2] >> (16 * (i % 2))));
}

} // namespace tessel::examples
