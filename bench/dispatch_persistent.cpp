// dispatch_persistent: the persistent dispatcher's figures beside silicon's
// (spec: persistent-dispatch-host-api; one p150a, X280 at 1000 MHz): a
// host-fed NOP at depth 16, group 1, batch 64, host depth 64; back-to-back
// exclusive NOPs on 1, 12 and 120 cores (the cores' trace); the broadcast
// example's host time per job.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench.hpp"
#include "dispatch_measure/measure.hpp"
#include "example.hpp"

namespace tessel::bench {

void run_dispatch_persistent() {
  auto session = dispatch::Session::open({});
  // Five runs of 100,000: the host and the card thread need a core each, and
  // on a shared VM one of the two is now and then away; the median and the
  // best both print.
  examples::HostFedOptions o;
  std::vector<double> runs;
  for (int i = 0; i < 5; ++i)
    runs.push_back(examples::measure_host_fed_us(*session, o));
  std::sort(runs.begin(), runs.end());
  figure("host_fed_nop_median_us", runs[2], "us");
  figure("host_fed_nop_best_us", runs[0], "us");
  figure("host_fed_nop_median_vs_silicon_1.228us", runs[2] / 1.228, "x");
  for (auto [cores, silicon] : {std::pair{1u, 1.90}, {12u, 2.28}, {120u, 2.27}}) {
    const double period = examples::measure_exclusive_period_us(*session, cores);
    figure("exclusive_nop_period_" + std::to_string(cores) + "_cores_us", period, "us");
    figure("exclusive_nop_period_" + std::to_string(cores) + "_cores_vs_silicon", period / silicon, "x");
  }
  session.reset();
  examples::RunOptions ro;
  ro.op = "no-check";
  const examples::Example* broadcast = examples::find_example("dispatch_broadcast");
  const examples::RunResult r = broadcast->run(ro);
  std::printf("# %s\n", r.summary.c_str());
}

} // namespace tessel::bench
