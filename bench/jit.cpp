// jit: the three costs of getting a kernel binary: a cold compile, a hit in
// the on-disk cache (fresh process state), and a hit in the in-process memo;
// and the share of a disk hit spent hashing kernel.so against its record.
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
} // namespace

void run_jit() {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "tessel-bench-jit-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::printf("jit_error cannot create a temporary directory\n");
    return;
  }
  const int kernels = 7;
  std::vector<jit::BuildRequest> requests;
  for (int i = 0; i < kernels; ++i) {
    jit::BuildRequest r;
    r.source_text = kReader;
    r.display_name = "bench_reader.cpp";
    r.compile_args = {2, 2048};
    r.defines = {{"BENCH_VARIANT", std::to_string(i)}};
    requests.push_back(r);
  }
  std::vector<double> cold, warm;
  {
    jit::KernelCache cache(tmpl);
    for (auto& r : requests) {
      auto t0 = Clock::now();
      cache.build(r);
      cold.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
  }
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
