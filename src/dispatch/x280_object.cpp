// Building an X280 thread's object.
//
// The cache. An entry is <root>/x280/<hash>/ holding thread.so, deps.txt and
// key.txt; <root>/x280/<hash>.lock is its flock. <hash> is short_hash of the
// front key: compiler path and identity, the include directory, the flags,
// every source's path and content hash, and tessel/x280.h's.
//  C1 key.txt is the commit record: front key + deps.txt as the files now
//     hash (every header the compiler read, from its depfiles) + the content
//     hash of thread.so. A builder, under the exclusive lock, compiles to
//     temporary names, removes key.txt, renames thread.so into place, writes
//     deps.txt and writes key.txt last; an entry interrupted on the way has
//     no key.txt, or one that does not match, and is rebuilt.
//  C2 A hit needs key.txt to match what the current files hash to and the
//     bytes of thread.so, read through a descriptor opened under the shared
//     lock, to hash to the recorded value. That descriptor is what the
//     runner loads (kObjectFd), so a later republish cannot change the code
//     a thread runs.
#include "dispatch/x280_object.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

#include "jit/cache_key.hpp"
#include "jit/compiler.hpp"
#include "jit/cross_elf.hpp"
#include "jit/file_io.hpp"
#include "jit/kernel_build.hpp"
#include "jit/process.hpp"
#include "tessel/error.hpp"

namespace tessel::dispatch::x280_object {

std::string who(uint32_t cluster) { return "program.thread(cluster=" + std::to_string(cluster) + ")"; }

namespace {

constexpr const char* kCacheFormat = "tessel x280 thread object 1";
constexpr size_t kCompilerOutputBytes = 16 * 1024;

// The flags of every thread object (part of the front key).
const std::vector<std::string> kCommonFlags = {"-O2", "-g", "-fPIC", "-Wall", "-fdiagnostics-color=never", "-pipe"};
const std::vector<std::string> kCFlags = {"-x", "c", "-std=c17"};
const std::vector<std::string> kCxxFlags = {"-x", "c++", "-std=c++20"};
// -z defs: a symbol no library defines is a build error, not a load error.
const std::vector<std::string> kLinkFlags = {"-shared", "-fPIC", "-pthread", "-Wl,-z,defs"};

std::string join_flags(const std::vector<std::string>& flags) {
  std::string text;
  for (const auto& f : flags)
    text += (text.empty() ? "" : " ") + f;
  return text;
}

std::optional<SourceLanguage> language_of(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".c") return SourceLanguage::C;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".c++" || ext == ".C") return SourceLanguage::Cxx;
  return std::nullopt;
}

std::optional<std::string> read_fd(int fd) {
  std::string bytes;
  char buffer[1 << 16];
  for (off_t offset = 0;;) {
    ssize_t n = ::pread(fd, buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return bytes;
    bytes.append(buffer, size_t(n));
    offset += n;
  }
}

// ---- compile and cache ---------------------------------------------------

struct ObjectBuild {
  uint32_t cluster;
  jit::CompilerConfig compiler;
  ValidSources sources;
  std::string front;
  std::string entry_dir;
  std::string so_path, deps_path, key_path, lock_path;
};

std::string front_key(const ObjectBuild& b) {
  std::string text = std::string(kCacheFormat) + "\n";
  text += "compiler " + b.compiler.cxx + "\n";
  text += "identity " + jit::compiler_identity(b.compiler.cxx) + "\n";
  text += "include " + b.compiler.include_dir + "\n";
  text += "common " + join_flags(kCommonFlags) + "\n";
  text += "c " + join_flags(kCFlags) + "\n";
  text += "c++ " + join_flags(kCxxFlags) + "\n";
  text += "link " + join_flags(kLinkFlags) + "\n";
  const std::string header = b.compiler.include_dir + "/tessel/x280.h";
  auto header_text = jit::read_file(header);
  if (!header_text)
    throw ProgramError(who(b.cluster) + ": " + header +
                       " cannot be read (TESSEL_KERNEL_INCLUDE_DIR names tessel's "
                       "kernel/include directory)");
  text += "header " + jit::content_hash(*header_text) + " " + header + "\n";
  for (const std::string& path : b.sources.paths) {
    auto source = jit::read_file(path);
    if (!source) throw ValidationError(who(b.cluster) + ": source '" + path + "' cannot be read");
    text += "source " + jit::content_hash(*source) + " " + path + "\n";
  }
  return text;
}

// deps.txt's text as the listed files hash now; nullopt if one is gone.
std::optional<std::string> current_dependencies(const std::vector<std::string>& paths) {
  std::vector<jit::Dependency> deps;
  for (const auto& path : paths) {
    auto bytes = jit::read_file(path);
    if (!bytes) return std::nullopt;
    deps.push_back({path, jit::content_hash(*bytes)});
  }
  return jit::dependencies_text(deps);
}

std::string object_line(std::string_view so_bytes) { return "object " + jit::content_hash(so_bytes) + "\n"; }

// C2: the verified object's descriptor, or -1 on a miss.
int probe(const ObjectBuild& b) {
  auto key = jit::read_file(b.key_path);
  auto deps_text = jit::read_file(b.deps_path);
  if (!key || !deps_text) return -1;
  auto deps = jit::parse_dependencies_text(*deps_text);
  if (!deps) return -1;
  auto deps_now = current_dependencies(*deps);
  if (!deps_now) return -1;
  const std::string expected = b.front + "deps\n" + *deps_now;
  if (key->compare(0, expected.size(), expected) != 0) return -1;
  int fd = ::open(b.so_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  auto so_bytes = read_fd(fd);
  if (!so_bytes || key->substr(expected.size()) != object_line(*so_bytes)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One compiler run; ProgramError with its output when it fails.
void run_tool(const ObjectBuild& b, const std::vector<std::string>& argv, const std::string& what) {
  jit::ProcessResult result;
  {
    jit::CompilerSlot slot;
    result = jit::run_process(argv, {}, kCompilerOutputBytes, "X280 thread compiler");
  }
  if (result.spawn_error != 0)
    throw ProgramError(who(b.cluster) + ": the compiler " + argv[0] + " could not be started: " +
                       std::strerror(result.spawn_error) + " (set TESSEL_KERNEL_CXX to a C++20 compiler)");
  if (!jit::succeeded(result))
    throw ProgramError(who(b.cluster) + ": " + what + ":\n" + jit::describe_failure(result, "compiler"));
}

// Under the entry's exclusive lock (C1).
void compile_and_publish(const ObjectBuild& b) {
  jit::remove_temp_files(b.entry_dir);
  std::vector<std::string> temporaries;
  struct Cleanup {
    std::vector<std::string>& files;
    ~Cleanup() {
      for (const auto& f : files)
        jit::remove_file(f);
    }
  } cleanup{temporaries};

  std::vector<std::string> objects;
  std::vector<std::string> dep_paths;
  std::set<std::string> dep_seen;
  for (size_t i = 0; i < b.sources.paths.size(); ++i) {
    const std::string& source = b.sources.paths[i];
    const std::string object = jit::temp_name_for(b.entry_dir + "/source" + std::to_string(i) + ".o");
    const std::string depfile = jit::temp_name_for(b.entry_dir + "/source" + std::to_string(i) + ".d");
    temporaries.push_back(object);
    temporaries.push_back(depfile);
    std::vector<std::string> argv = {b.compiler.cxx};
    const auto& language = b.sources.languages[i] == SourceLanguage::C ? kCFlags : kCxxFlags;
    argv.insert(argv.end(), language.begin(), language.end());
    argv.insert(argv.end(), kCommonFlags.begin(), kCommonFlags.end());
    argv.insert(argv.end(), {"-I" + b.compiler.include_dir, "-MMD", "-MF", depfile, "-c", source, "-o", object});
    run_tool(b, argv, source + " failed to compile");
    objects.push_back(object);
    auto depfile_text = jit::read_file(depfile);
    if (!depfile_text) throw ProgramError(who(b.cluster) + ": the compiler wrote no depfile for " + source);
    for (auto& dep : jit::parse_depfile(*depfile_text, std::filesystem::current_path().string())) {
      std::string path = std::filesystem::path(dep).lexically_normal().string();
      if (dep_seen.insert(path).second) dep_paths.push_back(std::move(path));
    }
  }

  const std::string so_temp = jit::temp_name_for(b.so_path);
  temporaries.push_back(so_temp);
  std::vector<std::string> argv = {b.compiler.cxx};
  argv.insert(argv.end(), kLinkFlags.begin(), kLinkFlags.end());
  argv.insert(argv.end(), objects.begin(), objects.end());
  argv.insert(argv.end(), {"-o", so_temp});
  run_tool(b, argv, "the thread's sources failed to link");

  auto so_bytes = jit::read_file(so_temp);
  if (!so_bytes) throw ProgramError(who(b.cluster) + ": the linked object " + so_temp + " cannot be read");
  auto deps_text = current_dependencies(dep_paths);
  if (!deps_text) throw ProgramError(who(b.cluster) + ": a header the compiler read vanished during the build");
  jit::remove_file(b.key_path);
  jit::rename_file(so_temp, b.so_path);
  jit::write_file_atomic(b.deps_path, *deps_text);
  jit::write_file_atomic(b.key_path, b.front + "deps\n" + *deps_text + object_line(*so_bytes));
}

} // namespace

ValidSources validate_sources(const X280ThreadSpec& spec) {
  if (spec.sources.empty())
    throw ValidationError(who(spec.cluster) + ": no sources (one or more .c or .cpp files, one of them with "
                                              "TESSEL_X280_THREAD(fn))");
  ValidSources valid;
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.sources.size(); ++i) {
    const std::string& source = spec.sources[i];
    const std::string at = who(spec.cluster) + ": sources[" + std::to_string(i) + "] '" + source + "'";
    auto language = language_of(source);
    if (!language) throw ValidationError(at + ": expected a C or C++ source (.c, .cpp, .cc, .cxx)");
    std::error_code ec;
    std::string path = std::filesystem::absolute(source, ec).lexically_normal().string();
    if (ec || !std::filesystem::is_regular_file(path, ec)) throw ValidationError(at + ": no such file");
    if (!seen.insert(path).second) throw ValidationError(at + ": given twice");
    valid.paths.push_back(std::move(path));
    valid.languages.push_back(*language);
  }
  return valid;
}

ThreadObject build_object(uint32_t cluster, ValidSources sources, const std::string& cache_dir) {
  ObjectBuild b{cluster, jit::compiler_config_from_environment(), std::move(sources), {}, {}, {}, {}, {}, {}};
  b.front = front_key(b);
  const std::string root = jit::kernel_cache_root(cache_dir) + "/x280";
  const std::string hash = jit::short_hash(b.front);
  b.entry_dir = root + "/" + hash;
  b.so_path = b.entry_dir + "/thread.so";
  b.deps_path = b.entry_dir + "/deps.txt";
  b.key_path = b.entry_dir + "/key.txt";
  b.lock_path = root + "/" + hash + ".lock";
  jit::make_directories(b.entry_dir);

  jit::FileLock lock(b.lock_path);
  lock.lock_shared();
  if (int fd = probe(b); fd >= 0) return {b.so_path, fd, false};
  lock.unlock();
  lock.lock_exclusive();
  if (int fd = probe(b); fd >= 0) return {b.so_path, fd, false}; // another process built it meanwhile
  compile_and_publish(b);
  int fd = probe(b);
  if (fd < 0) throw ProgramError(who(cluster) + ": the cache entry " + b.entry_dir + " did not verify after its build");
  return {b.so_path, fd, true};
}

} // namespace tessel::dispatch::x280_object
