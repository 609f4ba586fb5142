// ProgramCache: compiled programs reused across dispatches by structure.
//
// The structural key of a ProgramDescriptor covers everything that shapes the
// compiled program: each kernel's source type and source (path or text),
// core ranges, compile-time args, named compile-time args, defines, opt level
// and config; the coordinates and vector lengths of its runtime args and the
// length of its common runtime args; every CB (size, cores, indices, formats,
// page sizes) and semaphore (id, cores, initial value); their order. It leaves
// out the dispatch values: runtime-argument words and common runtime-argument
// words (buffer addresses travel in those). A lookup compares the whole key,
// never only its hash, and a hit re-applies every dispatch value of the
// descriptor it was given, so no word of an earlier dispatch survives.
//
// A file-path kernel is keyed by its path, not its contents: editing a kernel
// file while a process keeps using the cached program needs clear().
//
// Owned by its Device (Device::program_cache()); the Program references it
// returns stay valid until clear() or the device closes. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "tessel/program.hpp"
#include "tessel/program_descriptor.hpp"

namespace tessel {

class Device;

class ProgramCache {
public:
  explicit ProgramCache(Device& device) : device_(device) {}
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // The compiled program for the descriptor's structure, with the
  // descriptor's dispatch values applied. A miss builds and compiles it
  // (make_program, CommandQueue::compile_program); if that throws, nothing is
  // cached and the error propagates. *hit (if given) says which it was.
  Program& get(const ProgramDescriptor& descriptor, bool* hit = nullptr);

  // The structural key get() uses (exposed for tests and diagnostics).
  static std::string structural_key(const ProgramDescriptor& descriptor);

  // Drops the entry for the descriptor's structure, if there is one (returns
  // whether there was), e.g. when the first dispatch of a program just built
  // fails. Program references to it dangle; the generation changes.
  bool erase(const ProgramDescriptor& descriptor);

  uint64_t entries() const { return entries_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  // Drops every entry and zeroes the statistics.
  void clear();

  // Changes whenever clear() or erase() drops entries: a caller holding a
  // Program& from get() may keep using it while the generation is the same.
  uint64_t generation() const { return generation_; }
  // Counts a hit for a caller that found its entry without get() (an
  // Operation's own fast path) and wrote the dispatch values itself.
  void count_hit() { ++hits_; }

private:
  Device& device_;
  std::unordered_map<std::string, std::unique_ptr<Program>> entries_;
  uint64_t hits_ = 0, misses_ = 0;
  uint64_t generation_ = 0;
};

} // namespace tessel
