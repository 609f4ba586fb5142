// The fixture the kernel JIT tests share (kernel_cache_test.cpp,
// kernel_binary_test.cpp): a private cache directory per test, kernel
// sources written into it, and reading a loaded kernel's globals. Kernels
// here are tiny sources that need no simulator: calling tessel_kernel_entry
// directly is safe, and their globals are read back with dlsym on the loaded
// copy.
#pragma once

#include "jit/kernel_build.hpp"
#include "tessel/kernel_abi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace tessel::jit {

namespace fs = std::filesystem;

// Address of global `name` in the shared object that defines `entry`.
template <typename T>
T* global_of(KernelBinary::EntryFn entry, const char* name) {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(entry), &info) == 0) return nullptr;
  void* handle = ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* symbol = ::dlsym(handle, name);
  ::dlclose(handle); // the binary still holds its own reference
  return reinterpret_cast<T*>(symbol);
}

inline void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Sets an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

inline constexpr const char* kCounterKernel = "int counter;\nvoid kernel_main() { counter += 1; }\n";
inline constexpr const char* kEmptyKernel = "void kernel_main() {}\n";

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tessel-jit-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    cache_dir_ = (root_ / "cache").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string write_source(const std::string& name, const std::string& text) {
    fs::path path = root_ / "src" / name;
    write_text(path, text);
    return path.string();
  }

  BuildRequest request_for(const std::string& name, const std::string& text) {
    BuildRequest request;
    request.source_path = write_source(name, text);
    return request;
  }

  size_t entry_count() const {
    size_t count = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(cache_dir_) / std::to_string(TESSEL_KERNEL_ABI_VERSION)))
      if (entry.is_directory()) ++count;
    return count;
  }

  fs::path entry_dir(const KernelBinary& binary) const { return fs::path(binary.so_path()).parent_path(); }

  fs::path root_;
  std::string cache_dir_;
};

} // namespace tessel::jit
