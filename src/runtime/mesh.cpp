#include "tessel/mesh.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/device_state.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/mesh_peers.hpp"
#include "sim/chip_group.hpp"
#include "sim/fabric.hpp"
#include "sim/memory.hpp"
#include "tessel/error.hpp"
#include "tessel/program.hpp"
#include "tessel/ranks.hpp"

namespace tessel {

namespace {

sim::FabricMode fabric_mode(FabricConfig config) {
  switch (config) {
  case FabricConfig::Disabled: return sim::FabricMode::Disabled;
  case FabricConfig::Fabric1D: return sim::FabricMode::Line;
  case FabricConfig::Fabric1DRing: return sim::FabricMode::Ring;
  case FabricConfig::Fabric2D: return sim::FabricMode::Mesh;
  }
  return sim::FabricMode::Disabled;
}

sim::ArchSpec arch_of(const DeviceConfig& config) {
  sim::ArchSpec arch = sim::arch_preset(config.arch);
  if (config.grid_x) arch = sim::with_grid(arch, config.grid_x, config.grid_y);
  return arch;
}

void check_shape(const MeshConfig& config, const char* call) {
  if (config.rows == 0 || config.cols == 0)
    throw ValidationError(std::string(call) + ": a " + std::to_string(config.rows) + "x" + std::to_string(config.cols) +
                          " mesh has no devices; both dimensions must be at least 1");
  if (config.links_per_side > 4)
    throw ValidationError(std::string(call) + ": " + std::to_string(config.links_per_side) +
                          " links per side; devices have 1 to 4 Ethernet links to each neighbour");
  if (config.max_payload_bytes == 0 || config.max_payload_bytes > 15232)
    throw ValidationError(std::string(call) + ": a packet payload of " + std::to_string(config.max_payload_bytes) +
                          " bytes; TT-Fabric's channels carry 1 to 15232 bytes (Blackhole's largest)");
}

} // namespace

FabricConfig parse_fabric_config(const std::string& text) {
  std::string t;
  for (char c : text)
    t += char(std::tolower(static_cast<unsigned char>(c)));
  if (t.rfind("fabric_", 0) == 0) t = t.substr(7);
  if (t == "1d" || t == "1d_line" || t == "line") return FabricConfig::Fabric1D;
  if (t == "1d_ring" || t == "ring") return FabricConfig::Fabric1DRing;
  if (t == "2d" || t == "mesh") return FabricConfig::Fabric2D;
  if (t == "disabled" || t == "off") return FabricConfig::Disabled;
  throw ValidationError("fabric config '" + text + "' is not valid: expected 1d, 1d_ring, 2d or disabled");
}

std::string fabric_config_name(FabricConfig config) { return sim::fabric_mode_name(fabric_mode(config)); }

struct Mesh::State {
  MeshConfig config;
  std::vector<std::shared_ptr<Device>> devices; // null: another rank's chip
  uint32_t first_local = 0, local_count = 0;
  std::unique_ptr<runtime::MeshPeers> peers; // split over ranks
  std::unique_ptr<sim::Fabric> fabric;
};

namespace {

// The mesh over `devices` (null for other ranks' chips), joined by a fabric.
std::unique_ptr<Mesh::State> make_state(std::vector<std::shared_ptr<Device>> devices, const MeshConfig& config,
                                        uint32_t first_local, uint32_t local_count,
                                        std::unique_ptr<runtime::MeshPeers> peers, const char* call) {
  std::vector<sim::Chip*> chips(devices.size(), nullptr);
  Device* first = nullptr;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (i < first_local || i >= size_t(first_local) + local_count) continue;
    if (!devices[i] || !devices[i]->is_open())
      throw ValidationError(std::string(call) + ": device " + std::to_string(i) + " is closed (or null)");
    runtime::DeviceState& ds = devices[i]->state();
    if (ds.chip->fabric())
      throw ValidationError(std::string(call) + ": device " + std::to_string(i) + " is already a chip of a mesh");
    if (!first) first = devices[i].get();
    if (ds.arch.name != first->state().arch.name)
      throw ValidationError(std::string(call) + ": device " + std::to_string(i) + " is a " + ds.arch.name +
                            ", device " + std::to_string(first_local) + " a " + first->state().arch.name +
                            ": a mesh's chips are of one arch");
    chips[i] = ds.chip.get();
  }
  // Meshes are many chips that each use little DRAM: small pages (memory.hpp).
  for (sim::Chip* chip : chips)
    if (chip) chip->memory().prefer_small_dram_pages();
  sim::FabricLinks links;
  links.rows = config.rows;
  links.cols = config.cols;
  const bool line = config.rows == 1 || config.cols == 1;
  const bool galaxy = config.rows * config.cols == 32 && !line;
  links.wrap_rows = config.wrap_rows.value_or(line || galaxy);
  links.wrap_cols = config.wrap_cols.value_or(line || galaxy);
  links.links_per_side = config.links_per_side;
  links.max_payload_bytes = config.max_payload_bytes;
  // Ethernet per link and direction: Wormhole 100 Gb/s (12.5 GB/s), ~650 ns
  // a hop; Blackhole 400 Gb/s per Ethernet tile (50 GB/s), its hop latency
  // assumed Wormhole's (docs/multichip.md).
  const bool blackhole = first && first->state().arch.name == "blackhole";
  if (blackhole) links.link_gbytes_per_s = 50;
  const bool galaxy_sized = config.rows * config.cols == 32;
  if (!links.links_per_side) links.links_per_side = blackhole ? (galaxy_sized ? 2 : 4) : (galaxy_sized ? 4 : 2);
  auto state = std::make_unique<Mesh::State>();
  state->config = config;
  state->config.links_per_side = links.links_per_side;
  state->devices = std::move(devices);
  state->first_local = first_local;
  state->local_count = local_count;
  state->peers = std::move(peers);
  state->fabric = std::make_unique<sim::Fabric>(std::move(chips), links, fabric_mode(config.fabric));
  if (state->peers) state->fabric->set_peers(state->peers.get());
  return state;
}

} // namespace

Mesh::Mesh(std::unique_ptr<State> state) : state_(std::move(state)) {}
Mesh::~Mesh() {
  // A closed device's chip is gone: only open ones are detached.
  for (const std::shared_ptr<Device>& d : state_->devices)
    if (d && d->is_open()) d->state().chip->set_fabric(nullptr, 0);
  state_->fabric->forget_chips();
}

uint32_t Mesh::max_devices(const DeviceConfig& config) {
  return sim::DeviceMemory::max_devices(arch_of(config).core_count());
}

std::shared_ptr<Mesh> Mesh::open(const MeshConfig& config) {
  const char* call = "Mesh::open";
  check_shape(config, call);
  const sim::ArchSpec arch = arch_of(config.device);
  const uint32_t fit = sim::DeviceMemory::max_devices(arch.core_count());
  const uint32_t want = config.rows * config.cols;
  Ranks& ranks = Ranks::world();
  if (ranks.distributed() && want % ranks.size() != 0)
    throw ValidationError(std::string(call) + ": a " + std::to_string(config.rows) + "x" + std::to_string(config.cols) +
                          " mesh of " + std::to_string(want) + " devices does not split evenly over " +
                          std::to_string(ranks.size()) + " ranks: run with a number of ranks that divides " +
                          std::to_string(want));
  const uint32_t local = want / ranks.size(), first = ranks.rank() * local;
  if (local > fit)
    throw ValidationError(std::string(call) + ": a " + std::to_string(config.rows) + "x" + std::to_string(config.cols) +
                          " mesh needs " + std::to_string(local) + " devices" +
                          (ranks.distributed() ? " in each of " + std::to_string(ranks.size()) + " ranks" : "") +
                          ", but one process holds at most " + std::to_string(fit) + " " + arch.name + " devices of " +
                          std::to_string(arch.grid_x) + "x" + std::to_string(arch.grid_y) +
                          " worker cores (every core's L1 takes 4 MiB of the address space below 4 GiB): split the "
                          "mesh over more MPI ranks (mpirun -np N; docs/multichip.md), or use a smaller grid");
  std::vector<std::shared_ptr<Device>> devices(want);
  for (uint32_t i = first; i < first + local; ++i) // a failure closes the devices opened so far
    devices[i] = Device::open(config.device);
  std::unique_ptr<runtime::MeshPeers> peers;
  if (ranks.distributed()) peers = std::make_unique<runtime::MeshPeers>(ranks, local);
  return std::shared_ptr<Mesh>(new Mesh(make_state(std::move(devices), config, first, local, std::move(peers), call)));
}

std::shared_ptr<Mesh> Mesh::join(std::vector<std::shared_ptr<Device>> devices, const MeshConfig& config) {
  const char* call = "Mesh::join";
  check_shape(config, call);
  if (devices.size() != size_t(config.rows) * config.cols)
    throw ValidationError(std::string(call) + ": " + std::to_string(devices.size()) + " devices for a " +
                          std::to_string(config.rows) + "x" + std::to_string(config.cols) + " mesh");
  const uint32_t count = uint32_t(devices.size());
  return std::shared_ptr<Mesh>(new Mesh(make_state(std::move(devices), config, 0, count, nullptr, call)));
}

uint32_t Mesh::first_local_chip() const { return state_->first_local; }
uint32_t Mesh::local_chip_count() const { return state_->local_count; }
bool Mesh::is_local(uint32_t chip) const {
  return chip >= state_->first_local && chip < state_->first_local + state_->local_count;
}
uint32_t Mesh::rank_of(uint32_t chip) const { return state_->local_count ? chip / state_->local_count : 0; }

uint32_t Mesh::rows() const { return state_->config.rows; }
uint32_t Mesh::cols() const { return state_->config.cols; }
const MeshConfig& Mesh::config() const { return state_->config; }
FabricConfig Mesh::fabric_config() const { return state_->config.fabric; }

void Mesh::set_fabric_config(FabricConfig config) {
  state_->config.fabric = config;
  state_->fabric->set_mode(fabric_mode(config));
}

Device& Mesh::device(uint32_t chip) const { return *device_ptr(chip); }

const std::shared_ptr<Device>& Mesh::device_ptr(uint32_t chip) const {
  if (chip >= state_->devices.size())
    throw ValidationError("Mesh::device: chip " + std::to_string(chip) + " is not in the " + std::to_string(rows()) +
                          "x" + std::to_string(cols()) + " mesh (chips 0.." +
                          std::to_string(state_->devices.size() - 1) + ")");
  if (!is_local(chip))
    throw ValidationError("Mesh::device: chip " + std::to_string(chip) + " is held by rank " +
                          std::to_string(rank_of(chip)) + ", not this process (rank " +
                          std::to_string(Ranks::world().rank()) + ", chips " + std::to_string(first_local_chip()) +
                          ".." + std::to_string(first_local_chip() + local_chip_count() - 1) + ")");
  return state_->devices[chip];
}

int Mesh::neighbour(uint32_t chip, uint32_t direction) const {
  return state_->fabric->neighbour(chip, direction, state_->config.fabric != FabricConfig::Fabric1D);
}

void Mesh::append_fabric_connection_args(uint32_t src, uint32_t dst, uint32_t link, Program& program, CoreCoord core,
                                         std::vector<uint32_t>& args) const {
  const char* call = "append_fabric_connection_rt_args";
  const sim::Fabric& fabric = *state_->fabric;
  if (src >= size() || dst >= size())
    throw ValidationError(std::string(call) + ": chip " + std::to_string(std::max(src, dst)) + " is not in the " +
                          std::to_string(rows()) + "x" + std::to_string(cols()) + " mesh");
  if (src == dst)
    throw ValidationError(std::string(call) + ": the source and destination are both " + fabric.chip_name(src) +
                          "; a connection goes to a neighbour");
  int direction = fabric.direction_to(src, dst);
  if (direction < 0 && state_->config.fabric == FabricConfig::Fabric2D) {
    // 2D: toward the first hop of the route (East/West first).
    const uint32_t sc = src % cols(), dc = dst % cols();
    direction = sc != dc ? (sc < dc ? 0 : 1) : (src / cols() < dst / cols() ? 3 : 2);
  }
  if (direction < 0)
    throw ValidationError(std::string(call) + ": " + fabric.chip_name(dst) + " is not a neighbour of " +
                          fabric.chip_name(src) + " under " + fabric_config_name(state_->config.fabric) +
                          ": a 1D connection goes to the next chip of a row or column");
  if (link >= state_->config.links_per_side)
    throw ValidationError(std::string(call) + ": link " + std::to_string(link) + " does not exist; the mesh has " +
                          std::to_string(state_->config.links_per_side) + " link(s) per side (0.." +
                          std::to_string(state_->config.links_per_side - 1) + ")");
  const uint32_t teardown = program.add_semaphore(CoreRangeSet(CoreRange(core, core)), 0);
  const uint32_t buffer_index = program.add_semaphore(CoreRangeSet(CoreRange(core, core)), 0);
  args.push_back(uint32_t(direction) * 4 + link);
  args.push_back(teardown);
  args.push_back(buffer_index);
}

void Mesh::run(std::span<Program* const> programs) {
  const char* call = "Mesh::run";
  runtime::MeshPeers* peers = state_->peers.get();
  Ranks::set_error_collective(false);
  // Every local chip's program is planned (and compiled) before any is
  // configured; split over ranks, the ranks agree first that all could.
  std::vector<std::span<const sim::Launch>> launches(size());
  std::string problem;
  try {
    if (programs.size() != size())
      throw ValidationError(std::string(call) + ": " + std::to_string(programs.size()) + " programs for " +
                            std::to_string(size()) + " devices; give one per device (null for none)");
    for (uint32_t i = 0; i < size(); ++i) {
      if (!programs[i]) continue;
      if (!is_local(i))
        throw ValidationError(std::string(call) + ": a program for chip " + std::to_string(i) + ", which rank " +
                              std::to_string(rank_of(i)) + " holds: each rank gives programs for its own chips only");
    }
    // A kernel may send to any chip of the mesh: every one must be open.
    for (uint32_t i = first_local_chip(); i < first_local_chip() + local_chip_count(); ++i)
      if (!device(i).is_open())
        throw ValidationError(std::string(call) + ": device " + std::to_string(i) +
                              " of the mesh is closed; a mesh runs with all its devices open");
    for (uint32_t i = 0; i < size(); ++i)
      if (programs[i]) {
        if (device(i).state().capturing_trace_id)
          throw ValidationError(std::string(call) + ": device " + std::to_string(i) +
                                " is capturing a trace; a mesh run is not recorded in traces");
        launches[i] = runtime::prepare_launch(device(i), *programs[i], call);
      }
  } catch (const Error& e) {
    if (!peers) throw;
    problem = "rank " + std::to_string(peers->rank()) + ": " + e.what();
  }
  if (peers) {
    for (const std::string& p : Ranks::world().all_gather(problem))
      if (!p.empty()) {
        Ranks::set_error_collective(true);
        throw ValidationError(p);
      }
  }
  std::vector<sim::ChipLaunches> runs;
  for (uint32_t i = 0; i < size(); ++i)
    if (programs[i]) {
      runtime::DeviceState& ds = device(i).state();
      runtime::release_persistent_grid(ds, call);
      runtime::configure_cores(programs[i]->state(), programs[i]->state().plan, *ds.chip);
      runs.push_back({ds.chip.get(), launches[i]});
    }
  if (!peers) return sim::run_chips(runs);
  try {
    sim::run_chips(runs, *state_->fabric, *peers);
  } catch (...) {
    Ranks::set_error_collective(true);
    throw;
  }
}

Mesh::FabricStats Mesh::fabric_stats() const {
  const sim::Fabric::Stats s = state_->fabric->stats();
  return {s.packets, s.hops, s.payload_bytes};
}

} // namespace tessel
