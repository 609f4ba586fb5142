#include "tessel/ranks.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "base/env.hpp"
#include "ranks/mpi_transport.h"
#include "tessel/error.hpp"

namespace tessel {

struct Ranks::Plugin {
  decltype(&tessel_mpi_version) version;
  decltype(&tessel_mpi_init) init;
  decltype(&tessel_mpi_finalize) finalize;
  decltype(&tessel_mpi_abort) abort;
  decltype(&tessel_mpi_barrier) barrier;
  decltype(&tessel_mpi_alltoallv) alltoallv;
  decltype(&tessel_mpi_allgatherv) allgatherv;
  decltype(&tessel_mpi_free) free;
  bool finalized = false;
};

namespace {

std::atomic<bool> g_collective{false};
std::atomic<Ranks*> g_started{nullptr};

// How many ranks the launcher started, from its environment (1 outside mpirun).
uint32_t launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(name); v && *v) return uint32_t(std::strtoul(v, nullptr, 10));
  return 1;
}

std::string plugin_path() {
  if (const char* p = std::getenv("TESSEL_MPI_PLUGIN"); p && *p) return p;
  // Beside the library or program holding this code (an installed Python
  // package carries the plugin next to its extension), else where it was built.
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&plugin_path), &info) && info.dli_fname) {
    std::string beside(info.dli_fname);
    beside = beside.substr(0, beside.rfind('/') + 1) + "libtessel_mpi.so";
    if (access(beside.c_str(), R_OK) == 0) return beside;
  }
#ifdef TESSEL_MPI_PLUGIN_PATH
  return TESSEL_MPI_PLUGIN_PATH;
#else
  return "libtessel_mpi.so";
#endif
}

template <class F>
void bind(void* handle, const char* name, F& slot) {
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (!slot)
    throw ValidationError(std::string("the MPI transport plugin lacks ") + name + ": rebuild tessel (src/ranks)");
}

// Blocks packed one after another, `counts[r]` bytes for rank r: the
// plugin's buffer (freed here) split into one string per rank.
std::vector<std::string> unpack(const std::vector<uint64_t>& counts, uint8_t* packed, decltype(&tessel_mpi_free) free) {
  std::vector<std::string> out;
  size_t at = 0;
  for (uint64_t c : counts) {
    out.emplace_back(reinterpret_cast<const char*>(packed) + at, c);
    at += c;
  }
  free(packed);
  return out;
}

void check(int rc, const char* what) {
  if (rc != 0) throw Error(std::string("MPI ") + what + " failed (MPI error " + std::to_string(rc) + ")");
}

} // namespace

Ranks* Ranks::started() { return g_started.load(); }

Ranks& Ranks::world() {
  static Ranks* world = [] {
    auto* w = new Ranks();
    const uint32_t launched = launched_size();
    if (launched <= 1) return w;
    const std::string path = plugin_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handle)
      throw ValidationError("this process runs under mpirun with " + std::to_string(launched) +
                            " ranks, but tessel's MPI transport plugin cannot be loaded (" + dlerror() +
                            "): build tessel where Open MPI's development files are (Debian: libopenmpi-dev), or "
                            "set TESSEL_MPI_PLUGIN to libtessel_mpi.so");
    auto* p = new Plugin();
    bind(handle, "tessel_mpi_version", p->version);
    bind(handle, "tessel_mpi_init", p->init);
    bind(handle, "tessel_mpi_finalize", p->finalize);
    bind(handle, "tessel_mpi_abort", p->abort);
    bind(handle, "tessel_mpi_barrier", p->barrier);
    bind(handle, "tessel_mpi_alltoallv", p->alltoallv);
    bind(handle, "tessel_mpi_allgatherv", p->allgatherv);
    bind(handle, "tessel_mpi_free", p->free);
    if (p->version() != TESSEL_MPI_TRANSPORT_VERSION)
      throw ValidationError("the MPI transport plugin " + path + " is of another tessel build: rebuild it");
    char error[256] = {};
    if (p->init(&w->rank_, &w->size_, error, sizeof error) != 0)
      throw Error(std::string("MPI failed to start: ") + error);
    w->plugin_ = p;
    return w;
  }();
  g_started.store(world);
  return *world;
}

void Ranks::barrier() {
  if (plugin_) check(plugin_->barrier(), "barrier");
}

std::vector<std::string> Ranks::all_gather(const std::string& mine) {
  if (!plugin_) return {mine};
  std::vector<uint64_t> counts(size_);
  uint8_t* all = nullptr;
  check(plugin_->allgatherv(reinterpret_cast<const uint8_t*>(mine.data()), mine.size(), counts.data(), &all),
        "all-gather");
  return unpack(counts, all, plugin_->free);
}

std::vector<std::string> Ranks::all_to_all(const std::vector<std::string>& to) {
  if (!plugin_) return {std::string()};
  std::vector<uint64_t> send_counts(size_), recv_counts(size_);
  std::string send;
  for (uint32_t r = 0; r < size_; ++r) {
    if (r >= to.size() || r == rank_) continue; // send_counts[r] stays 0
    send_counts[r] = to[r].size();
    send += to[r];
  }
  uint8_t* recv = nullptr;
  check(plugin_->alltoallv(send_counts.data(), reinterpret_cast<const uint8_t*>(send.data()), recv_counts.data(),
                           &recv),
        "all-to-all");
  return unpack(recv_counts, recv, plugin_->free);
}

void Ranks::finalize() {
  if (plugin_ && !plugin_->finalized) {
    plugin_->finalized = true;
    plugin_->finalize();
  }
}

void Ranks::abort(int code) {
  if (plugin_) plugin_->abort(code);
  std::_Exit(code);
}

bool Ranks::error_is_collective() { return g_collective.load(); }
void Ranks::set_error_collective(bool collective) { g_collective.store(collective); }

} // namespace tessel
