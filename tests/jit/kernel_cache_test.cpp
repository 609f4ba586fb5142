// Tests of the kernel JIT cache (src/jit/kernel_cache.cpp): keys, the memo,
// the on-disk entries and their integrity, concurrent builds, compile errors.
// Loading and per-core copies are kernel_binary_test.cpp.
#include "jit/cache_key.hpp"
#include "kernel_cache_fixture.hpp"
#include "tessel/error.hpp"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tessel::jit {
namespace {

// The names in a directory, sorted.
std::vector<std::string> file_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// File offset and size of section `name` of a 64-bit ELF image ({0, 0} if absent).
std::pair<uint64_t, uint64_t> elf_section(const std::string& image, const std::string& name) {
  Elf64_Ehdr header{};
  if (image.size() < sizeof header) return {0, 0};
  std::memcpy(&header, image.data(), sizeof header);
  auto section = [&](size_t i) {
    Elf64_Shdr sh{};
    size_t at = header.e_shoff + i * header.e_shentsize;
    if (at + sizeof sh <= image.size()) std::memcpy(&sh, image.data() + at, sizeof sh);
    return sh;
  };
  Elf64_Shdr names = section(header.e_shstrndx);
  for (size_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr sh = section(i);
    if (names.sh_offset + sh.sh_name < image.size() && image.c_str() + names.sh_offset + sh.sh_name == name)
      return {sh.sh_offset, sh.sh_size};
  }
  return {0, 0};
}

TEST_F(KernelCacheTest, ColdBuildThenSecondCacheHitsDisk) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  {
    KernelCache cache(cache_dir_);
    auto binary = cache.build(request);
    EXPECT_EQ(cache.stats().compiles, 1u);
    EXPECT_EQ(cache.stats().disk_hits, 0u);
    EXPECT_EQ(binary->source_name(), request.source_path);
    EXPECT_TRUE(fs::exists(binary->so_path()));
    EXPECT_TRUE(fs::exists(entry_dir(*binary) / "key.txt"));
    EXPECT_TRUE(fs::exists(entry_dir(*binary) / "deps.txt"));
    EXPECT_EQ(binary->instance(0)(), 0);
  }
  KernelCache second(cache_dir_);
  auto binary = second.build(request);
  EXPECT_EQ(second.stats().compiles, 0u);
  EXPECT_EQ(second.stats().disk_hits, 1u);
  EXPECT_EQ(second.stats().memo_hits, 0u);
  EXPECT_EQ(binary->instance(0)(), 0);
}

TEST_F(KernelCacheTest, KeyAndDepsRecordTheInputs) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  request.defines = {{"ALPHA", "1"}};
  request.compile_args = {4, 5};
  request.named_compile_args = {{"k", 9}};
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  std::string key = read_text(entry_dir(*binary) / "key.txt");
  EXPECT_NE(key.find("arg: -DALPHA=1\n"), std::string::npos) << key;
  EXPECT_NE(key.find("arg: -DTESSEL_CTA_LIST=4,5\n"), std::string::npos) << key;
  EXPECT_NE(key.find("arg: -DTESSEL_NAMED_CTA_LIST={\"k\",9}\n"), std::string::npos) << key;
  EXPECT_NE(key.find("opt-level: O2\n"), std::string::npos) << key;
  EXPECT_NE(key.find("source-file: " + request.source_path + "\n"), std::string::npos) << key;
  std::string deps = read_text(entry_dir(*binary) / "deps.txt");
  EXPECT_NE(deps.find("tessel/kernel_prelude.h\n"), std::string::npos) << deps;
  EXPECT_NE(deps.find("tessel/kernel_abi.h\n"), std::string::npos) << deps;
  EXPECT_EQ(deps.find(request.source_path), std::string::npos) << deps; // the source is keyed by content already
  EXPECT_NE(key.find(deps), std::string::npos);
}

TEST_F(KernelCacheTest, RepeatedBuildIsAMemoHit) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  KernelCache cache(cache_dir_);
  auto first = cache.build(request);
  auto second = cache.build(request);
  EXPECT_EQ(first, second);
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(cache.stats().memo_hits, 1u);

  cache.clear_memo();
  auto third = cache.build(request);
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(cache.stats().disk_hits, 1u);
  EXPECT_EQ(cache.stats().memo_hits, 1u);
}

TEST_F(KernelCacheTest, EveryCompileTimeInputChangesTheKey) {
  BuildRequest base = request_for("counter.cpp", kCounterKernel);
  base.defines = {{"ALPHA", "1"}};
  base.compile_args = {1, 2};
  base.named_compile_args = {{"k", 3}};
  std::vector<BuildRequest> variants(6, base);
  variants[1].defines = {{"ALPHA", "2"}};
  variants[2].compile_args = {1, 3};
  variants[3].named_compile_args = {{"k", 4}};
  variants[4].opt_level = 0;
  variants[5].kind = KernelKind::Compute;

  KernelCache cache(cache_dir_);
  for (size_t i = 0; i < variants.size(); ++i) {
    cache.build(variants[i]);
    EXPECT_EQ(cache.stats().compiles, i + 1) << "variant " << i << " was not a miss";
  }
  EXPECT_EQ(entry_count(), variants.size());
  EXPECT_EQ(cache.stats().disk_hits, 0u);

  KernelCache fresh(cache_dir_); // every variant is now on disk
  for (const auto& variant : variants)
    fresh.build(variant);
  EXPECT_EQ(fresh.stats().compiles, 0u);
  EXPECT_EQ(fresh.stats().disk_hits, variants.size());
}

TEST_F(KernelCacheTest, EditedHeaderIsAMiss) {
  fs::path header = root_ / "include" / "value.h";
  write_text(header, "#define HEADER_VALUE 1\n");
  // No globals, so every core runs the one load of the published file.
  BuildRequest request =
      request_for("with_header.cpp", "#include \"" + header.string() +
                                         "\"\nextern \"C\" int header_value() { return HEADER_VALUE; }\n"
                                         "void kernel_main() {}\n");
  auto value_after_run = [](KernelBinary& binary) {
    EXPECT_TRUE(binary.mutable_symbols().empty());
    auto entry = binary.instance(0);
    EXPECT_EQ(entry(), 0);
    auto* header_value = global_of<int()>(entry, "header_value");
    return header_value != nullptr ? header_value() : -1;
  };

  KernelCache first(cache_dir_);
  auto v1 = first.build(request);
  EXPECT_EQ(value_after_run(*v1), 1);
  EXPECT_NE(read_text(entry_dir(*v1) / "deps.txt").find(header.string()), std::string::npos);

  write_text(header, "#define HEADER_VALUE 2\n");
  KernelCache second(cache_dir_);
  auto v2 = second.build(request);
  EXPECT_EQ(second.stats().compiles, 1u);
  EXPECT_EQ(second.stats().disk_hits, 0u);
  // The entry directory is the same (headers are not in the directory hash);
  // the process still has v1 loaded from that path and must not reuse it.
  EXPECT_EQ(v1->so_path(), v2->so_path());
  EXPECT_EQ(value_after_run(*v2), 2);

  // The first cache still remembers v1 until its memo is cleared.
  EXPECT_EQ(first.build(request), v1);
  first.clear_memo();
  auto v2_again = first.build(request);
  EXPECT_EQ(first.stats().compiles, 1u);
  EXPECT_EQ(first.stats().disk_hits, 1u);
  EXPECT_EQ(value_after_run(*v2_again), 2);

  write_text(header, "#define HEADER_VALUE 3\n");
  KernelCache third(cache_dir_);
  auto v3 = third.build(request);
  EXPECT_EQ(third.stats().compiles, 1u);
  EXPECT_EQ(value_after_run(*v3), 3);
  EXPECT_EQ(value_after_run(*v1), 1); // earlier binaries keep their own code
}

TEST_F(KernelCacheTest, CorruptEntriesAreRebuilt) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  fs::path dir;
  {
    KernelCache cache(cache_dir_);
    dir = entry_dir(*cache.build(request));
  } // unloads the kernel, so the next loads see the files as they are

  auto expect_rebuilt_and_working = [&](const char* what) {
    KernelCache cache(cache_dir_);
    auto binary = cache.build(request);
    EXPECT_EQ(cache.stats().compiles, 1u) << what;
    EXPECT_EQ(cache.stats().disk_hits, 0u) << what;
    auto entry = binary->instance(0);
    EXPECT_EQ(entry(), 0) << what;
    ASSERT_NE(global_of<int>(entry, "counter"), nullptr) << what;
    EXPECT_EQ(*global_of<int>(entry, "counter"), 1) << what;
  };

  fs::resize_file(dir / "kernel.so", fs::file_size(dir / "kernel.so") / 2);
  expect_rebuilt_and_working("truncated kernel.so");

  write_text(dir / "kernel.so", "not an ELF file");
  expect_rebuilt_and_working("garbage kernel.so");

  std::string key = read_text(dir / "key.txt");
  write_text(dir / "key.txt", key.substr(0, key.size() - 10));
  expect_rebuilt_and_working("truncated key.txt");

  write_text(dir / "deps.txt", "garbage\n");
  expect_rebuilt_and_working("garbage deps.txt");

  fs::remove(dir / "key.txt");
  expect_rebuilt_and_working("missing key.txt");

  fs::remove(dir / "kernel.so");
  expect_rebuilt_and_working("missing kernel.so");

  KernelCache healthy(cache_dir_);
  healthy.build(request);
  EXPECT_EQ(healthy.stats().disk_hits, 1u);
}

TEST_F(KernelCacheTest, KeyRecordsTheHashOfTheBinary) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  std::string key = read_text(entry_dir(*binary) / "key.txt");
  std::string line = "binary-hash: " + content_hash(read_text(binary->so_path())) + "\n";
  EXPECT_TRUE(key.ends_with(line)) << key;
  EXPECT_EQ(key.find("binary-hash: "), key.size() - line.size()) << key;
}

TEST_F(KernelCacheTest, SameSizeByteFlipInTheBinaryIsRebuiltAndReported) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  fs::path dir;
  {
    KernelCache cache(cache_dir_);
    dir = entry_dir(*cache.build(request));
  } // unloads the kernel, so the next load reads the file as it is

  // Flip one byte in the middle of .text, in place: same size, same inode.
  fs::path so = dir / "kernel.so";
  std::string image = read_text(so);
  auto [text_offset, text_size] = elf_section(image, ".text");
  ASSERT_GT(text_size, 0u);
  {
    std::fstream file(so, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(text_offset + text_size / 2));
    file.put(static_cast<char>(image[text_offset + text_size / 2] ^ 0xff));
  }
  std::string damaged = read_text(so);
  ASSERT_EQ(damaged.size(), image.size());
  ASSERT_NE(damaged, image);

  KernelCache cache(cache_dir_);
  ::testing::internal::CaptureStderr();
  auto binary = cache.build(request);
  std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(log, "tessel: kernel cache entry " + dir.string() + " of kernel " + request.source_path +
                     " was damaged (kernel.so does not match the content hash key.txt records); rebuilt it\n");
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(cache.stats().disk_hits, 0u);
  EXPECT_EQ(binary->so_path(), so.string());
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<int>(entry, "counter"), nullptr);
  EXPECT_EQ(*global_of<int>(entry, "counter"), 1);
  EXPECT_EQ(read_text(so).size(), image.size());

  // Republished whole: the next process hits it and says nothing.
  KernelCache again(cache_dir_);
  ::testing::internal::CaptureStderr();
  again.build(request);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(again.stats().disk_hits, 1u);
  EXPECT_EQ(again.stats().compiles, 0u);
}

TEST_F(KernelCacheTest, MissingBinaryUnderItsRecordIsReported) {
  BuildRequest request = request_for("empty.cpp", kEmptyKernel);
  fs::path dir;
  {
    KernelCache cache(cache_dir_);
    dir = entry_dir(*cache.build(request));
  }
  fs::remove(dir / "kernel.so");
  KernelCache cache(cache_dir_);
  ::testing::internal::CaptureStderr();
  auto binary = cache.build(request);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "tessel: kernel cache entry " + dir.string() + " of kernel " +
                                                          request.source_path +
                                                          " was damaged (kernel.so is missing); rebuilt it\n");
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(binary->instance(0)(), 0);
}

TEST_F(KernelCacheTest, StaleEntriesAreRebuiltWithoutAReport) {
  fs::path header = root_ / "include" / "value.h";
  write_text(header, "#define HEADER_VALUE 1\n");
  BuildRequest request = request_for("with_header.cpp", "#include \"" + header.string() +
                                                            "\"\nint value = HEADER_VALUE;\nvoid kernel_main() {}\n");
  {
    KernelCache cache(cache_dir_);
    cache.build(request);
  }
  write_text(header, "#define HEADER_VALUE 2\n"); // another header version: a miss, not damage
  KernelCache cache(cache_dir_);
  ::testing::internal::CaptureStderr();
  auto binary = cache.build(request);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(cache.stats().compiles, 1u);
  auto entry = binary->instance(0);
  ASSERT_NE(global_of<int>(entry, "value"), nullptr);
  EXPECT_EQ(*global_of<int>(entry, "value"), 2);
}

TEST_F(KernelCacheTest, TemporariesOfAKilledCompileAreRemovedByTheNextBuildOfThatKey) {
  BuildRequest killed = request_for("killed.cpp", kCounterKernel);
  BuildRequest other = request_for("other.cpp", kEmptyKernel);
  fs::path killed_dir, other_dir;
  {
    KernelCache cache(cache_dir_);
    killed_dir = entry_dir(*cache.build(killed));
    other_dir = entry_dir(*cache.build(other));
  }
  ASSERT_NE(killed_dir, other_dir);

  // What a builder killed mid-compile leaves: no commit record, and its
  // temporaries (pid 999999999 is above any pid_max).
  const std::string dead = ".tmp-999999999-0";
  fs::remove(killed_dir / "key.txt");
  for (std::string name : {"kernel.so", "kernel.d", "deps.txt", "key.txt"})
    write_text(killed_dir / (name + dead), "partial output");
  write_text(killed_dir / "notes.tmp-x", "not a temporary name");
  write_text(other_dir / ("kernel.so" + dead), "another key's file");
  std::string other_key = read_text(other_dir / "key.txt");
  std::vector<std::string> other_files = file_names(other_dir);

  KernelCache cache(cache_dir_);
  auto binary = cache.build(killed);
  EXPECT_EQ(cache.stats().compiles, 1u);
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<int>(entry, "counter"), nullptr);
  EXPECT_EQ(*global_of<int>(entry, "counter"), 1);
  EXPECT_EQ(file_names(killed_dir), (std::vector<std::string>{"deps.txt", "kernel.so", "key.txt", "notes.tmp-x"}));
  EXPECT_EQ(file_names(other_dir), other_files);
  EXPECT_EQ(read_text(other_dir / ("kernel.so" + dead)), "another key's file");
  EXPECT_EQ(read_text(other_dir / "key.txt"), other_key);
  cache.build(other);
  EXPECT_EQ(cache.stats().disk_hits, 1u);
}

TEST_F(KernelCacheTest, CompileErrorCarriesPathAndCompilerMessage) {
  BuildRequest request = request_for("broken.cpp", "void kernel_main() { this_name_is_not_declared(); }\n");
  KernelCache cache(cache_dir_);
  try {
    cache.build(request);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind("kernel " + request.source_path + " failed to compile:", 0), 0u) << message;
    EXPECT_NE(message.find("this_name_is_not_declared"), std::string::npos) << message;
    EXPECT_NE(message.find(request.source_path + ":1:"), std::string::npos) << message;
    EXPECT_NE(message.find("error"), std::string::npos) << message;
  }
  EXPECT_EQ(cache.stats().compiles, 0u);

  // Failures are not remembered: fixing the file fixes the build.
  write_text(request.source_path, kEmptyKernel);
  auto binary = cache.build(request);
  EXPECT_EQ(binary->instance(0)(), 0);
  EXPECT_EQ(cache.stats().compiles, 1u);
}

TEST_F(KernelCacheTest, MissingSourceIsAProgramErrorNamingThePath) {
  BuildRequest request;
  request.source_path = (root_ / "no_such_kernel.cpp").string();
  KernelCache cache(cache_dir_);
  try {
    cache.build(request);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    EXPECT_NE(std::string(error.what()).find(request.source_path), std::string::npos) << error.what();
  }
}

TEST_F(KernelCacheTest, MalformedRequestsAreValidationErrors) {
  KernelCache cache(cache_dir_);
  BuildRequest neither;
  EXPECT_THROW(cache.build(neither), ValidationError);
  BuildRequest both = request_for("k.cpp", kEmptyKernel);
  both.source_text = kEmptyKernel;
  EXPECT_THROW(cache.build(both), ValidationError);
  BuildRequest bad_opt = request_for("k.cpp", kEmptyKernel);
  bad_opt.opt_level = 7;
  EXPECT_THROW(cache.build(bad_opt), ValidationError);
  BuildRequest bad_define = request_for("k.cpp", kEmptyKernel);
  bad_define.defines = {{"A=B", "1"}};
  EXPECT_THROW(cache.build(bad_define), ValidationError);
  EXPECT_EQ(cache.stats().compiles, 0u);
}

TEST_F(KernelCacheTest, BuildAllBuildsDistinctRequestsOnceEach) {
  const std::string source = write_source("value.cpp", "#include <stdint.h>\nuint32_t value;\n"
                                                       "void kernel_main() { value = get_compile_time_arg_val(0); }\n");
  std::vector<BuildRequest> requests;
  for (uint32_t i = 0; i < 6; ++i) {
    BuildRequest request;
    request.source_path = source;
    request.compile_args = {100 + i};
    requests.push_back(request);
  }
  requests.push_back(requests[2]); // duplicates
  requests.push_back(requests[0]);

  KernelCache cache(cache_dir_);
  auto binaries = cache.build_all(requests);
  ASSERT_EQ(binaries.size(), requests.size());
  EXPECT_EQ(cache.stats().compiles, 6u);
  EXPECT_EQ(binaries[6], binaries[2]);
  EXPECT_EQ(binaries[7], binaries[0]);
  for (uint32_t i = 0; i < 6; ++i) {
    auto entry = binaries[i]->instance(0);
    EXPECT_EQ(entry(), 0);
    ASSERT_NE(global_of<uint32_t>(entry, "value"), nullptr);
    EXPECT_EQ(*global_of<uint32_t>(entry, "value"), 100 + i);
  }

  // Again: everything comes from the memo.
  auto again = cache.build_all(requests);
  EXPECT_EQ(cache.stats().compiles, 6u);
  EXPECT_EQ(again[3], binaries[3]);
}

TEST_F(KernelCacheTest, BuildAllThrowsTheFirstErrorInRequestOrder) {
  std::vector<BuildRequest> requests = {
      request_for("good_a.cpp", kEmptyKernel),
      request_for("bad_first.cpp", "void kernel_main() { first_error(); }\n"),
      request_for("good_b.cpp", kCounterKernel),
      request_for("bad_second.cpp", "void kernel_main() { second_error(); }\n"),
  };
  KernelCache cache(cache_dir_);
  try {
    cache.build_all(requests);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind("kernel " + requests[1].source_path + " failed to compile:", 0), 0u) << message;
    EXPECT_NE(message.find("first_error"), std::string::npos) << message;
  }
}

TEST_F(KernelCacheTest, ConcurrentBuildsOfOneKeyCompileOnce) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  KernelCache cache(cache_dir_);
  std::vector<std::shared_ptr<KernelBinary>> results(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i)
    threads.emplace_back([&, i] { results[i] = cache.build(request); });
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(cache.stats().memo_hits, results.size() - 1);
  for (const auto& result : results)
    EXPECT_EQ(result, results[0]);
}

TEST_F(KernelCacheTest, TwoCachesOnOneDirectoryBuildConcurrently) {
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  KernelCache a(cache_dir_);
  KernelCache b(cache_dir_);
  std::thread thread([&] { a.build(request); });
  b.build(request);
  thread.join();
  // The entry lock makes one of them wait and then find the other's entry.
  EXPECT_EQ(a.stats().compiles + b.stats().compiles, 1u);
  EXPECT_EQ(a.stats().disk_hits + b.stats().disk_hits, 1u);
}

TEST_F(KernelCacheTest, SourceTextKernelsUseTheirDisplayName) {
  BuildRequest request;
  request.source_text = "const char* file_name = __FILE__;\nvoid kernel_main() {}\n";
  request.display_name = "inline_reader.cpp";
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  EXPECT_EQ(binary->source_name(), "inline_reader.cpp");
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<const char*>(entry, "file_name"), nullptr);
  EXPECT_STREQ(*global_of<const char*>(entry, "file_name"), "inline_reader.cpp");

  KernelCache second(cache_dir_);
  second.build(request);
  EXPECT_EQ(second.stats().disk_hits, 1u);

  BuildRequest broken;
  broken.source_text = "void kernel_main() {\n  undeclared_in_text();\n}\n";
  broken.display_name = "inline_writer.cpp";
  try {
    cache.build(broken);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind("kernel inline_writer.cpp failed to compile:", 0), 0u) << message;
    EXPECT_NE(message.find("inline_writer.cpp:2:"), std::string::npos) << message;
    EXPECT_NE(message.find("undeclared_in_text"), std::string::npos) << message;
  }

  BuildRequest unnamed;
  unnamed.source_text = kCounterKernel;
  EXPECT_EQ(cache.build(unnamed)->source_name(), "kernel.cpp");
}

TEST_F(KernelCacheTest, CompileTimeArgumentsAndDefinesReachTheKernel) {
  BuildRequest request = request_for("args.cpp", "#include <stdint.h>\n"
                                                 "uint32_t result;\n"
                                                 "uint32_t kind_seen;\n"
                                                 "void kernel_main() {\n"
                                                 "  result = get_compile_time_arg_val(1) +\n"
                                                 "           get_named_compile_time_arg_val(\"k\") + SCALE;\n"
                                                 "#if defined(TESSEL_KERNEL_COMPUTE) && defined(FLAG)\n"
                                                 "  kind_seen = 1;\n"
                                                 "#endif\n"
                                                 "}\n");
  request.compile_args = {5, 7};
  request.named_compile_args = {{"j", 1000}, {"k", 100}};
  request.defines = {{"SCALE", "20000"}, {"FLAG", ""}};
  request.kind = KernelKind::Compute;
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request); // entries live as long as their binary
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<uint32_t>(entry, "result"), nullptr);
  EXPECT_EQ(*global_of<uint32_t>(entry, "result"), 20107u);
  EXPECT_EQ(*global_of<uint32_t>(entry, "kind_seen"), 1u);
}

TEST_F(KernelCacheTest, OlderComputeEntryStyleRuns) {
  BuildRequest request = request_for("old_style.cpp", "int ran;\nnamespace NAMESPACE {\nvoid MAIN { ran = 7; }\n}\n");
  request.kind = KernelKind::Compute;
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request); // entries live as long as their binary
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<int>(entry, "ran"), nullptr);
  EXPECT_EQ(*global_of<int>(entry, "ran"), 7);
}

TEST_F(KernelCacheTest, UnknownNamedArgumentIsACompileError) {
  BuildRequest request = request_for(
      "named.cpp", "unsigned v;\nvoid kernel_main() {\n"
                   "  constexpr unsigned nope = get_named_compile_time_arg_val(\"nope\");\n  v = nope;\n}\n");
  request.named_compile_args = {{"k", 1}};
  KernelCache cache(cache_dir_);
  try {
    cache.build(request);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    EXPECT_NE(std::string(error.what()).find("error_no_compile_time_arg_with_this_name"), std::string::npos)
        << error.what();
  }
}

// Metalium's lookup is constexpr, not consteval: kernels resolve tables of
// names inside their own constexpr helpers.
TEST_F(KernelCacheTest, NamedArgumentsResolveInsideConstexprHelpers) {
  BuildRequest request = request_for(
      "named_table.cpp", "#include <array>\n"
                         "constexpr const char* names[] = {\"cb_0\", \"cb_1\", \"cb_2\"};\n"
                         "template <unsigned N>\n"
                         "constexpr std::array<unsigned, N> lookup(const char* const* table) {\n"
                         "  std::array<unsigned, N> out{};\n"
                         "  for (unsigned i = 0; i < N; ++i) out[i] = get_named_compile_time_arg_val(table[i]);\n"
                         "  return out;\n"
                         "}\n"
                         "unsigned result;\n"
                         "void kernel_main() {\n"
                         "  constexpr auto ids = lookup<2>(names);\n"
                         "  static_assert(ids[1] == 17);\n"
                         "  result = ids[0] * 100 + ids[1];\n"
                         "}\n");
  request.named_compile_args = {{"cb_0", 5}, {"cb_1", 17}};
  KernelCache cache(cache_dir_);
  auto binary = cache.build(request);
  auto entry = binary->instance(0);
  EXPECT_EQ(entry(), 0);
  ASSERT_NE(global_of<unsigned>(entry, "result"), nullptr);
  EXPECT_EQ(*global_of<unsigned>(entry, "result"), 517u);
}

TEST_F(KernelCacheTest, UnresolvedSymbolIsAProgramError) {
  BuildRequest request = request_for("unresolved.cpp", "extern \"C\" int tessel_test_symbol_nobody_defines();\n"
                                                       "int result;\n"
                                                       "void kernel_main() { result = "
                                                       "tessel_test_symbol_nobody_defines(); }\n");
  KernelCache cache(cache_dir_);
  try {
    cache.build(request);
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    EXPECT_NE(std::string(error.what()).find("tessel_test_symbol_nobody_defines"), std::string::npos) << error.what();
  }
  EXPECT_EQ(cache.stats().compiles, 2u); // the minimal link, then the full one
}

TEST_F(KernelCacheTest, MissingCompilerIsAProgramError) {
  std::string compiler = (root_ / "no-such-compiler").string();
  ScopedEnv cxx("TESSEL_KERNEL_CXX", compiler);
  KernelCache cache(cache_dir_);
  try {
    cache.build(request_for("k.cpp", kEmptyKernel));
    FAIL() << "expected ProgramError";
  } catch (const ProgramError& error) {
    EXPECT_NE(std::string(error.what()).find(compiler), std::string::npos) << error.what();
  }
}

TEST_F(KernelCacheTest, DefaultDirectoryComesFromTheEnvironment) {
  {
    ScopedEnv dir("TESSEL_CACHE_DIR", cache_dir_);
    EXPECT_EQ(KernelCache().directory(), cache_dir_);
  }
  {
    ScopedEnv unset_cache("TESSEL_CACHE_DIR", "");
    ScopedEnv xdg("XDG_CACHE_HOME", (root_ / "xdg").string());
    EXPECT_EQ(KernelCache().directory(), (root_ / "xdg" / "tessel" / "kernels").string());
  }
}

TEST_F(KernelCacheTest, MemoDoesNotKeepUnusedKernelsLoaded) {
  KernelCache cache(cache_dir_);
  BuildRequest request = request_for("counter.cpp", kCounterKernel);
  std::weak_ptr<KernelBinary> weak = cache.build(request);
  EXPECT_TRUE(weak.expired()) << "the memo kept a kernel nobody uses loaded";
  auto again = cache.build(request); // unloaded: served from the disk cache
  EXPECT_EQ(cache.stats().compiles, 1u);
  EXPECT_EQ(cache.stats().disk_hits, 1u);
  auto held = cache.build(request); // in use: a memo hit, the same binary
  EXPECT_EQ(held, again);
  EXPECT_EQ(cache.stats().memo_hits, 1u);
}

} // namespace
} // namespace tessel::jit
