#include <set>

#include "jit/cache_key.hpp"
#include "tessel/dispatch/errors.hpp"
#include "tessel/dispatch/program.hpp"
#include "tessel/persistent_abi.h"

namespace tessel::dispatch {

namespace {
const char* const kFormats[] = {"bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b"};

std::string program_name(const ProgramSpec& p) { return "Program '" + p.name + "'"; }
} // namespace

int opt_level_number(const std::string& level, const char* kernel) {
  if (level.empty()) return -1;
  const int n = jit::opt_level_of_name(level);
  if (n < 0)
    throw ProgramError(std::string("opt['") + kernel + "'] = '" + level +
                       "' is not an optimisation level: expected one of O0, O1, O2, O3, Os, Ofast, Oz");
  return n;
}

void ProgramSpec::validate() const {
  const std::string what = program_name(*this);
  if (reader_path.empty() || compute_path.empty() || writer_path.empty())
    throw ProgramError(what + ": kernels needs reader.cpp, compute.cpp and writer.cpp");
  if (depth < 1 || depth > KM_DEPTH_MAX)
    throw ProgramError(what + ": depth " + std::to_string(depth) + " is out of range: expected 1 to 16");
  std::set<uint32_t> indices;
  for (const BufferSpec& b : buffers) {
    const std::string where = what + ": Buffer(index=" + std::to_string(b.index) + ")";
    if (b.index >= 64) throw ProgramError(where + ": circular buffer indices are 0 to 63");
    if (b.index == KM_CB_TOKEN_COMPUTE || b.index == KM_CB_TOKEN_WRITER || b.index == KM_CB_TRACE)
      throw ProgramError(where + ": circular buffers 29, 30 and 31 are the runtime's (the command tokens and the "
                                 "trace); use another index");
    if (!indices.insert(b.index).second) throw ProgramError(where + ": this index is given twice");
    bool known = false;
    for (const char* f : kFormats)
      known = known || b.format == f;
    if (!known)
      throw ProgramError(where + ": format '" + b.format +
                         "' is not a data type name: expected bfloat16, float32, int32, uint32, uint16, uint8, "
                         "bfloat8_b or bfloat4_b");
    if (b.page_bytes == 0 || b.pages == 0)
      throw ProgramError(where + ": page_bytes and pages must be positive (got " + std::to_string(b.page_bytes) +
                         " and " + std::to_string(b.pages) + ")");
  }
  std::set<uint32_t> numbers;
  for (const auto& [name, number] : handlers) {
    if (name.empty()) throw ProgramError(what + ": a handler has an empty name");
    if (number < KM_HANDLER_FIRST || number > KM_HANDLER_LAST)
      throw ProgramError(what + ": handler '" + name + "' has number " + std::to_string(number) +
                         ": handler numbers are 1 to 239 (0 is NOP, 240 to 251 are reserved)");
    if (!numbers.insert(number).second)
      throw ProgramError(what + ": handler '" + name + "' reuses number " + std::to_string(number));
  }
  opt_level_number(opt.reader, "reader");
  opt_level_number(opt.writer, "writer");
  opt_level_number(opt.compute, "compute");
  std::set<std::string> region_names;
  for (const X280Region& r : regions) {
    if (r.name.empty()) throw ProgramError(what + ": a region has an empty name");
    if (r.value.empty()) throw ProgramError(what + ": region '" + r.name + "' holds no bytes");
    if (!region_names.insert(r.name).second) throw ProgramError(what + ": region '" + r.name + "' is declared twice");
  }
  std::set<uint32_t> clusters;
  for (const X280ThreadSpec& t : threads) {
    if (t.cluster < 1 || t.cluster > 3)
      throw ProgramError(what + ": a thread on cluster " + std::to_string(t.cluster) +
                         ": the work clusters are 1, 2 and 3 (cluster 0 runs the dispatcher)");
    if (!clusters.insert(t.cluster).second)
      throw ProgramError(what + ": cluster " + std::to_string(t.cluster) + " has two threads (one per cluster)");
    for (const std::string& name : t.regions)
      if (!region_names.count(name))
        throw ProgramError(what + ": the thread on cluster " + std::to_string(t.cluster) + " uses region '" + name +
                           "', which the program does not declare");
  }
}

uint32_t ProgramSpec::handler(const std::string& name) const {
  if (auto it = handlers.find(name); it != handlers.end()) return it->second;
  if (name == "nop" || name == "NOP") return KM_HANDLER_NOP;
  std::string known;
  for (const auto& [n, v] : handlers)
    known += (known.empty() ? "" : ", ") + n;
  throw ProgramError(program_name(*this) + " has no handler '" + name +
                     "' (it has: " + (known.empty() ? "none" : known) + ")");
}

} // namespace tessel::dispatch
