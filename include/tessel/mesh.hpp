// Mesh: chips joined by simulated Ethernet links and the fabric between
// them (design §9; docs/multichip.md).
//
// A mesh is rows x cols devices of one arch, with row-major chip ids (as
// TT-Fabric's FabricNodeId chip ids). Programs launched together
// (Mesh::run) run as one run of every chip, so kernels on different chips
// can wait for each other's fabric packets; a deadlock that spans chips is
// reported with every chip, core, RISC and line involved.
//
// Under mpirun (tessel/ranks.hpp) with more than one rank, Mesh::open splits
// the mesh over the ranks in row-major blocks of chips: each process opens
// and runs only its own chips, packets to other ranks' chips go through
// MPI, and every rank calls Mesh::run together (lockstep SPMD).
//
// Ownership: a Mesh shares its devices (shared_ptr); closing the mesh closes
// none of them. Thread-safety: one host thread at a time, like a Device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/device.hpp"

namespace tessel {

class Program;

// How packets are routed (TT-Fabric's FabricConfig).
enum class FabricConfig : uint8_t {
  Disabled,     // no fabric: a kernel's connection open is an error
  Fabric1D,     // a packet goes straight along its connection's direction, to the mesh's edge
  Fabric1DRing, // the same, and rows / columns the system closes into rings wrap around
  Fabric2D,     // a packet names its destination chip: East/West first, then North/South
};
// "1d", "1d_ring", "2d", "disabled" (also TT-Metalium's FABRIC_1D, ...); ValidationError otherwise.
FabricConfig parse_fabric_config(const std::string& text);
std::string fabric_config_name(FabricConfig config); // TT-Metalium's spelling: "FABRIC_1D", ...

struct MeshConfig {
  uint32_t rows = 1, cols = 1;
  DeviceConfig device;
  FabricConfig fabric = FabricConfig::Fabric1D;
  // Ethernet links between neighbours, 1 to 4; 0: the system's (Wormhole:
  // 4 on a 32-chip Galaxy, else 2 as on N300 and T3K; Blackhole: 2 on a
  // 32-chip Galaxy, else 4 as TT-Metalium's P150 meshes use).
  uint32_t links_per_side = 0;
  // Rows (columns) whose first and last chip are linked. Unset: a single row
  // or column is closed into a ring (a T3K's snake, a P150 ring), a 2-D
  // mesh of 32 chips is a Galaxy's torus, other 2-D meshes are open.
  std::optional<bool> wrap_rows, wrap_cols;
  uint32_t max_payload_bytes = 4352; // TT-Fabric's default packet payload
};

class Mesh {
public:
  // Opens rows * cols devices of config.device. A mesh larger than one
  // process holds (32-bit L1 addressing) is a ValidationError that says how
  // many fit.
  static std::shared_ptr<Mesh> open(const MeshConfig& config);
  // A mesh over devices already open (row-major, rows * cols of one arch).
  static std::shared_ptr<Mesh> join(std::vector<std::shared_ptr<Device>> devices, const MeshConfig& config);
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  uint32_t rows() const;
  uint32_t cols() const;
  uint32_t size() const { return rows() * cols(); }
  // This process's chips: [first_local_chip, first_local_chip + local_chip_count).
  uint32_t first_local_chip() const;
  uint32_t local_chip_count() const;
  bool is_local(uint32_t chip) const;
  uint32_t rank_of(uint32_t chip) const;
  // A chip of this process (ValidationError for another rank's, naming it).
  Device& device(uint32_t chip) const;
  const std::shared_ptr<Device>& device_ptr(uint32_t chip) const;
  FabricConfig fabric_config() const;
  void set_fabric_config(FabricConfig config);
  const MeshConfig& config() const;

  // The chip next to `chip` toward `direction` (0 East, 1 West, 2 North,
  // 3 South) over a link the fabric config uses, or -1.
  int neighbour(uint32_t chip, uint32_t direction) const;

  // A worker on `core` of chip `src` connects to its router toward the
  // neighbour `dst` on link `link`: appends the connection's runtime-argument
  // words to `args` (as TT-Metalium's append_fabric_connection_rt_args) and
  // adds the two semaphores the connection uses to `program` on `core`.
  // ValidationError (nothing appended) when dst is not a neighbour over a
  // link the fabric config uses, or the link does not exist.
  void append_fabric_connection_args(uint32_t src, uint32_t dst, uint32_t link, Program& program, CoreCoord core,
                                     std::vector<uint32_t>& args) const;

  // Runs programs[chip] on each chip (null: nothing there) together, as one
  // run; blocking. Errors as CommandQueue::enqueue_program's, naming the
  // device; every device stays usable. Split over ranks: every rank calls
  // it, giving programs for its own chips only; an error on any rank is
  // thrown on every rank ("rank R: ...").
  void run(std::span<Program* const> programs);

  // Fabric totals since the mesh was made (packets this process's kernels sent).
  struct FabricStats {
    uint64_t packets = 0, hops = 0, payload_bytes = 0;
  };
  FabricStats fabric_stats() const;

  // How many devices of `config` one process holds.
  static uint32_t max_devices(const DeviceConfig& config);

  struct State; // the runtime's (src/runtime/mesh.cpp)

private:
  explicit Mesh(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

} // namespace tessel
