// Declarative programs (make_program) and the structural program cache:
// a descriptor builds and runs like the imperative calls; a cache hit
// re-applies every dispatch word (never the previous dispatch's); fresh
// buffer addresses keep one entry; a different define, compile arg, core set
// or runtime-argument length makes a new entry; an invalid descriptor caches
// nothing; clear() empties it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/ops_kernel.hpp"
#include "tessel/program_cache.hpp"
#include "tessel/program_descriptor.hpp"

namespace tessel::test {
namespace {

// Each core writes its runtime-arg words (+ ECHO_BIAS) and the value of
// semaphore ECHO_SEM to the recorder: args [slot, n, v0 .. vn-1]; common
// args [recorder x, recorder y, recorder address].
const char* const kEchoSource = R"KERNEL(#include "api/dataflow/dataflow_api.h"
#ifndef ECHO_BIAS
#define ECHO_BIAS 0
#endif
void kernel_main() {
  const uint32_t x = get_common_arg_val<uint32_t>(0), y = get_common_arg_val<uint32_t>(1);
  const uint32_t addr = get_common_arg_val<uint32_t>(2);
  const uint32_t slot = get_arg_val<uint32_t>(0), n = get_arg_val<uint32_t>(1);
  for (uint32_t i = 0; i < n; ++i)
    noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * (slot + i)), get_arg_val<uint32_t>(2 + i) + ECHO_BIAS);
#ifdef ECHO_SEM
  noc_inline_dw_write(get_noc_addr(x, y, addr + 4 * (slot + n)), *reinterpret_cast<volatile uint32_t*>(get_semaphore(ECHO_SEM)));
#endif
  noc_async_write_barrier();
}
)KERNEL";

class ProgramCacheTest : public testing::Test {
protected:
  void SetUp() override { device_ = open_device("blackhole", 2, 1); }

  // An echo kernel on cores (0,0) .. (words.size() - 1, 0): core c writes `words[c]` at slot 16 * c.
  ProgramDescriptor echo(const Recorder& rec, const std::vector<std::vector<uint32_t>>& words) const {
    KernelDescriptor k;
    k.kernel_source = kEchoSource;
    k.source_type = KernelDescriptor::SourceType::SOURCE_CODE;
    k.core_ranges = CoreRange({0, 0}, {uint32_t(words.size()) - 1, 0});
    for (uint32_t c = 0; c < words.size(); ++c) {
      std::vector<uint32_t> args = {16 * c, uint32_t(words[c].size())};
      args.insert(args.end(), words[c].begin(), words[c].end());
      k.runtime_args.emplace_back(CoreCoord{c, 0}, args);
    }
    k.common_runtime_args = {rec.noc.x, rec.noc.y, rec.buffer->address()};
    ProgramDescriptor d;
    d.kernels.push_back(k);
    return d;
  }

  // Runs the descriptor through the device's cache; returns whether it hit.
  bool run(const ProgramDescriptor& d) {
    bool hit = false;
    Program& p = device_->program_cache().get(d, &hit);
    device_->command_queue().enqueue_program(p);
    return hit;
  }

  std::shared_ptr<Device> device_;
};

TEST_F(ProgramCacheTest, DescriptorBuildsCbsSemaphoresWithGapsAndKernels) {
  Recorder rec(device_);
  ProgramDescriptor d = echo(rec, {{5, 6}, {7}});
  d.kernels[0].defines = {{"ECHO_SEM", "3"}};
  d.semaphores = {{3, CoreRange({0, 0}, {1, 0}), 42}};
  d.cbs = {{4096, CoreRange({0, 0}, {1, 0}), {{0, DataFormat::Float16_b, 2048}, {24, DataFormat::Float16_b, 2048}}}};
  Program p = make_program(d);
  device_->command_queue().enqueue_program(p);
  const auto w = rec.read();
  EXPECT_EQ(w[0], 5u);
  EXPECT_EQ(w[1], 6u);
  EXPECT_EQ(w[2], 42u); // semaphore id 3 on core (0,0)
  EXPECT_EQ(w[16], 7u);
  EXPECT_EQ(w[17], 42u);
  EXPECT_EQ(p.num_kernels(), 1u);
}

TEST_F(ProgramCacheTest, HitReappliesEveryDispatchWord) {
  Recorder rec(device_);
  EXPECT_FALSE(run(echo(rec, {{1, 2, 3}, {4}})));
  EXPECT_EQ(rec.at(0), 1u);
  rec.clear();
  EXPECT_TRUE(run(echo(rec, {{10, 20, 30}, {40}})));
  const auto w = rec.read();
  EXPECT_EQ(w[0], 10u);
  EXPECT_EQ(w[1], 20u);
  EXPECT_EQ(w[2], 30u);
  EXPECT_EQ(w[16], 40u);
  EXPECT_EQ(device_->program_cache().entries(), 1u);
  EXPECT_EQ(device_->program_cache().hits(), 1u);
  EXPECT_EQ(device_->program_cache().misses(), 1u);
}

TEST_F(ProgramCacheTest, FreshBufferAddressesKeepOneEntry) {
  for (uint32_t i = 0; i < 6; ++i) {
    Recorder rec(device_); // a new L1 buffer each time: a new address in the common args
    run(echo(rec, {{i}, {100 + i}}));
    EXPECT_EQ(rec.at(0), i);
    EXPECT_EQ(rec.at(16), 100 + i);
  }
  EXPECT_EQ(device_->program_cache().entries(), 1u);
  EXPECT_EQ(device_->program_cache().hits(), 5u);
}

TEST_F(ProgramCacheTest, EachStructuralDifferenceIsAnEntry) {
  Recorder rec(device_);
  const ProgramDescriptor base = echo(rec, {{1, 2}, {3}});
  run(base);
  ProgramDescriptor define = base;
  define.kernels[0].defines = {{"ECHO_BIAS", "1000"}};
  EXPECT_FALSE(run(define));
  EXPECT_EQ(rec.at(0), 1001u); // the define reached the kernel
  ProgramDescriptor length = base;
  length.kernels[0].runtime_args[1].second = {16, 2, 3, 4}; // core (1,0): one more word
  EXPECT_FALSE(run(length));
  EXPECT_EQ(rec.at(17), 4u);
  ProgramDescriptor compile_arg = base;
  compile_arg.kernels[0].compile_time_args = {7};
  EXPECT_FALSE(run(compile_arg));
  ProgramDescriptor semaphore = base;
  semaphore.semaphores = {{0, CoreCoord{0, 0}, 1}};
  EXPECT_FALSE(run(semaphore));
  EXPECT_EQ(device_->program_cache().entries(), 5u);
  // Each again, with other words: all hits.
  for (const ProgramDescriptor* d :
       std::vector<const ProgramDescriptor*>{&base, &define, &length, &compile_arg, &semaphore})
    EXPECT_TRUE(run(*d));
  EXPECT_EQ(device_->program_cache().entries(), 5u);
  EXPECT_EQ(device_->program_cache().hits(), 5u);
  EXPECT_NE(ProgramCache::structural_key(base), ProgramCache::structural_key(length));
  ProgramDescriptor words = base;
  words.kernels[0].runtime_args[0].second[2] = 99;
  words.kernels[0].common_runtime_args[2] += 64;
  EXPECT_EQ(ProgramCache::structural_key(base), ProgramCache::structural_key(words));
}

TEST_F(ProgramCacheTest, InvalidDescriptorCachesNothing) {
  Recorder rec(device_);
  ProgramCache& cache = device_->program_cache();
  ProgramDescriptor twice = echo(rec, {{1}, {2}});
  twice.kernels[0].runtime_args[1].first = CoreCoord{0, 0};
  EXPECT_EQ(error_from<ValidationError>([&] { cache.get(twice); }),
            "make_program: kernels[0]: runtime_args: core (0,0) appears twice; give each core one vector");
  ProgramDescriptor outside = echo(rec, {{1}});
  outside.kernels[0].core_ranges = CoreCoord{1, 0};
  EXPECT_EQ(error_from<ValidationError>([&] { cache.get(outside); }),
            "make_program: kernels[0]: runtime_args: core (0,0) is not one of the kernel's cores {(1,0)}");
  ProgramDescriptor sems = echo(rec, {{1}});
  sems.semaphores = {{2, CoreCoord{0, 0}, 0}, {2, CoreCoord{1, 0}, 0}};
  EXPECT_EQ(error_from<ValidationError>([&] { cache.get(sems); }),
            "make_program: semaphores[1]: add_semaphore: semaphore id 2 is already used in this program (on cores "
            "{(0,0)})");
  ProgramDescriptor cbs = echo(rec, {{1}});
  cbs.cbs = {{4096, CoreCoord{0, 0}, {{3, DataFormat::Float16_b, 2048}, {3, DataFormat::Float32, 4096}}}};
  EXPECT_EQ(error_from<ValidationError>([&] { cache.get(cbs); }),
            "make_program: cbs[0]: buffer_index 3 appears twice in format_descriptors");
  ProgramDescriptor broken = echo(rec, {{1}});
  broken.kernels[0].kernel_source = "void kernel_main() { this does not compile; }\n";
  EXPECT_THROW(cache.get(broken), ProgramError);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.misses(), 0u);
  EXPECT_EQ(cache.hits(), 0u);
  // The cache and the device still work.
  EXPECT_FALSE(run(echo(rec, {{8}})));
  EXPECT_EQ(rec.at(0), 8u);
}

// A compute kernel that builds only when the descriptor's build options reach
// it: bfp8_pack_precise and enable_trisc2_rvv as defines, opt_level as the
// compiler's flag (-Os defines __OPTIMIZE_SIZE__).
const char* const kOptionsSource =
    R"KERNEL(#if EXPECT_SET != TESSEL_BFP8_PACK_PRECISE + 0 || EXPECT_SET != TESSEL_TRISC2_RVV + 0
#error the compute options did not reach the kernel
#endif
#if EXPECT_SET && !defined(__OPTIMIZE_SIZE__)
#error the kernel was not built at Os
#endif
void kernel_main() {}
)KERNEL";

TEST_F(ProgramCacheTest, ComputeBuildOptionsReachTheKernelAndKeyTheEntry) {
  Recorder rec(device_);
  ProgramCache& cache = device_->program_cache();
  for (bool set : {true, false}) {
    ProgramDescriptor d = echo(rec, {{5}});
    KernelDescriptor compute;
    compute.kernel_source = kOptionsSource;
    compute.source_type = KernelDescriptor::SourceType::SOURCE_CODE;
    compute.core_ranges = CoreCoord{0, 0};
    compute.defines = {{"EXPECT_SET", set ? "1" : "0"}};
    compute.opt_level = set ? kOptLevelOs : -1;
    compute.config = ComputeConfigDescriptor{.bfp8_pack_precise = set, .enable_trisc2_rvv = set};
    d.kernels.push_back(compute);
    EXPECT_FALSE(run(d)) << "bfp8_pack_precise and enable_trisc2_rvv " << set;
    EXPECT_EQ(rec.at(0), 5u);
  }
  // The options alone key an entry apart.
  ProgramDescriptor d = echo(rec, {{6}});
  KernelDescriptor compute;
  compute.kernel_source = "void kernel_main() {}\n";
  compute.source_type = KernelDescriptor::SourceType::SOURCE_CODE;
  compute.core_ranges = CoreCoord{0, 0};
  compute.config = ComputeConfigDescriptor{};
  d.kernels.push_back(compute);
  EXPECT_FALSE(run(d));
  std::get<ComputeConfigDescriptor>(d.kernels[1].config).enable_trisc2_rvv = true;
  EXPECT_FALSE(run(d));
  std::get<ComputeConfigDescriptor>(d.kernels[1].config).bfp8_pack_precise = true;
  EXPECT_FALSE(run(d));
  EXPECT_TRUE(run(d));
  EXPECT_EQ(cache.entries(), 5u);
}

TEST_F(ProgramCacheTest, ClearEmptiesAndZeroes) {
  Recorder rec(device_);
  run(echo(rec, {{1}}));
  run(echo(rec, {{2}}));
  ProgramCache& cache = device_->program_cache();
  cache.clear();
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.hits(), 0u);
  EXPECT_EQ(cache.misses(), 0u);
  EXPECT_FALSE(run(echo(rec, {{3}})));
  EXPECT_EQ(rec.at(0), 3u);
}

TEST_F(ProgramCacheTest, EraseDropsOneStructure) {
  Recorder rec(device_);
  run(echo(rec, {{1}}));
  run(echo(rec, {{1, 2}}));
  ProgramCache& cache = device_->program_cache();
  const uint64_t generation = cache.generation();
  EXPECT_TRUE(cache.erase(echo(rec, {{7}}))); // the first structure (words are not structure)
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_NE(cache.generation(), generation);
  EXPECT_FALSE(cache.erase(echo(rec, {{7}})));
  EXPECT_FALSE(run(echo(rec, {{3}}))); // built again
  EXPECT_EQ(rec.at(0), 3u);
  EXPECT_TRUE(run(echo(rec, {{4, 5}}))); // the other entry stayed
  EXPECT_EQ(rec.at(1), 5u);
}

} // namespace
} // namespace tessel::test
