// What the runner tests share: file helpers and a scratch directory per test.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tessel::test {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Everything in a directory, concatenated (what "the artifact" holds).
inline std::string artifact_text(const fs::path& dir) {
  std::string all;
  for (const auto& e : fs::directory_iterator(dir))
    all += read_text(e.path());
  return all;
}

// The entries of a directory, by name.
inline std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh scratch directory per test, removed afterwards.
class RunnerTest : public testing::Test {
protected:
  fs::path scratch;
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    scratch = fs::path(testing::TempDir()) /
              ("tessel-runner-test-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(scratch);
    fs::create_directories(scratch);
  }
  void TearDown() override { fs::remove_all(scratch); }
};

} // namespace tessel::test
