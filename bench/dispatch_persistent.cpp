// dispatch_persistent: the persistent dispatcher's figures beside silicon's
// (spec: persistent-dispatch-host-api; one p150a, X280 at 1000 MHz): a
// host-fed NOP at depth 16, group 1, batch 64, host depth 64; back-to-back
// exclusive NOPs on 1, 12 and 120 cores (the cores' trace); the broadcast
// example's host time per job.
#include <cstdio>

#include "bench.hpp"
#include "dispatch_measure/measure.hpp"
#include "example.hpp"

namespace tessel::bench {

void run_dispatch_persistent() {
  auto session = dispatch::Session::open({});
  examples::HostFedOptions o;
  const double host_fed = examples::measure_host_fed_us(*session, o);
  figure("host_fed_nop_us", host_fed, "us");
  figure("host_fed_nop_vs_silicon_1.228us", host_fed / 1.228, "x");
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
