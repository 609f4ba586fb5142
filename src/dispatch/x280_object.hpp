// Building an X280 thread's object (x280_thread.hpp): its sources checked,
// compiled with the host compiler into one shared object, and cached on disk
// (x280_object.cpp states the cache's rules). Internal to dispatch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/dispatch/x280.hpp"

namespace tessel::dispatch::x280_object {

enum class SourceLanguage { C, Cxx };

struct ValidSources {
  std::vector<std::string> paths; // absolute
  std::vector<SourceLanguage> languages;
};

struct ThreadObject {
  std::string path;
  int fd = -1; // opened under the entry's lock, verified
  bool compiled = false;
};

// "program.thread(cluster=N)", how every message names the thread.
std::string who(uint32_t cluster);
// The sources exist, are C or C++, none twice (ValidationError otherwise).
ValidSources validate_sources(const X280ThreadSpec& spec);
// The thread's object from the cache, or compiled and published into it
// (ProgramError with the compiler's output on a compile error).
ThreadObject build_object(uint32_t cluster, ValidSources sources, const std::string& cache_dir);

} // namespace tessel::dispatch::x280_object
