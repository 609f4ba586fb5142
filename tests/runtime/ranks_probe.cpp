// A mesh split over MPI ranks, end to end (run under mpirun by ctest,
// tests/runtime/CMakeLists.txt; alone it is a world of one): packets that
// cross between ranks, and the failures every rank must report alike.
//   ranks_probe cross        chip 0 writes 16 words 3 hops East to chip 3 and increments its semaphore
//   ranks_probe deadlock     chips 0 and 3 wait for increments that never come
//   ranks_probe fault        chip 3 sends 4 hops West, off the 1x4 line
//   ranks_probe unallocated  chip 0 writes where chip 3 has no buffer
// Prints "<scenario>: " and the outcome on rank 0; exits 0 when the outcome
// is the one expected (the message is checked by ctest).
#include <cstdio>

#include "fabric_probe.hpp"
#include "tessel/ranks.hpp"

using namespace tessel;
using namespace tessel::test;

namespace {

int finish(Ranks& ranks, const std::string& scenario, const std::string& outcome, bool ok) {
  if (ranks.rank() == 0) std::printf("%s: %s\n", scenario.c_str(), outcome.c_str());
  std::fflush(stdout);
  ranks.finalize();
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "cross";
  Ranks& ranks = Ranks::world();
  auto mesh = Mesh::open(mesh_config(1, 4, FabricConfig::Fabric1D));
  std::vector<std::shared_ptr<Buffer>> pages(4);
  for (uint32_t c = 0; c < 4; ++c)
    if (mesh->is_local(c)) pages[c] = dram_page(*mesh, c);
  const uint32_t target = pages[0] ? uint32_t(pages[0]->address()) : pages[3] ? uint32_t(pages[3]->address()) : 0;
  std::vector<std::unique_ptr<Probe>> probes(4);
  const auto local = [&](uint32_t chip, auto&& make) {
    if (mesh->is_local(chip)) probes[chip] = make();
  };
  if (scenario == "cross") {
    local(0, [&] { return probe(*mesh, 0, kSend, 3, 500, target, 1); });
    local(3, [&] { return probe(*mesh, 3, kWait); });
  } else if (scenario == "deadlock") {
    local(0, [&] { return probe(*mesh, 0, kWait); });
    local(3, [&] { return probe(*mesh, 3, kWait); });
  } else if (scenario == "fault") {
    local(3, [&] { return probe(*mesh, 3, kSend, 4, 0, target, 2); });
  } else if (scenario == "unallocated") {
    local(0, [&] { return probe(*mesh, 0, kSendDram, 3, 0, target + (1u << 20), 1); });
  } else {
    std::fprintf(stderr, "ranks_probe: unknown scenario '%s'\n", scenario.c_str());
    return 2;
  }
  std::vector<Probe*> raw;
  for (const auto& p : probes)
    raw.push_back(p.get());
  const std::string error = run(*mesh, raw);
  if (scenario != "cross") return finish(ranks, scenario, error.empty() ? "no error" : error, !error.empty());
  // Chip 3's rank checks what arrived; every rank learns the verdict.
  std::string verdict = "ok";
  if (!error.empty()) verdict = error;
  if (mesh->is_local(3)) {
    std::vector<uint32_t> got;
    mesh->device(3).command_queue().enqueue_read_buffer(*pages[3], got);
    for (uint32_t i = 0; i < 16; ++i)
      if (got.at(i) != 500 + i) verdict = "word " + std::to_string(i) + " is " + std::to_string(got.at(i));
  }
  std::string all = "PASSED";
  for (const std::string& v : ranks.all_gather(verdict))
    if (v != "ok") all = v;
  return finish(ranks, scenario, all + " over " + std::to_string(ranks.size()) + " rank(s), " +
                                     std::to_string(mesh->local_chip_count()) + " chips each",
                all == "PASSED");
}
