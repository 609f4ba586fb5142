// jit: the three costs of getting a kernel binary: a cold compile, a hit in
// the on-disk cache (fresh process state), and a hit in the in-process memo;
// and the share of a disk hit spent hashing kernel.so against its record.
// Cold compiles are measured for a reader and for a compute kernel, each
// with the implicit prelude; beside them the same g++ compiling and linking
// a shared object from a source with no includes at all (the process and
// link floor at this moment), and the ratio of each cold compile to it, the
// figure that stays put on a loaded machine.
// Runs in a private temporary cache directory.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "jit/cache_key.hpp"
#include "jit/compiler.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_build.hpp"

namespace tessel::bench {

namespace {
using Clock = std::chrono::steady_clock;

constexpr const char* kReader = R"(
#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t count = get_arg_val<uint32_t>(1);
  constexpr auto args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(args, src_addr, get_tile_size(0));
  for (uint32_t i = 0; i < count; ++i) {
    cb_reserve_back(0, 1);
    noc_async_read_page(i, src, get_write_ptr(0));
    noc_async_read_barrier();
    cb_push_back(0, 1);
  }
}
)";

constexpr const char* kCompute = R"(
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_unary/exp.h"
void kernel_main() {
  const uint32_t count = get_compile_time_arg_val(0);
  init_sfpu(0, 16);
  exp_tile_init();
  for (uint32_t i = 0; i < count; ++i) {
    cb_wait_front(0, 1);
    tile_regs_acquire();
    copy_tile(0, 0, 0);
    exp_tile(0);
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(16, 1);
    pack_tile(0, 16);
    cb_push_back(16, 1);
    tile_regs_release();
    cb_pop_front(0, 1);
  }
}
)";

// A kernel-sized source that includes nothing.
constexpr const char* kPlain = R"(
extern "C" unsigned plain_kernel(const unsigned* args, unsigned n) {
  unsigned sum = 0;
  for (unsigned i = 0; i < n; ++i) sum += args[i] * (i + 1);
  return sum;
}
)";
} // namespace

void run_jit() {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "tessel-bench-jit-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::printf("jit_error cannot create a temporary directory\n");
    return;
  }
  const int kernels = 7;
  std::vector<jit::BuildRequest> requests, compute_requests;
  for (int i = 0; i < kernels; ++i) {
    jit::BuildRequest r;
    r.source_text = kReader;
    r.display_name = "bench_reader.cpp";
    r.compile_args = {2, 2048};
    r.defines = {{"BENCH_VARIANT", std::to_string(i)}};
    requests.push_back(r);
    r.source_text = kCompute;
    r.display_name = "bench_compute.cpp";
    r.kind = jit::KernelKind::Compute;
    r.compile_args = {4};
    compute_requests.push_back(r);
  }
  std::vector<double> cold, cold_compute, plain;
  // Interleaved, so that a change in the machine's load hits all three alike.
  const std::string plain_source = tmpl + "/plain.cpp", plain_output = tmpl + "/plain.so";
  jit::write_file_atomic(plain_source, kPlain);
  const std::string plain_command = jit::compiler_config_from_environment().cxx +
                                    " -std=c++20 -fPIC -shared -pipe -o '" + plain_output + "' '" + plain_source +
                                    "' >/dev/null 2>&1";
  {
    jit::KernelCache cache(tmpl);
    for (int i = 0; i < kernels; ++i) {
      auto t0 = Clock::now();
      cache.build(requests[size_t(i)]);
      cold.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      t0 = Clock::now();
      cache.build(compute_requests[size_t(i)]);
      cold_compute.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      t0 = Clock::now();
      if (std::system(plain_command.c_str()) != 0) {
        std::printf("jit_error the plain g++ compile failed: %s\n", plain_command.c_str());
        return;
      }
      plain.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
  std::vector<double> warm;
  {
    jit::KernelCache cache(tmpl);
    std::vector<std::shared_ptr<jit::KernelBinary>> held; // in use, as a program's plan holds them
    for (auto& r : requests) {
      auto t0 = Clock::now();
      held.push_back(cache.build(r));
      warm.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    const int memo_iterations = 200000;
    auto t0 = Clock::now();
    for (int i = 0; i < memo_iterations; ++i)
      cache.build(requests[size_t(i % kernels)]);
    double memo_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / memo_iterations;
    // What a disk hit adds to check kernel.so against key.txt: one content
    // hash over bytes it reads anyway.
    std::vector<double> hash_us;
    for (const auto& binary : held) {
      std::optional<std::string> bytes = jit::read_file(binary->so_path());
      if (!bytes) continue;
      const int hash_iterations = 200;
      size_t digits = 0;
      auto h0 = Clock::now();
      for (int i = 0; i < hash_iterations; ++i)
        digits += jit::content_hash(*bytes).size();
      hash_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - h0).count() / hash_iterations);
      if (digits == 0) std::printf("jit_error empty hash\n");
    }
    figure("jit_cold_compile_ms", median(cold), "ms");
    figure("jit_cold_compile_compute_ms", median(cold_compute), "ms");
    figure("gxx_plain_compile_ms", median(plain), "ms");
    figure("jit_cold_to_gxx_plain_ratio", median(cold) / median(plain), "x");
    figure("jit_cold_compute_to_gxx_plain_ratio", median(cold_compute) / median(plain), "x");
    figure("jit_disk_hit_ms", median(warm), "ms");
    figure("jit_memo_hit_us", memo_us, "us");
    figure("jit_cold_to_disk_hit_ratio", median(cold) / median(warm), "x");
    if (!hash_us.empty()) {
      figure("jit_disk_hit_binary_hash_us", median(hash_us), "us");
      figure("jit_disk_hit_binary_hash_share", 100.0 * median(hash_us) / (1000.0 * median(warm)), "%");
    }
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

} // namespace tessel::bench
