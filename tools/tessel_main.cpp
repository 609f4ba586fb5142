// The `tessel` command-line tool: info, run.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "bench.hpp"
#include "example.hpp"
#include "tessel/tessel.hpp"

namespace {

int cmd_info(const std::string& arch) {
  for (const char* name : {"blackhole", "wormhole_b0"}) {
    if (!arch.empty() && arch != name) continue;
    auto d = tessel::Device::open({name});
    std::printf(
        "%s: grid %ux%u (%u cores), L1 %u KiB per core, DRAM %u banks x %llu GiB, alignment L1 %u B / DRAM %u B,"
        " %u CB indices, %u MHz\n",
        name, d->grid().x, d->grid().y, d->grid().x * d->grid().y, d->l1_size() / 1024, d->dram_banks(),
        static_cast<unsigned long long>(d->dram_bank_size() >> 30), d->l1_alignment(), d->dram_alignment(),
        d->num_cb_indices(), d->clock_mhz());
  }
  return 0;
}

int cmd_run(const std::string& name, const tessel::examples::RunOptions& o) {
  const auto* e = tessel::examples::find_example(name);
  if (!e) {
    std::fprintf(stderr, "tessel run: no example named '%s'; examples:", name.c_str());
    for (auto& x : tessel::examples::all_examples())
      std::fprintf(stderr, " %s", x.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  auto r = e->run(o);
  std::printf("%s: %s\n", e->name, r.summary.c_str());
  std::printf("%s: %s: ran in %.3f ms after %.3f ms of compile and planning (policy %s)\n", e->name,
              r.passed ? "PASSED" : "FAILED", r.seconds * 1e3, r.compile_seconds * 1e3, o.policy.c_str());
  return r.passed ? 0 : 1;
}

int cmd_bench(const std::string& name) {
  namespace b = tessel::bench;
  if (name == "all") {
    for (const auto& x : b::all_benchmarks())
      x.run();
    return 0;
  }
  const auto* x = b::find_benchmark(name);
  if (!x) {
    std::fprintf(stderr, "tessel bench: no benchmark named '%s'; benchmarks: all", name.c_str());
    for (const auto& y : b::all_benchmarks())
      std::fprintf(stderr, " %s", y.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  x->run();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"tessel: a simulated tile-based dataflow accelerator"};
  app.require_subcommand(1);
  std::string info_arch;
  auto* info = app.add_subcommand("info", "show the architecture presets");
  info->add_option("--arch", info_arch, "only this preset");

  tessel::examples::RunOptions run_opts;
  std::string example, grid;
  auto* run = app.add_subcommand("run", "run an example and check its result");
  run->add_option("example", example, "example name")->required();
  run->add_option("--arch", run_opts.arch, "blackhole or wormhole_b0");
  run->add_option("--grid", grid, "worker grid XxY (default: the preset's)");
  run->add_option("--policy", run_opts.policy, "deterministic or random:<seed>");
  run->add_option("--size", run_opts.size, "example-specific problem size");
  run->add_option("--format", run_opts.format, "data format: Float16_b, Float32 or Bfp8_b (where the example has it)");
  run->add_option("--op", run_opts.op, "example-specific op selection (e.g. eltwise_sfpu --op exp)");

  auto* list = app.add_subcommand("list", "list the examples and benchmarks");

  std::string bench_name;
  auto* bench = app.add_subcommand("bench", "run a benchmark: one line per figure, '<figure> <value> <unit>'");
  bench->add_option("name", bench_name, "pipeline, dispatch, jit or all")->required();

  CLI11_PARSE(app, argc, argv);
  try {
    if (*info) return cmd_info(info_arch);
    if (*list) {
      std::printf("examples (tessel run <name>):\n");
      for (const auto& e : tessel::examples::all_examples())
        std::printf("  %-29s %s\n", e.name, e.description);
      std::printf("benchmarks (tessel bench <name>|all):\n");
      for (const auto& b : tessel::bench::all_benchmarks())
        std::printf("  %-29s %s\n", b.name, b.description);
      return 0;
    }
    if (*bench) return cmd_bench(bench_name);
    if (*run) {
      if (!grid.empty()) {
        unsigned gx = 0, gy = 0;
        if (std::sscanf(grid.c_str(), "%ux%u", &gx, &gy) != 2) {
          std::fprintf(stderr, "tessel run: --grid '%s' is not of the form XxY\n", grid.c_str());
          return 2;
        }
        run_opts.grid_x = gx;
        run_opts.grid_y = gy;
      }
      return cmd_run(example, run_opts);
    }
  } catch (const tessel::Error& e) {
    std::fprintf(stderr, "tessel: %s\n", e.what());
    return 1;
  }
  return 0;
}
