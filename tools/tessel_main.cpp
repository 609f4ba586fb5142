// The `tessel` command-line tool: info, run, list, bench, runner, stats, compile.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "bench.hpp"
#include "compile_command.hpp"
#include "example.hpp"
#include "operations.hpp"
#include "tessel/ranks.hpp"
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

// Prints an error and gives the exit status. Under mpirun an error every rank
// saw alike (a mesh run's) is printed by rank 0 and MPI ends cleanly; any
// other ends every rank (the others would wait for this one forever).
int report_error(const char* what) {
  tessel::Ranks* ranks = tessel::Ranks::started();
  if (!ranks || !ranks->distributed()) {
    std::fprintf(stderr, "tessel: %s\n", what);
    return 1;
  }
  if (tessel::Ranks::error_is_collective()) {
    if (ranks->rank() == 0) std::fprintf(stderr, "tessel: %s\n", what);
    ranks->finalize();
    return 1;
  }
  std::fprintf(stderr, "tessel: rank %u: %s\n", ranks->rank(), what);
  std::fflush(stderr);
  ranks->abort(1);
}

int cmd_run(const std::string& name, const tessel::examples::RunOptions& o, bool timing) {
  const auto* e = tessel::examples::find_example(name);
  if (!e) {
    std::fprintf(stderr, "tessel run: no example named '%s'; examples:", name.c_str());
    for (auto& x : tessel::examples::all_examples())
      std::fprintf(stderr, " %s", x.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  if (!e->multichip && (o.mesh_flag || !o.fabric.empty())) {
    std::fprintf(stderr, "tessel run: %s runs on one chip; --mesh and --fabric are for the multi-chip examples:",
                 name.c_str());
    for (auto& x : tessel::examples::all_examples())
      if (x.multichip) std::fprintf(stderr, " %s", x.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  auto r = e->run(o);
  // Under mpirun a mesh example's summary is the whole run's, the same on every rank: rank 0 prints it.
  const tessel::Ranks* ranks = tessel::Ranks::started();
  if (ranks && ranks->rank() != 0) return r.passed ? 0 : 1;
  std::printf("%s: %s\n", e->name, r.summary.c_str());
  char compile[64] = ""; // an example that builds while it runs (dispatch_measure) has none on its own
  if (r.compile_seconds > 0)
    std::snprintf(compile, sizeof compile, " after %.3f ms of compile and planning", r.compile_seconds * 1e3);
  const std::string over = ranks && ranks->distributed() ? ", " + std::to_string(ranks->size()) + " ranks" : "";
  std::printf("%s: %s: ran in %.3f ms%s (policy %s%s)\n", e->name, r.passed ? "PASSED" : "FAILED", r.seconds * 1e3,
              compile, o.policy.c_str(), over.c_str());
  if (timing) std::fputs(tessel::format_timing_report(tessel::process_timing()).c_str(), stdout);
  return r.passed ? 0 : 1;
}

// --trace / --trace-ring: every device the command opens is traced, as
// TESSEL_TRACE / TESSEL_TRACE_RING would have it (the examples open their own).
void set_trace_options(const char* command, const std::string& path, const std::string& ring) {
  if (!ring.empty()) {
    const bool digits = ring.size() <= 19 && ring.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::strtoull(ring.c_str(), nullptr, 10) > tessel::kMaxTraceRingEvents)
      throw tessel::ValidationError(std::string(command) + " --trace-ring '" + ring +
                                    "' is not valid: expected a whole number of events per RISC, 0 (write every "
                                    "event) to " +
                                    std::to_string(tessel::kMaxTraceRingEvents));
    if (path.empty())
      throw tessel::ValidationError(std::string(command) +
                                    " --trace-ring needs --trace <file> (where the ring is written)");
    setenv("TESSEL_TRACE_RING", ring.c_str(), 1);
  }
  if (!path.empty()) {
    // Checked here, so that a bad path is reported as --trace's (the devices
    // would report TESSEL_TRACE's); nothing is created yet.
    const std::filesystem::path p(path);
    const std::filesystem::path dir = p.parent_path().empty() ? "." : p.parent_path();
    std::error_code ec;
    const char* problem = nullptr;
    if (std::filesystem::is_directory(p, ec))
      problem = "is a directory";
    else if (!std::filesystem::is_directory(dir, ec))
      problem = "its directory does not exist";
    else if (access(dir.c_str(), W_OK | X_OK) != 0)
      problem = "its directory is not writable";
    if (problem)
      throw tessel::ValidationError(std::string(command) + " --trace '" + path + "': " + problem +
                                    "; expected a path in a writable directory");
    setenv("TESSEL_TRACE", path.c_str(), 1);
  }
}

int cmd_stats(const std::string& path, uint32_t waits) {
  std::fputs(tessel::format_trace_stats(tessel::read_trace_stats(path, waits)).c_str(), stdout);
  return 0;
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

void print_compiled_in_operations(std::FILE* out) {
  for (const auto& x : tessel::examples::all_example_operations())
    std::fprintf(out, " %s (example %s)", x.operation, x.example);
  std::fprintf(out, "\n");
}

int cmd_runner_emit(const std::string& example, const std::string& directory) {
  namespace ex = tessel::examples;
  const auto* e = ex::find_operation_of_example(example);
  if (!e) {
    std::fprintf(stderr, "tessel runner emit: example '%s' has no operation; examples with one:", example.c_str());
    for (const auto& x : ex::all_example_operations())
      std::fprintf(stderr, " %s", x.example);
    std::fprintf(stderr, "\n");
    return 2;
  }
  const tessel::Operation op = e->make(ex::RunOptions{});
  tessel::emit_runner(op, directory);
  std::printf("emitted operation '%s' (%zu logical kernel%s) to %s\n", op.name().c_str(), op.kernels().size(),
              op.kernels().size() == 1 ? "" : "s", directory.c_str());
  return 0;
}

int cmd_runner_run(const std::string& directory, const tessel::examples::RunOptions& o) {
  namespace ex = tessel::examples;
  tessel::Runner runner = tessel::Runner::load(directory);
  const std::string& name = runner.operation().name();
  const auto* e = ex::find_operation_named(name);
  if (!e) {
    std::fprintf(stderr, "tessel runner run: no factory for operation '%s' (from %s) is compiled in; compiled in:",
                 name.c_str(), directory.c_str());
    print_compiled_in_operations(stderr);
    return 2;
  }
  const ex::RunResult r = e->run_runner(runner, o);
  std::printf("%s: %s\n", name.c_str(), r.summary.c_str());
  std::printf("%s: %s: runner %s ran in %.3f ms after %.3f ms of compile and planning (policy %s)\n", name.c_str(),
              r.passed ? "PASSED" : "FAILED", runner.directory().c_str(), r.seconds * 1e3, r.compile_seconds * 1e3,
              o.policy.c_str());
  return r.passed ? 0 : 1;
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
  run->add_option("--policy", run_opts.policy, "deterministic, random:<seed>, parallel or parallel:<threads>");
  run->add_option("--size", run_opts.size, "example-specific problem size");
  run->add_option("--format", run_opts.format, "data format: Float16_b, Float32 or Bfp8_b (where the example has it)");
  run->add_option("--op", run_opts.op, "example-specific op selection (e.g. eltwise_sfpu --op exp)");
  std::string mesh;
  run->add_option("--mesh", mesh, "multi-chip examples: the mesh RxC, e.g. 2x4 or 8x4 (default: TESSEL_MESH, else the "
                                  "example's)");
  run->add_option("--fabric", run_opts.fabric, "multi-chip examples: 1d, 1d_ring or 2d (TT-Fabric's FabricConfig)");
  std::string trace_path, trace_ring, noc_mode;
  run->add_option("--noc", noc_mode, "eager or checked: when NoC transfers land (docs/guide.md, NoC modes)");
  run->add_option("--trace", trace_path, "write an event trace (Chrome/Perfetto JSON, docs/trace.md) to this file");
  run->add_option("--trace-ring", trace_ring, "with --trace: keep only the last N events per RISC");
  bool run_timing = false;
  run->add_flag("--timing", run_timing,
                "estimate cycles (as TESSEL_TIMING=1) and print the estimated device time and busy/wait per RISC "
                "(docs/timing.md)");

  std::string stats_path;
  uint32_t stats_waits = 10;
  auto* stats = app.add_subcommand("stats", "busy, waiting and idle time, NoC bytes and tiles per core of a trace");
  stats->add_option("trace", stats_path, "a trace file (tessel run --trace, TESSEL_TRACE)")->required();
  stats->add_option("--waits", stats_waits, "how many of the longest waits to list (default 10)")
      ->check(CLI::Range(0u, 1u << 20));

  auto* list = app.add_subcommand("list", "list the examples and benchmarks");

  std::string bench_name;
  auto* bench =
      app.add_subcommand("bench", "run a benchmark: one line per figure, '<figure> <value> <unit>', and '#' notes");
  bench->add_option("name", bench_name, "a benchmark of 'tessel list' (pipeline, matmul, parallel, timing, ...) or all")
      ->required();

  auto* runner = app.add_subcommand("runner", "emit an operation as a runner directory, or run one");
  runner->require_subcommand(1);
  std::string runner_example, runner_dir;
  auto* runner_emit =
      runner->add_subcommand("emit", "write an example's operation (kernels + manifest) to a directory");
  runner_emit->add_option("example", runner_example, "an example with an operation (tessel runner list)")->required();
  runner_emit->add_option("directory", runner_dir, "where to write the runner")->required();
  tessel::examples::RunOptions runner_opts;
  std::string runner_grid;
  auto* runner_run = runner->add_subcommand(
      "run", "load a runner directory and run it with its compiled-in factory; check the result");
  runner_run->add_option("directory", runner_dir, "a directory written by tessel runner emit")->required();
  runner_run->add_option("--arch", runner_opts.arch, "blackhole or wormhole_b0");
  runner_run->add_option("--grid", runner_grid, "worker grid XxY (default: the preset's)");
  runner_run->add_option("--policy", runner_opts.policy,
                         "deterministic, random:<seed>, parallel or parallel:<threads>");
  runner_run->add_option("--size", runner_opts.size, "example-specific problem size");
  auto* runner_list = runner->add_subcommand("list", "list the operations whose factory is compiled in");

  tessel::tools::CompileOptions compile_opts;
  auto* compile = app.add_subcommand("compile", "build one kernel as a program would, without running it");
  compile->add_option("kernel", compile_opts.kernel, "the kernel file")->required();
  compile->add_option("--kind", compile_opts.kind, "dm or compute (default: from the source)");
  compile->add_option("--arch", compile_opts.arch, "blackhole or wormhole_b0");
  compile->add_option("-D,--define", compile_opts.defines, "a define, NAME or NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  compile->add_option("--ct-args", compile_opts.compile_args, "compile-time arguments, comma-separated");
  compile->add_option("--named", compile_opts.named_args, "a named compile-time argument NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  compile->add_option("-I,--include", compile_opts.include_dirs, "an include directory (repeatable)")
      ->allow_extra_args(false);
  compile->add_option("--cb", compile_opts.cbs, "a CB's format, INDEX=FORMAT or all=FORMAT (repeatable)")
      ->allow_extra_args(false);
  compile->add_flag("--fp32-dest-acc", compile_opts.fp32_dest_acc, "a compute kernel with fp32_dest_acc_en");
  compile->add_flag("--bound", compile_opts.bound,
                    "a kernel with named bindings (args::, dfb::, ...), even with none of the options below");
  compile->add_option("--rta", compile_opts.runtime_args, "named runtime arguments args::NAME, comma-separated");
  compile->add_option("--crta", compile_opts.common_runtime_args,
                      "named common runtime arguments args::NAME, comma-separated");
  compile->add_option("--dfb", compile_opts.dataflow_buffers, "a dataflow buffer dfb::NAME=CB index (repeatable)")
      ->allow_extra_args(false);
  compile->add_option("--sem", compile_opts.semaphores, "a semaphore sem::NAME=id (repeatable)")
      ->allow_extra_args(false);
  compile
      ->add_option("--tensor", compile_opts.tensors,
                   "a tensor tensor::NAME=offset of its TensorAccessorArgs in --ct-args (repeatable)")
      ->allow_extra_args(false);
  compile
      ->add_option("--scratch", compile_opts.scratchpads,
                   "a scratchpad scratch::NAME=bytes per core, or NAME=bytes:FORMAT (repeatable)")
      ->allow_extra_args(false);

  CLI11_PARSE(app, argc, argv);
  try {
    if (*info) return cmd_info(info_arch);
    if (*compile) return tessel::tools::run_compile(compile_opts);
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
    if (*stats) return cmd_stats(stats_path, stats_waits);
    if (*runner_list) {
      std::printf(
          "operations with a compiled-in factory (tessel runner emit <example> <dir>; tessel runner run <dir>):\n");
      for (const auto& x : tessel::examples::all_example_operations())
        std::printf("  %-29s example %s\n", x.operation, x.example);
      return 0;
    }
    if (*runner_emit) return cmd_runner_emit(runner_example, runner_dir);
    if (*run || *runner_run) {
      const std::string& g = *run ? grid : runner_grid;
      tessel::examples::RunOptions& o = *run ? run_opts : runner_opts;
      if (!g.empty()) {
        unsigned gx = 0, gy = 0;
        if (std::sscanf(g.c_str(), "%ux%u", &gx, &gy) != 2) {
          std::fprintf(stderr, "tessel %s: --grid '%s' is not of the form XxY\n", *run ? "run" : "runner run",
                       g.c_str());
          return 2;
        }
        o.grid_x = gx;
        o.grid_y = gy;
      }
      if (*run) {
        const char* env_mesh = std::getenv("TESSEL_MESH");
        const std::string m = !mesh.empty() ? mesh : env_mesh ? env_mesh : "";
        unsigned rows = 0, cols = 0;
        char tail = 0;
        if (!m.empty() && (std::sscanf(m.c_str(), "%ux%u%c", &rows, &cols, &tail) != 2 || rows == 0 || cols == 0)) {
          std::fprintf(stderr, "tessel run: %s '%s' is not a mesh of the form RxC (rows x columns, e.g. 2x4)\n",
                       mesh.empty() ? "TESSEL_MESH" : "--mesh", m.c_str());
          return 2;
        }
        o.mesh_rows = rows;
        o.mesh_cols = cols;
        o.mesh_flag = !mesh.empty();
        set_trace_options("run", trace_path, trace_ring);
      }
      if (*run && !noc_mode.empty()) {
        if (noc_mode != "eager" && noc_mode != "checked")
          throw tessel::ValidationError("run --noc '" + noc_mode + "' is not valid: expected eager or checked");
        setenv("TESSEL_NOC", noc_mode.c_str(), 1); // every device the example opens
      }
      // --timing is TESSEL_TIMING=1; either way the run prints the estimate.
      if (*run && run_timing) setenv("TESSEL_TIMING", "1", 1);
      if (*run && !run_timing) {
        const char* timing = std::getenv("TESSEL_TIMING");
        run_timing = timing && std::string(timing) == "1";
      }
      const int status = *run ? cmd_run(example, o, run_timing) : cmd_runner_run(runner_dir, o);
      if (tessel::Ranks* ranks = tessel::Ranks::started()) ranks->finalize();
      return status;
    }
  } catch (const std::exception& e) { // a tessel::Error, or e.g. a benchmark whose reference library is missing
    return report_error(e.what());
  }
  return 0;
}
