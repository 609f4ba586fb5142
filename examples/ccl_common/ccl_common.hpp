// What the collective examples (ccl_all_gather, ccl_reduce_scatter,
// ccl_all_reduce) share: the mesh they run on and how its chips group.
//  - FABRIC_1D / FABRIC_1D_RING: each row of the mesh is a group (a
//    one-column mesh is one group down its column), as ttnn's collectives
//    along cluster axis 1; a group is a ring when the system links its ends.
//  - FABRIC_2D: the whole mesh is one group, in chip order.
// Each chip's worker is core (0,0); its connections go forward (East, or
// South down a column) and backward (West, or North).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "example.hpp"
#include "tessel/mesh.hpp"
#include "tessel/tessel.hpp"

namespace tessel::examples {

inline constexpr CoreCoord kCclWorker{0, 0};

struct CclMesh {
  std::shared_ptr<Mesh> mesh;
  FabricConfig fabric = FabricConfig::Fabric1DRing;
  bool along_rows = true;     // 1D: groups are rows (else the one column)
  bool ring = false;          // 1D: each group's ends are linked
  uint32_t forward_dir = 0;   // East (or South)
  uint32_t backward_dir = 1;  // West (or North)
  std::string description() const; // "2x4 blackhole mesh over FABRIC_1D_RING (rings)"
};

// The mesh of --mesh (default 2x4) with --fabric (default 1d_ring).
CclMesh open_ccl_mesh(const RunOptions& o, const char* example);

// A chip's group, in slot order, and its slot in it.
struct CclPlace {
  std::vector<uint32_t> group;
  uint32_t slot = 0;
};
CclPlace ccl_place(const CclMesh& m, uint32_t chip);

// Appends the connection manager's words for `chip`'s worker: has-forward
// (and its words), has-backward (and its words). 2D: the forward connection
// goes to the chip's first neighbour, there is no backward one.
void append_ccl_connections(const CclMesh& m, uint32_t chip, bool forward, bool backward, Program& program,
                            std::vector<uint32_t>& args);

// Adds the BRISC kernel `examples/<example>/kernels/<file>` on the worker,
// with FABRIC_2D defined on a 2D fabric.
KernelHandle add_ccl_kernel(const CclMesh& m, Program& program, const std::string& example, const std::string& file,
                            std::vector<uint32_t> compile_args);

// The reduction stage of reduce-scatter and all-reduce: NCRISC reads `slots`
// tiles per output tile from `staging` (slot s of tile t at page
// s * tiles + t), compute sums them in slot order (bfloat16), NCRISC writes
// the sums to `output`; NCRISC starts once the worker's semaphore `sem`
// reaches `expected`. Adds CBs 1 (in), 2 (partial sum) and 16 (out).
void add_ccl_sum(Program& program, const Buffer& staging, const Buffer& output, uint32_t tiles, uint32_t slots,
                 uint32_t sem, uint32_t expected);

// The all-gather stage (ccl_all_gather's kernel): chip `chip` sends its
// `pages` input tiles to slot ccl_place().slot of `output` on every chip of
// its group, and waits until its semaphore `sem` counts the group's size.
void add_ccl_gather(const CclMesh& m, uint32_t chip, Program& program, const Buffer& input, const Buffer& output,
                    uint32_t pages, uint32_t sem);

// What a collective's run found, over every rank (a mesh split over MPI
// ranks, tessel/ranks.hpp, checks its own chips): the checksum is FNV-1a
// over each chip's digest (FNV-1a of its output words) in chip order, so one
// process and any number of ranks print the same.
struct CclTotals {
  uint64_t checksum = 0;
  uint64_t wrong = 0;
  std::string first_wrong; // the lowest rank's first wrong value
  uint64_t packets = 0, hops = 0;
  std::string text() const; // "P packets, H hops; checksum X[; W wrong ..., the first at ...]"
};
// `digests[chip]` for this process's chips; `wrong`/`first_wrong` its checks.
CclTotals ccl_totals(const CclMesh& m, const std::vector<uint64_t>& digests, uint64_t wrong,
                     const std::string& first_wrong);

// Runs programs[chip] on this process's chips of the mesh, together.
void run_ccl_programs(const CclMesh& m, std::vector<Program>& programs);

// The host's checks of a collective, chip by chip: read() reads a chip's
// output back (and digests it), check_sums() compares bfloat16 sums,
// mismatch() records a wrong value; result() combines over ranks.
class CclCheck {
public:
  explicit CclCheck(const CclMesh& m) : m_(m), digests_(m.mesh->size(), 0) {}
  const std::vector<uint32_t>& read(uint32_t chip, Buffer& output);
  // Value i of the output read last is the sum, in order, of value
  // (offset + i) of each of `inputs`.
  void check_sums(uint32_t chip, const std::vector<std::vector<uint32_t>>& inputs, size_t offset, size_t values);
  void mismatch(const std::string& where);
  // "<what> on a <mesh>: P packets, H hops; checksum X", passed when nothing mismatched on any rank.
  RunResult result(const std::string& what, double seconds) const;

private:
  const CclMesh& m_;
  std::vector<uint64_t> digests_;
  std::vector<uint32_t> got_;
  uint64_t wrong_ = 0;
  std::string first_wrong_;
};

// Chip `chip`'s input of `words` words: the same on every rank.
std::vector<uint32_t> ccl_random_words(uint64_t seed, uint32_t chip, size_t words);
std::vector<uint32_t> ccl_integer_tiles(uint64_t seed, uint32_t chip, uint32_t tiles);

// FNV-1a, 64 bits, over the words (the examples' checksum), and its hex text.
uint64_t ccl_fnv1a(uint64_t hash, const std::vector<uint32_t>& words);
inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
std::string ccl_hex(uint64_t value);

// (ccl_integer_tiles: small integers as bfloat16 words, two per word: sums
// of a few hundred of them are exact in bfloat16, so the checks are exact.)
float ccl_bf16_at(const std::vector<uint32_t>& words, size_t i);

} // namespace tessel::examples
