// Tests of the walk over a kernel's own headers (src/jit/kernel_scan.cpp),
// and of the flags that depend on what it finds (cache_key.cpp).
#include "jit/kernel_scan.hpp"

#include "jit/cache_key.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tessel::jit {
namespace {

namespace fs = std::filesystem;

struct Tree {
  fs::path root;
  Tree() {
    std::string pattern = (fs::temp_directory_path() / "tessel-kernel-scan-test-XXXXXX").string();
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    root = pattern;
  }
  ~Tree() { fs::remove_all(root); }
  void write(const std::string& path, const std::string& text) const {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  std::string dir(const std::string& path) const { return (root / path).string(); }
};

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(KernelScanTest, FollowsTheKernelsOwnHeadersButNotTheKernelApi) {
  Tree t;
  t.write("api/api_header.h", "API_MARK\n");
  t.write("kernel/helper.hpp", "#include \"detail/deep.hpp\"\nHELPER_MARK\n");
  t.write("kernel/detail/deep.hpp", "  #  include \"../helper.hpp\"\nDEEP_MARK\n"); // a cycle
  t.write("lib/shared.hpp", "SHARED_MARK\n#include <cstdint>\n");
  t.write("lib/api_header.h", "SHADOWED_MARK\n");
  const std::string source = "#include \"helper.hpp\"\n#include <shared.hpp>\n#include \"api_header.h\"\n"
                             "#include \"missing.hpp\"\n";
  const std::string text = kernel_own_text(source, t.dir("kernel"), {t.dir("lib")}, t.dir("api"));
  EXPECT_TRUE(has(text, "HELPER_MARK") && has(text, "DEEP_MARK")) << "quoted includes beside the including file";
  EXPECT_TRUE(has(text, "SHARED_MARK")) << "angle includes from the include directories";
  EXPECT_FALSE(has(text, "API_MARK")) << "the kernel API is not the kernel's";
  EXPECT_FALSE(has(text, "SHADOWED_MARK")) << "the compiler finds the API's header first";
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("HELPER_MARK"), 1u) << "each header once, though they include each other";
  EXPECT_EQ(count("DEEP_MARK"), 1u);
}

TEST(KernelScanTest, NamesInOwnHeadersDecideTheFlags) {
  Tree t;
  t.write("kernel/sizes.hpp", "constexpr uint32_t bytes = get_tile_size(0);\n");
  t.write("kernel/formats.hpp", "constexpr auto f = unpack_src_format[0];\n");
  t.write("kernel/arrays.hpp", "std::array<uint32_t, 2> a;\n");
  BuildRequest request;
  request.source_path = t.dir("kernel/k.cpp");
  request.cb_tile_sizes = std::vector<uint32_t>(64, 2048);
  request.cb_data_formats = std::vector<uint8_t>(64, 5);
  const auto flags_of = [&](const std::string& include) {
    const std::string text = kernel_own_text("#include \"" + include + "\"\n", t.dir("kernel"), {}, t.dir("api"));
    std::string all;
    for (const std::string& flag : request_flags(request, text))
      all += flag + " ";
    return all;
  };
  std::string flags = flags_of("sizes.hpp");
  EXPECT_TRUE(has(flags, "-DTESSEL_CB_TILE_SIZES=2048,")) << flags;
  EXPECT_FALSE(has(flags, "TESSEL_CB_DATA_FORMATS")) << flags;
  flags = flags_of("formats.hpp");
  EXPECT_TRUE(has(flags, "-DTESSEL_CB_DATA_FORMATS=5,5,")) << flags;
  EXPECT_TRUE(has(flags, "-DTESSEL_CB_TILE_SIZES=")) << "unpack_tile_size comes from the tile sizes: " << flags;
  t.write("kernel/tuples.hpp", "auto any = make_abstract_tensor_accessor_wrappers(accessors);\n");
  flags = flags_of("tuples.hpp");
  EXPECT_TRUE(has(flags, "-DTESSEL_KERNEL_STD=1")) << "the accessor tuples are std::tuple: " << flags;
  flags = flags_of("arrays.hpp");
  EXPECT_TRUE(has(flags, "-DTESSEL_KERNEL_STD=1")) << flags;
  EXPECT_FALSE(has(flags, "TESSEL_CB_")) << flags;
  flags = flags_of("nothing.hpp");
  EXPECT_FALSE(has(flags, "TESSEL_CB_") || has(flags, "TESSEL_KERNEL_STD")) << flags;
}

} // namespace
} // namespace tessel::jit
