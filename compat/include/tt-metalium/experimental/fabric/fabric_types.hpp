// TT-Metalium's fabric types (tt::tt_fabric): the fabric configs, the
// node ids that name a chip of a mesh. docs/multichip.md says what tessel
// models of each.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <optional>

namespace tt::tt_fabric {

enum class FabricConfig : uint32_t {
  DISABLED = 0,
  FABRIC_1D_NEIGHBOR_EXCHANGE = 1, // refused by SetFabricConfig: not modelled
  FABRIC_1D = 2,
  FABRIC_1D_RING = 3,
  FABRIC_2D = 4,
  FABRIC_2D_TORUS_X = 5, // the 2D torus and custom configs are refused: not modelled
  FABRIC_2D_TORUS_Y = 6,
  FABRIC_2D_TORUS_XY = 7,
  CUSTOM = 8,
};

enum class FabricReliabilityMode : uint32_t {
  STRICT_SYSTEM_HEALTH_SETUP_MODE = 0,
  RELAXED_SYSTEM_HEALTH_SETUP_MODE = 1,
  DYNAMIC_RECONFIGURATION_SETUP_MODE = 2,
};
enum class FabricTensixConfig : uint32_t { DISABLED = 0, MUX = 1, UDM = 2 };
enum class FabricUDMMode : uint32_t { DISABLED = 0, ENABLED = 1 };
enum class FabricManagerMode : uint32_t { INIT_FABRIC = 1, TERMINATE_FABRIC = 2, ENABLED = 0, DEFAULT = 3 };
struct FabricRouterConfig {
  std::optional<size_t> max_packet_payload_size_bytes = std::nullopt;
};
enum class FabricApiType : uint8_t { Linear = 0, Mesh = 1 };

// A mesh's id (one mesh per process here: 0).
class MeshId {
public:
  constexpr MeshId() = default;
  constexpr explicit MeshId(uint32_t value) : value_(value) {}
  constexpr uint32_t operator*() const { return value_; }
  constexpr uint32_t get() const { return value_; }
  friend constexpr auto operator<=>(const MeshId&, const MeshId&) = default;

private:
  uint32_t value_ = 0;
};

// A chip of a mesh: its mesh and its row-major index in that mesh.
class FabricNodeId {
public:
  explicit FabricNodeId(MeshId mesh_id, std::uint32_t chip_id) : mesh_id(mesh_id), chip_id(chip_id) {}
  MeshId mesh_id{0};
  std::uint32_t chip_id = 0;
  friend bool operator==(const FabricNodeId&, const FabricNodeId&) = default;
  friend auto operator<=>(const FabricNodeId&, const FabricNodeId&) = default;
};

enum class RoutingDirection { N = 0, E = 1, S = 2, W = 3, Z = 4, C = 5, NONE = 6 };
enum eth_chan_directions : std::uint8_t { EAST = 0, WEST = 1, NORTH = 2, SOUTH = 3, Z = 4, COUNT = 5 };

} // namespace tt::tt_fabric

template <>
struct std::hash<tt::tt_fabric::FabricNodeId> {
  size_t operator()(const tt::tt_fabric::FabricNodeId& n) const { return (size_t(*n.mesh_id) << 32) ^ n.chip_id; }
};
