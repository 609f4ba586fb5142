// Tests of loading kernel binaries (src/jit/kernel_binary.cpp), through the
// cache: per-core copies of kernels with mutable globals, one shared load
// for kernels without, the entry and ABI checks, and the per-process
// directory of copies.
#include "kernel_cache_fixture.hpp"
#include "tessel/error.hpp"

#include <string>
#include <thread>
#include <vector>

namespace tessel::jit {
namespace {

TEST_F(KernelCacheTest, MutableGlobalsAreCopiedPerCore) {
  BuildRequest request = request_for("counter.cpp", "int counter;\n"
                                                    "int bump() { static int calls; return ++calls; }\n"
                                                    "void kernel_main() { counter += 1; bump(); }\n");
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  EXPECT_EQ(binary->mutable_symbols(), (std::vector<std::string>{"bump()::calls", "counter"}));

  auto core0 = binary->instance(0);
  auto core1 = binary->instance(1);
  EXPECT_NE(core0, core1);
  EXPECT_EQ(binary->instance(0), core0);
  EXPECT_EQ(core0(), 0);
  EXPECT_EQ(core0(), 0);
  EXPECT_EQ(core1(), 0);
  ASSERT_NE(global_of<int>(core0, "counter"), nullptr);
  ASSERT_NE(global_of<int>(core1, "counter"), nullptr);
  EXPECT_EQ(*global_of<int>(core0, "counter"), 2);
  EXPECT_EQ(*global_of<int>(core1, "counter"), 1);

  // A second binary of the same kernel (another device, say) has its own copies.
  KernelCache other(cache_dir_);
  auto other_binary = other.build(request); // entries live as long as their binary
  auto other_core0 = other_binary->instance(0);
  EXPECT_NE(other_core0, core0);
  EXPECT_EQ(other_core0(), 0);
  EXPECT_EQ(*global_of<int>(other_core0, "counter"), 1);
  EXPECT_EQ(*global_of<int>(core0, "counter"), 2);
}

TEST_F(KernelCacheTest, CoreCopiesLoadConcurrently) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  constexpr uint32_t kCores = 16;
  std::vector<KernelBinary::EntryFn> entries(kCores * 2);
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < entries.size(); ++i)
    threads.emplace_back([&, i] { entries[i] = binary->instance(i % kCores); });
  for (auto& thread : threads)
    thread.join();
  for (uint32_t core = 0; core < kCores; ++core) {
    EXPECT_EQ(entries[core], entries[core + kCores]);
    for (uint32_t other = core + 1; other < kCores; ++other)
      EXPECT_NE(entries[core], entries[other]);
  }
}

TEST_F(KernelCacheTest, KernelWithoutGlobalsSharesOneEntry) {
  BuildRequest request = request_for("pure.cpp", "const int kTable[] = {1, 2, 3};\n"
                                                 "int sum() { int s = 0; for (int v : kTable) s += v; return s; }\n"
                                                 "void kernel_main() { (void)sum(); }\n");
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  EXPECT_TRUE(binary->mutable_symbols().empty());
  EXPECT_EQ(binary->instance(0), binary->instance(7));
  EXPECT_EQ(binary->instance(0)(), 0);
}

TEST_F(KernelCacheTest, BinaryWithoutEntryOrWithAnotherAbiIsRejected) {
  BuildRequest request = request_for("k.cpp", kEmptyKernel);
  {
    write_text(root_ / "no_entry" / "tessel" / "kernel_prelude.h", "void kernel_main();\n");
    ScopedEnv include_dir("TESSEL_KERNEL_INCLUDE_DIR", (root_ / "no_entry").string());
    KernelCache cache(cache_dir_);
    try {
      cache.build(request);
      FAIL() << "expected ProgramError";
    } catch (const ProgramError& error) {
      EXPECT_NE(std::string(error.what()).find("does not define tessel_kernel_entry"), std::string::npos)
          << error.what();
    }
  }
  {
    write_text(root_ / "other_abi" / "tessel" / "kernel_prelude.h",
               "extern \"C\" const unsigned tessel_kernel_abi_version = 999;\n"
               "extern \"C\" int tessel_kernel_entry() { return 0; }\n");
    ScopedEnv include_dir("TESSEL_KERNEL_INCLUDE_DIR", (root_ / "other_abi").string());
    KernelCache cache(cache_dir_);
    try {
      cache.build(request);
      FAIL() << "expected ProgramError";
    } catch (const ProgramError& error) {
      EXPECT_NE(std::string(error.what()).find("kernel ABI version 999"), std::string::npos) << error.what();
    }
  }
}

TEST_F(KernelCacheTest, InstanceCopiesAreRemovedWithTheCache) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  fs::path left_by_dead_process = fs::path(cache_dir_) / "instances" / "999999999-abcdef"; // above any pid_max
  write_text(left_by_dead_process / "core0.so", "stale");
  {
    KernelCache cache(cache_dir_);
    auto binary = cache.build(request);
    binary->instance(3);
    EXPECT_FALSE(fs::exists(left_by_dead_process));
    size_t copies = 0;
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(cache_dir_) / "instances"))
      if (entry.is_regular_file()) ++copies;
    EXPECT_EQ(copies, 1u);
  }
  EXPECT_TRUE(fs::is_empty(fs::path(cache_dir_) / "instances"));
}

} // namespace
} // namespace tessel::jit
