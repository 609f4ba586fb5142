// Ranks: the processes of one run under mpirun (MPI's world), over which a
// mesh too big for one process is split (tessel/mesh.hpp, docs/multichip.md).
//
// A process started by mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE) with more
// than one rank loads tessel's MPI transport plugin and initialises MPI on
// first use; any other process is a world of one. Every collective call
// (barrier, all_gather, a Mesh::run) must be made by every rank in the same
// order, as in tt-metal's multi-host ("Big-Mesh") programs: lockstep SPMD.
//
// Thread-safety: collective calls from one thread per process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessel {

class Ranks {
public:
  // The world; throws ValidationError when the process runs under mpirun
  // with more than one rank but the MPI transport plugin is missing or MPI
  // fails to start (the message says which and what to install).
  static Ranks& world();
  // The world if world() was called (MPI started for it), else null.
  static Ranks* started();

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  bool distributed() const { return size_ > 1; }

  void barrier();
  // Every rank's `mine`, in rank order (the same on every rank).
  std::vector<std::string> all_gather(const std::string& mine);
  // Byte blocks to every rank (to[r] for rank r; to[rank()] ignored): what
  // every rank sent this one, in rank order.
  std::vector<std::string> all_to_all(const std::vector<std::string>& to);

  // Ends MPI cleanly (every rank, after its last collective call).
  void finalize();
  // Ends every rank of the run now with `code` (an error only this rank saw).
  [[noreturn]] void abort(int code);

  // Whether the error being handled was thrown on every rank alike (a mesh
  // run's failure or deadlock): every rank can then report it and finalize.
  // Any other error seen under mpirun should abort() the run, or the other
  // ranks would wait for this one forever.
  static bool error_is_collective();
  static void set_error_collective(bool collective);

private:
  Ranks() = default;
  uint32_t rank_ = 0, size_ = 1;
  struct Plugin;
  Plugin* plugin_ = nullptr;
};

} // namespace tessel
