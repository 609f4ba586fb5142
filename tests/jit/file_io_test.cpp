// Tests of the kernel cache's file helpers (src/jit/file_io.cpp): the
// temporary names it makes, recognises and clears.
#include "jit/file_io.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace tessel::jit {
namespace {

namespace fs = std::filesystem;

TEST(FileIoTest, TempNamesAreRecognised) {
  std::string made = fs::path(temp_name_for("/cache/entry/kernel.so")).filename().string();
  EXPECT_EQ(made.rfind("kernel.so.tmp-" + std::to_string(::getpid()) + "-", 0), 0u) << made;
  EXPECT_TRUE(is_temp_name(made));
  for (const char* name : {"kernel.so.tmp-1-0", "key.txt.tmp-999999999-12", "x.tmp-0-0"})
    EXPECT_TRUE(is_temp_name(name)) << name;
  for (const char* name :
       {"kernel.so", "key.txt", ".tmp-1-0", "kernel.so.tmp-1-", "kernel.so.tmp--0", "kernel.so.tmp-1",
        "kernel.so.tmp-a-0", "kernel.so.tmp-1-0x", "kernel.so.tmp1-0", "kernel.sotmp-1-0", "", "-0", "1-0", "tmp-1-0"})
    EXPECT_FALSE(is_temp_name(name)) << name;
}

TEST(FileIoTest, RemoveTempFilesRemovesOnlyTemporaries) {
  std::string pattern = (fs::temp_directory_path() / "tessel-file-io-test-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  fs::path dir = pattern;
  for (const char* name : {"kernel.so", "kernel.so.tmp-7-0", "deps.txt.tmp-8-3", "notes.tmp-x", "key.txt"})
    std::ofstream(dir / name) << "x";
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "kernel.so.tmp-7-1") << "x";
  remove_temp_files(dir.string());
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kernel.so", "key.txt", "notes.tmp-x", "sub"}));
  EXPECT_TRUE(fs::exists(dir / "sub" / "kernel.so.tmp-7-1")); // not recursive
  remove_temp_files((dir / "no-such-directory").string());    // ignored
  fs::remove_all(dir);
}

} // namespace
} // namespace tessel::jit
