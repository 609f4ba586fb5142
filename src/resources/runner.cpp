// Emitted runners (include/tessel/runner.hpp): writing an Operation's
// structure out as kernel files plus a manifest, and reading it back. The
// manifest's text, both ways, is resources/runner_manifest.hpp; this file
// holds the files and directories around it.
//
// Invariants:
//  - Validate, then write: emit_runner reads every kernel source and checks
//    every kernel identity before it creates anything; it writes into a
//    sibling temporary directory and renames that into place, removing the
//    temporary on any failure. An earlier runner at the path is swapped out
//    only after the new one is complete.
//  - Parse, then build: Runner::load reads the manifest and hands its text to
//    operation_from_manifest (resources/runner_manifest.hpp), which checks the
//    whole manifest (every field, every required line, every kernel file)
//    before it builds the Operation.
//  - Structure only: nothing a factory returns (words, addresses, caller
//    semaphores, defines, lifetimes) reaches the artifact, because only the
//    Operation's declared fields are written.
#include "tessel/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "resources/runner_manifest.hpp"
#include "tessel/error.hpp"

namespace tessel {

namespace fs = std::filesystem;
using resources::kernel_file_name;
using resources::kernel_label;
using resources::manifest_text;
using resources::ManifestOrigin;
using resources::operation_from_manifest;

namespace {

// ---------------------------------------------------------------------------
// Files.

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

// A path kernel's file, resolved as Program::add_kernel resolves it (absolute,
// else the working directory, then each directory of $TESSEL_KERNEL_PATH).
std::optional<fs::path> resolve_kernel_path(const std::string& path, std::vector<std::string>& tried) {
  auto found = [&](const fs::path& p) {
    std::error_code ec;
    tried.push_back(p.string());
    return fs::is_regular_file(p, ec);
  };
  const fs::path p(path);
  if (path.empty()) return std::nullopt;
  if (p.is_absolute()) return found(p) ? std::optional(p) : std::nullopt;
  if (found(fs::current_path() / p)) return fs::current_path() / p;
  if (const char* env = std::getenv("TESSEL_KERNEL_PATH")) {
    std::stringstream ss(env);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && found(fs::path(dir) / p)) return fs::path(dir) / p;
  }
  return std::nullopt;
}

[[noreturn]] void emit_error(const std::string& what) { throw ValidationError("emit_runner: " + what); }

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(bytes.data(), std::streamsize(bytes.size()));
  if (out) out.close();
  if (!out) emit_error("cannot write '" + path.string() + "': " + std::strerror(errno));
}

// A fresh sibling name of `dir`: <name>.<tag>-<pid>-<n>.
fs::path sibling(const fs::path& dir, const char* tag) {
  static std::atomic<uint64_t> counter{0};
  return dir.parent_path() /
         (dir.filename().string() + "." + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

// `directory` as an absolute path without a trailing separator.
fs::path normalized_dir(const std::string& directory) {
  fs::path dir = fs::path(directory).lexically_normal();
  if (dir.filename().empty() && dir.has_parent_path()) dir = dir.parent_path();
  return fs::absolute(dir);
}

// Removes a temporary directory on scope exit unless released.
struct RemoveOnExit {
  fs::path path;
  ~RemoveOnExit() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

} // namespace

// ---------------------------------------------------------------------------
// Emit.

Kernel find_captured_kernel(const Operation& op, const std::string& name) {
  std::string declared;
  for (const OperationKernel& k : op.kernels()) {
    if (const auto* h = std::get_if<Kernel>(&k.kernel))
      if (h->name() == name) return *h;
    declared += (declared.empty() ? "" : ", ") + describe(k.kernel);
  }
  throw ValidationError("operation '" + op.name() + "' has no captured Kernel named '" + name +
                        "' (it declares: " + (declared.empty() ? "none" : declared) + ")");
}

void emit_runner(const Operation& op, const std::string& directory) {
  const std::string where = "operation '" + op.name() + "'";
  if (directory.empty()) emit_error(where + ": the directory is empty; expected a path to write the runner to");
  if (op.kernels().empty()) emit_error(where + " declares no kernels; expected at least one");
  // Validate and read everything first.
  std::vector<std::string> sources;
  std::vector<std::string> files;
  for (size_t i = 0; i < op.kernels().size(); ++i) {
    const OperationKernel& k = op.kernels()[i];
    const std::string label = where + ": " + kernel_label(i, k.kernel);
    if (const auto* h = std::get_if<Kernel>(&k.kernel)) {
      if (h->name().empty())
        emit_error(label + " is a captured Kernel without a name; a runner re-identifies captured Kernels by name, "
                           "so give it one (Kernel(kind, \"name\"))");
      for (size_t j = 0; j < i; ++j)
        if (const auto* o = std::get_if<Kernel>(&op.kernels()[j].kernel); o && o->name() == h->name())
          emit_error(label + " has the same name as kernel " + std::to_string(j) +
                     "; captured Kernel names must be unique within an operation");
    }
    if (k.runtime_words)
      emit_error(label + " has runtime_words (a host function), which cannot be written out; supply those words "
                         "through the runtime resource factory instead");
    if (k.source_is_path) {
      std::vector<std::string> tried;
      const std::optional<fs::path> path = resolve_kernel_path(k.source, tried);
      if (!path) {
        std::string msg = label + ": kernel file '" + k.source + "' not found; tried:";
        for (const std::string& t : tried)
          msg += " " + t;
        emit_error(msg);
      }
      std::optional<std::string> text = read_file(*path);
      if (!text) emit_error(label + ": cannot read kernel file '" + path->string() + "'");
      sources.push_back(std::move(*text));
    } else {
      sources.push_back(k.source);
    }
    files.push_back(kernel_file_name(i, k.kernel));
  }

  const std::string m = manifest_text(op);

  // Where it goes: a new path, an empty directory or an earlier runner.
  const fs::path dir = normalized_dir(directory);
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  bool replace = false;
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      emit_error("'" + dir.string() + "' exists and is not a directory; expected a new path or a runner directory");
    const bool empty = fs::is_empty(dir, ec);
    if (!empty && !fs::exists(dir / kRunnerManifestName))
      emit_error("'" + dir.string() + "' exists and is not an emitted runner (no " + kRunnerManifestName +
                 "); expected a new path, an empty directory or an earlier runner to replace");
    replace = true;
  }
  fs::create_directories(dir.parent_path(), ec);
  if (ec)
    emit_error("cannot create directory '" + dir.parent_path().string() + "': " + ec.message() +
               "; expected a writable path");

  RemoveOnExit tmp{sibling(dir, "tmp")};
  if (!fs::create_directory(tmp.path, ec) || ec)
    emit_error("cannot create directory '" + tmp.path.string() +
               "': " + (ec ? ec.message() : std::string("it exists")) + "; expected a writable path");
  for (size_t i = 0; i < files.size(); ++i)
    write_file(tmp.path / files[i], sources[i]);
  write_file(tmp.path / kRunnerManifestName, m);

  if (replace) {
    RemoveOnExit old{sibling(dir, "old")};
    fs::rename(dir, old.path, ec);
    if (ec) emit_error("cannot replace '" + dir.string() + "': " + ec.message());
    fs::rename(tmp.path, dir, ec);
    if (ec) {
      std::error_code restore;
      fs::rename(old.path, dir, restore);
      if (!restore) old.path.clear();
      emit_error("cannot publish '" + dir.string() + "': " + ec.message());
    }
  } else {
    fs::rename(tmp.path, dir, ec);
    if (ec) emit_error("cannot publish '" + dir.string() + "': " + ec.message());
  }
  tmp.path.clear();
}

Runner Runner::load(const std::string& directory) {
  const fs::path dir = normalized_dir(directory);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw ValidationError("Runner::load: '" + directory +
                          "' is not a directory; expected a directory written by "
                          "emit_runner");
  const fs::path manifest_path = dir / kRunnerManifestName;
  const std::optional<std::string> text = read_file(manifest_path);
  if (!text)
    throw ValidationError("Runner::load: no manifest at '" + manifest_path.string() +
                          "'; expected a directory written by emit_runner");

  const ManifestOrigin origin{manifest_path.string(), dir, [](const fs::path& file) {
                                std::error_code file_ec;
                                return fs::is_regular_file(file, file_ec);
                              }};
  return Runner(dir.string(), operation_from_manifest(*text, origin));
}

Kernel Runner::kernel(const std::string& name) const {
  try {
    return find_captured_kernel(*operation_, name);
  } catch (const ValidationError& e) {
    throw ValidationError("Runner '" + directory_ + "': " + e.what());
  }
}

FabricManagerClaim Runner::claim(const std::string& name) const {
  for (const FabricManagerClaim& c : operation_->fabric_claims())
    if (c.name() == name) return c;
  std::string declared;
  for (const FabricManagerClaim& c : operation_->fabric_claims())
    declared += (declared.empty() ? "'" : ", '") + c.name() + "'";
  throw ValidationError("Runner '" + directory_ + "': operation '" + operation_->name() +
                        "' has no fabric claim named '" + name +
                        "' (it declares: " + (declared.empty() ? "none" : declared) + ")");
}

void Runner::run(Device& device, const std::vector<std::shared_ptr<Buffer>>& tensors, const CoreRangeSet& launch,
                 const RuntimeResourceFactory& factory) {
  if (!factory)
    throw ValidationError("Runner '" + directory_ + "' (operation '" + operation_->name() +
                          "'): run needs the runtime resource factory on every call; the runner holds no dispatch "
                          "values or owners");
  operation_->run(device, tensors, launch, factory);
}

} // namespace tessel
