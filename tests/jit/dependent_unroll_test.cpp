// Kernels whose `#pragma GCC unroll` count depends on a template parameter:
// g++ before 14 refuses them, and the JIT builds them again without those
// pragmas (compiler.cpp). The kernel still runs, its headers are still
// tracked by the cache, and a real error in such a kernel is still reported.
#include "kernel_cache_fixture.hpp"

#include "tessel/error.hpp"

namespace tessel::jit {
namespace {

// A header in the kernel's own tree holds the pragma, as conv's readers do.
constexpr const char* kUnrollHeader = "#pragma once\n"
                                      "#include <stdint.h>\n"
                                      "template <uint32_t N>\n"
                                      "uint32_t sum_to() {\n"
                                      "  uint32_t total = 0;\n"
                                      "#pragma GCC unroll N\n"
                                      "  for (uint32_t i = 1; i <= N; ++i) total += i;\n"
                                      "  return total;\n"
                                      "}\n";

TEST_F(KernelCacheTest, TemplateDependentUnrollCountBuildsAndRuns) {
  fs::path header = root_ / "include" / "unrolled.h";
  write_text(header, kUnrollHeader);
  BuildRequest request = request_for("unrolled.cpp", "#include \"" + header.string() +
                                                         "\"\n"
                                                         "uint32_t result;\n"
                                                         "void kernel_main() {\n"
                                                         "#pragma GCC unroll 4\n"
                                                         "  for (int i = 0; i < 3; ++i) result += 1;\n"
                                                         "  result += sum_to<10>() * 1000;\n"
                                                         "}\n");
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<uint32_t>(entry, "result"), nullptr);
  EXPECT_EQ(*global_of<uint32_t>(entry, "result"), 55003u);
  // The depfile came from the real sources, so the header is tracked.
  EXPECT_NE(read_text(entry_dir(*binary) / "deps.txt").find(header.string()), std::string::npos);
  // No preprocessed temporary is left behind.
  for (const auto& file : fs::recursive_directory_iterator(cache_dir_))
    EXPECT_EQ(file.path().string().find(".ii"), std::string::npos) << file.path();
}

TEST_F(KernelCacheTest, ErrorInAKernelWithTemplateDependentUnrollNamesItsLine) {
  fs::path header = root_ / "include" / "unrolled.h";
  write_text(header, kUnrollHeader);
  BuildRequest request = request_for("broken_unrolled.cpp", "#include \"" + header.string() +
                                                                "\"\n"
                                                                "void kernel_main() {\n"
                                                                "  uint32_t x = sum_to<3>();\n"
                                                                "  undeclared_call(x);\n"
                                                                "}\n");
  KernelCache cache(cache_dir_);
  try {
    cache.build(request);
    FAIL() << "expected a compile error";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("broken_unrolled.cpp:4"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_call"), std::string::npos) << message;
    EXPECT_EQ(message.find("pragma GCC unroll"), std::string::npos) << message;
  }
}

} // namespace
} // namespace tessel::jit
