#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "sim/chip.hpp"
#include "sim/parallel_run.hpp"
#include "tessel/error.hpp"

namespace tessel::sim {

namespace {
// Parses a whole decimal number in [lo, hi]; false otherwise.
bool parse_number(const std::string& text, unsigned long long lo, unsigned long long hi, unsigned long long& out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return end && *end == '\0' && errno == 0 && out >= lo && out <= hi;
}
} // namespace

SchedulerPolicy SchedulerPolicy::parse(const std::string& text) {
  SchedulerPolicy p;
  unsigned long long n = 0;
  if (text == "deterministic") return p;
  if (text.rfind("random:", 0) == 0) {
    if (!parse_number(text.substr(7), 0, ~0ull, n))
      throw ValidationError("scheduling policy '" + text +
                            "': the seed must be a whole number from 0 to 18446744073709551615");
    p.kind = Kind::Random;
    p.seed = n;
    return p;
  }
  if (text == "parallel") {
    p.kind = Kind::Parallel;
    return p;
  }
  if (text.rfind("parallel:", 0) == 0) {
    if (!parse_number(text.substr(9), 1, kMaxThreads, n))
      throw ValidationError("scheduling policy '" + text + "': the thread count must be a whole number from 1 to " +
                            std::to_string(kMaxThreads));
    p.kind = Kind::Parallel;
    p.threads = uint32_t(n);
    return p;
  }
  throw ValidationError("unknown scheduling policy '" + text +
                        "': expected 'deterministic', 'random:<seed>', 'parallel' or 'parallel:<threads>'");
}

std::string SchedulerPolicy::to_string() const {
  switch (kind) {
  case Kind::Deterministic: return "deterministic";
  case Kind::Random: return "random:" + std::to_string(seed);
  case Kind::Parallel: return threads ? "parallel:" + std::to_string(threads) : "parallel";
  }
  return "?";
}

uint32_t SchedulerPolicy::thread_count() const {
  if (kind != Kind::Parallel) return 1;
  if (threads) return threads;
  return std::clamp(host_cores(), 1u, kMaxThreads);
}

} // namespace tessel::sim
