// Kernel optimisation levels (cache_key.hpp): each of the seven is the
// compiler's own flag, recorded in the cache key by name, and an entry of its
// own.
#include "jit/cache_key.hpp"
#include "kernel_cache_fixture.hpp"

#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace tessel::jit {
namespace {

// Each opt level is the compiler's own flag: the key records it, and the
// compiler's predefined macros show what it was given (GCC and Clang:
// __OPTIMIZE__ from -O1 up, __OPTIMIZE_SIZE__ for -Os and -Oz, __FAST_MATH__
// for -Ofast, __NO_INLINE__ at -O0).
TEST_F(KernelCacheTest, EveryOptLevelIsTheCompilersFlag) {
  const std::string source = "#include <stdint.h>\n"
                             "uint32_t flags;\n"
                             "void kernel_main() {\n"
                             "#ifdef __OPTIMIZE__\n  flags |= 1;\n#endif\n"
                             "#ifdef __OPTIMIZE_SIZE__\n  flags |= 2;\n#endif\n"
                             "#ifdef __FAST_MATH__\n  flags |= 4;\n#endif\n"
                             "#ifdef __NO_INLINE__\n  flags |= 8;\n#endif\n"
                             "}\n";
  struct Level {
    const char* name;
    uint32_t flags;
  };
  const Level levels[] = {{"O0", 8}, {"O1", 1}, {"O2", 1}, {"O3", 1}, {"Os", 3}, {"Ofast", 5}, {"Oz", 3}};
  KernelCache cache(cache_dir_);
  std::vector<std::shared_ptr<KernelBinary>> binaries;
  for (int level = 0; level < int(std::size(levels)); ++level) {
    const std::string name = levels[level].name;
    BuildRequest request = request_for("levels.cpp", source);
    request.opt_level = level;
    EXPECT_EQ(opt_level_name(level), name);
    EXPECT_EQ(opt_level_of_name(name), level);
    auto binary = cache.build(request);
    binaries.push_back(binary);
    const std::string key = read_text(entry_dir(*binary) / "key.txt");
    EXPECT_NE(key.find("opt-level: " + name + "\n"), std::string::npos) << key;
    EXPECT_NE(key.find("arg: -" + name + "\n"), std::string::npos) << key;
    auto entry = binary->instance(0);
    EXPECT_EQ(entry(), 0);
    ASSERT_NE(global_of<uint32_t>(entry, "flags"), nullptr);
    EXPECT_EQ(*global_of<uint32_t>(entry, "flags"), levels[level].flags) << name;
  }
  EXPECT_EQ(cache.stats().compiles, std::size(levels)); // each level is an entry of its own
  EXPECT_EQ(entry_count(), std::size(levels));
  EXPECT_EQ(opt_level_of_name("O4"), -1);
}

} // namespace
} // namespace tessel::jit
