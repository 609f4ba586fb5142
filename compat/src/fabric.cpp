// The fabric host API (tt-metalium/experimental/fabric/fabric.hpp) and global
// semaphores (tt-metalium/global_semaphore.hpp), over tessel::Mesh.
#include "tt-metalium/experimental/fabric/fabric.hpp"

#include <mutex>
#include <string>

#include "fabric_registry.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/error.hpp"
#include "runtime/program_state.hpp"
#include "tessel/mesh.hpp"
#include "tt-metalium/global_semaphore.hpp"
#include "tt-metalium/mesh_device.hpp"
#include "tt-metalium/program.hpp"

namespace tt::tt_fabric {

namespace {

struct FabricSettings {
  std::mutex mutex;
  FabricConfig config = FabricConfig::DISABLED;
  size_t payload_bytes = 4352;
  std::weak_ptr<tessel::Mesh> mesh; // the mesh opened last with more than one chip
};

FabricSettings& settings() {
  static FabricSettings s;
  return s;
}

const char* config_name(FabricConfig c) {
  switch (c) {
  case FabricConfig::DISABLED: return "DISABLED";
  case FabricConfig::FABRIC_1D_NEIGHBOR_EXCHANGE: return "FABRIC_1D_NEIGHBOR_EXCHANGE";
  case FabricConfig::FABRIC_1D: return "FABRIC_1D";
  case FabricConfig::FABRIC_1D_RING: return "FABRIC_1D_RING";
  case FabricConfig::FABRIC_2D: return "FABRIC_2D";
  case FabricConfig::FABRIC_2D_TORUS_X: return "FABRIC_2D_TORUS_X";
  case FabricConfig::FABRIC_2D_TORUS_Y: return "FABRIC_2D_TORUS_Y";
  case FabricConfig::FABRIC_2D_TORUS_XY: return "FABRIC_2D_TORUS_XY";
  case FabricConfig::CUSTOM: return "CUSTOM";
  }
  return "?";
}

std::shared_ptr<tessel::Mesh> mesh_of(const FabricNodeId& a, const FabricNodeId& b, const char* call) {
  std::shared_ptr<tessel::Mesh> mesh = settings().mesh.lock();
  if (!mesh)
    throw tessel::ValidationError(std::string(call) +
                                  ": no mesh of more than one device is open: open one with MeshDevice::create "
                                  "(after SetFabricConfig) before building fabric connections");
  for (const FabricNodeId* n : {&a, &b})
    if (*n->mesh_id != 0 || n->chip_id >= mesh->size())
      throw tessel::ValidationError(std::string(call) + ": FabricNodeId(mesh " + std::to_string(*n->mesh_id) +
                                    ", chip " + std::to_string(n->chip_id) + ") is not a chip of the open " +
                                    std::to_string(mesh->rows()) + "x" + std::to_string(mesh->cols()) +
                                    " mesh (mesh 0, chips 0.." + std::to_string(mesh->size() - 1) + ")");
  return mesh;
}

} // namespace

void SetFabricConfig(FabricConfig fabric_config, FabricReliabilityMode, std::optional<uint8_t>,
                     FabricTensixConfig fabric_tensix_config, FabricUDMMode fabric_udm_mode,
                     FabricManagerMode fabric_manager, FabricRouterConfig router_config) {
  const char* call = "SetFabricConfig";
  switch (fabric_config) {
  case FabricConfig::DISABLED:
  case FabricConfig::FABRIC_1D:
  case FabricConfig::FABRIC_1D_RING:
  case FabricConfig::FABRIC_2D: break;
  default:
    throw tessel::ValidationError(std::string(call) + ": " + config_name(fabric_config) +
                                  " is not modelled; tessel simulates FABRIC_1D, FABRIC_1D_RING and FABRIC_2D");
  }
  if (fabric_tensix_config != FabricTensixConfig::DISABLED || fabric_udm_mode != FabricUDMMode::DISABLED)
    throw tessel::ValidationError(std::string(call) +
                                  ": the Tensix fabric mux and UDM modes are not modelled (workers connect to "
                                  "their routers directly)");
  if (fabric_manager != FabricManagerMode::DEFAULT)
    throw tessel::ValidationError(std::string(call) + ": only FabricManagerMode::DEFAULT is modelled");
  const size_t payload = router_config.max_packet_payload_size_bytes.value_or(4352);
  if (payload == 0 || payload > 15232)
    throw tessel::ValidationError(std::string(call) + ": max_packet_payload_size_bytes " + std::to_string(payload) +
                                  " is outside 1..15232 (Blackhole's largest)");
  std::lock_guard lock(settings().mutex);
  settings().config = fabric_config;
  settings().payload_bytes = payload;
}

FabricConfig GetFabricConfig() {
  std::lock_guard lock(settings().mutex);
  return settings().config;
}

bool is_1d_fabric_config(FabricConfig c) { return c == FabricConfig::FABRIC_1D || c == FabricConfig::FABRIC_1D_RING; }
bool is_2d_fabric_config(FabricConfig c) { return c == FabricConfig::FABRIC_2D; }

void append_fabric_connection_rt_args(const FabricNodeId& src, const FabricNodeId& dst, uint32_t link_idx,
                                      tt::tt_metal::Program& worker_program, const tt::tt_metal::CoreCoord& worker_core,
                                      std::vector<uint32_t>& worker_args, CoreType core_type) {
  const char* call = "append_fabric_connection_rt_args";
  if (core_type != CoreType::WORKER)
    throw tessel::ValidationError(std::string(call) + ": only worker (Tensix) cores connect to the fabric here");
  mesh_of(src, dst, call)->append_fabric_connection_args(src.chip_id, dst.chip_id, link_idx, worker_program.native(),
                                                         worker_core, worker_args);
}

void append_routing_plane_connection_manager_rt_args(const FabricNodeId& src, const std::vector<FabricNodeId>& dst_nodes,
                                                     const std::vector<uint32_t>& connection_link_indices,
                                                     tt::tt_metal::Program& worker_program,
                                                     tt::tt_metal::KernelHandle& kernel_id,
                                                     const tt::tt_metal::CoreCoord& worker_core,
                                                     std::vector<uint32_t>& worker_args, FabricApiType api_type,
                                                     CoreType core_type) {
  const char* call = "append_routing_plane_connection_manager_rt_args";
  if (core_type != CoreType::WORKER)
    throw tessel::ValidationError(std::string(call) + ": only worker (Tensix) cores connect to the fabric here");
  if (dst_nodes.empty() || dst_nodes.size() > 4)
    throw tessel::ValidationError(std::string(call) + ": " + std::to_string(dst_nodes.size()) +
                                  " destination nodes; a routing plane has 1 to 4 connections");
  if (connection_link_indices.size() > 1 && connection_link_indices.size() != dst_nodes.size())
    throw tessel::ValidationError(std::string(call) + ": " + std::to_string(connection_link_indices.size()) +
                                  " link indices for " + std::to_string(dst_nodes.size()) +
                                  " connections; give none, one, or one per connection");
  tessel::runtime::ProgramState& st = worker_program.native().state();
  if (kernel_id >= st.kernels.size())
    throw tessel::ValidationError(std::string(call) + ": kernel " + std::to_string(kernel_id) +
                                  " is not a kernel of the program");
  std::shared_ptr<tessel::Mesh> mesh = mesh_of(src, dst_nodes.front(), call);
  // Everything is checked before the program changes (the connections add semaphores to it).
  std::vector<eth_chan_directions> dirs;
  std::vector<uint32_t> links;
  uint32_t directions = 0;
  for (size_t i = 0; i < dst_nodes.size(); ++i) {
    const std::optional<eth_chan_directions> dir = get_eth_forwarding_direction(src, dst_nodes[i]);
    if (!dir)
      throw tessel::ValidationError(std::string(call) + ": chip " + std::to_string(dst_nodes[i].chip_id) +
                                    " cannot be reached from chip " + std::to_string(src.chip_id) +
                                    " under the fabric config");
    if (directions & (1u << *dir))
      throw tessel::ValidationError(std::string(call) + ": two connections leave chip " +
                                    std::to_string(src.chip_id) +
                                    " the same way; a routing plane has one connection per direction");
    directions |= 1u << *dir;
    const uint32_t link = connection_link_indices.empty()       ? 0
                          : connection_link_indices.size() == 1 ? connection_link_indices[0]
                                                                : connection_link_indices[i];
    if (link >= mesh->config().links_per_side)
      throw tessel::ValidationError(std::string(call) + ": link " + std::to_string(link) +
                                    " does not exist; the mesh has " +
                                    std::to_string(mesh->config().links_per_side) + " link(s) per side");
    dirs.push_back(*dir);
    links.push_back(link);
  }
  std::vector<uint32_t> args;
  for (size_t i = 0; i < dst_nodes.size(); ++i) {
    args.push_back(uint32_t(dirs[i]));
    mesh->append_fabric_connection_args(src.chip_id, dst_nodes[i].chip_id, links[i], worker_program.native(),
                                        worker_core, args);
  }
  const bool two_d = mesh->fabric_config() == tessel::FabricConfig::Fabric2D;
  if (two_d) {
    args.insert(args.end(), {mesh->cols(), src.chip_id, *src.mesh_id});
    for (const FabricNodeId& d : dst_nodes)
      args.insert(args.end(), {d.chip_id, *d.mesh_id});
  }
  // The kernel's defines, as TT-Metalium adds them (a structure change: it rebuilds).
  tessel::runtime::KernelSpec& kernel = st.kernels[kernel_id];
  kernel.defines[api_type == FabricApiType::Mesh ? "API_TYPE_Mesh" : "API_TYPE_Linear"] = "1";
  if (two_d) kernel.defines["FABRIC_2D"] = "1";
  ++st.kernels_version;
  ++st.layout_version;
  worker_args.insert(worker_args.end(), args.begin(), args.end());
}

std::vector<uint32_t> get_forwarding_link_indices(const FabricNodeId& src, const FabricNodeId& dst) {
  const std::shared_ptr<tessel::Mesh> mesh = mesh_of(src, dst, "get_forwarding_link_indices");
  if (!get_eth_forwarding_direction(src, dst)) return {};
  std::vector<uint32_t> links;
  for (uint32_t l = 0; l < mesh->config().links_per_side; ++l)
    links.push_back(l);
  return links;
}

std::optional<eth_chan_directions> get_eth_forwarding_direction(FabricNodeId src, FabricNodeId dst) {
  const std::shared_ptr<tessel::Mesh> mesh = mesh_of(src, dst, "get_eth_forwarding_direction");
  if (src.chip_id == dst.chip_id) return std::nullopt;
  for (uint32_t d = 0; d < 4; ++d)
    if (mesh->neighbour(src.chip_id, d) == int(dst.chip_id)) return eth_chan_directions(d);
  if (mesh->fabric_config() != tessel::FabricConfig::Fabric2D) return std::nullopt;
  const uint32_t cols = mesh->cols(), sc = src.chip_id % cols, dc = dst.chip_id % cols;
  if (sc != dc) return sc < dc ? EAST : WEST;
  return src.chip_id < dst.chip_id ? SOUTH : NORTH;
}

size_t get_tt_fabric_packet_header_size_bytes() { return GetFabricConfig() == FabricConfig::FABRIC_2D ? 96 : 64; }
size_t get_tt_fabric_max_payload_size_bytes() {
  std::lock_guard lock(settings().mutex);
  return settings().payload_bytes;
}
size_t get_tt_fabric_channel_buffer_size_bytes() {
  return get_tt_fabric_packet_header_size_bytes() + get_tt_fabric_max_payload_size_bytes();
}

} // namespace tt::tt_fabric

namespace tt::tt_metal::compat_fabric {

std::shared_ptr<tessel::Mesh> open_mesh(uint32_t rows, uint32_t cols, const tessel::DeviceConfig& device) {
  using tt::tt_fabric::FabricConfig;
  tessel::MeshConfig config;
  config.device = device;
  config.rows = rows;
  config.cols = cols;
  FabricConfig fabric;
  {
    std::lock_guard lock(tt::tt_fabric::settings().mutex);
    fabric = tt::tt_fabric::settings().config;
    config.max_payload_bytes = uint32_t(tt::tt_fabric::settings().payload_bytes);
  }
  config.fabric = fabric == FabricConfig::FABRIC_1D        ? tessel::FabricConfig::Fabric1D
                  : fabric == FabricConfig::FABRIC_1D_RING ? tessel::FabricConfig::Fabric1DRing
                  : fabric == FabricConfig::FABRIC_2D      ? tessel::FabricConfig::Fabric2D
                                                           : tessel::FabricConfig::Disabled;
  std::shared_ptr<tessel::Mesh> mesh = tessel::Mesh::open(config);
  std::lock_guard lock(tt::tt_fabric::settings().mutex);
  tt::tt_fabric::settings().mesh = mesh;
  return mesh;
}

} // namespace tt::tt_metal::compat_fabric

namespace tt::tt_metal {

struct GlobalSemaphoreFactory {
  static GlobalSemaphore make(IDevice* device, const std::vector<std::shared_ptr<tessel::Device>>& chips,
                              const tessel::CoreRangeSet& cores, uint32_t initial_value, BufferType buffer_type);
};

GlobalSemaphore GlobalSemaphoreFactory::make(IDevice* device, const std::vector<std::shared_ptr<tessel::Device>>& chips,
                                             const tessel::CoreRangeSet& cores, uint32_t initial_value,
                                             BufferType buffer_type) {
  const char* call = "CreateGlobalSemaphore";
  if (buffer_type != BufferType::L1 && buffer_type != BufferType::L1_SMALL)
    throw tessel::ValidationError(std::string(call) + ": a global semaphore lives in L1 (BufferType::L1 or L1_SMALL)");
  const tessel::CoreCoord grid = chips.front()->grid();
  for (const tessel::CoreRange& r : cores.ranges())
    if (r.end_coord.x >= grid.x || r.end_coord.y >= grid.y)
      throw tessel::ValidationError(std::string(call) + ": the core range " + r.str() + " is outside the " +
                                    std::to_string(grid.x) + "x" + std::to_string(grid.y) + " worker grid");
  GlobalSemaphore s;
  s.device_ = device;
  s.cores_ = cores;
  const uint32_t page = 16, banks = grid.x * grid.y;
  for (const std::shared_ptr<tessel::Device>& chip : chips) {
    auto buffer = tessel::Buffer::create(chip, {uint64_t(page) * banks, page, tessel::BufferType::L1});
    if (!s.buffers_.empty() && buffer->address() != s.address_)
      throw tessel::ValidationError(std::string(call) + ": the chips' L1 allocations differ (the semaphore would sit at " +
                                    std::to_string(s.address_) + " on the first chip and " +
                                    std::to_string(buffer->address()) +
                                    " on another): allocate the same L1 buffers on every chip of the mesh");
    s.address_ = buffer->address();
    s.buffers_.push_back(std::move(buffer));
  }
  s.reset_semaphore_value(initial_value);
  return s;
}

void GlobalSemaphore::reset_semaphore_value(uint32_t reset_value) const {
  for (const std::shared_ptr<tessel::Buffer>& buffer : buffers_) {
    const uint32_t banks = uint32_t(buffer->size() / 16);
    std::vector<uint32_t> words(size_t(banks) * 4, 0);
    for (uint32_t b = 0; b < banks; ++b)
      words[size_t(b) * 4] = reset_value;
    buffer->device().command_queue().enqueue_write_buffer(*buffer, words, true);
  }
}

GlobalSemaphore CreateGlobalSemaphore(distributed::MeshDevice& mesh_device, tessel::CoreRangeSet cores,
                                      uint32_t initial_value, BufferType buffer_type) {
  std::vector<std::shared_ptr<tessel::Device>> chips;
  for (IDevice* chip : mesh_device.get_devices())
    chips.push_back(chip->native_ptr());
  return GlobalSemaphoreFactory::make(&mesh_device, chips, cores, initial_value, buffer_type);
}

GlobalSemaphore CreateGlobalSemaphore(IDevice* device, const tessel::CoreRangeSet& cores, uint32_t initial_value,
                                      BufferType buffer_type) {
  if (!device) throw tessel::ValidationError("CreateGlobalSemaphore: null device");
  if (auto* mesh = dynamic_cast<distributed::MeshDevice*>(device))
    return CreateGlobalSemaphore(*mesh, cores, initial_value, buffer_type);
  return GlobalSemaphoreFactory::make(device, {device->native_ptr()}, cores, initial_value, buffer_type);
}

} // namespace tt::tt_metal
