#include "base/warning.hpp"

#include <cstdio>
#include <mutex>
#include <unordered_set>

#include "base/env.hpp"

namespace tessel::base {

Warned warn_once(const std::string& key, const std::string& message) {
  if (env_flag("TESSEL_STRICT", false)) return Warned::Strict;
  static std::mutex mutex;
  static std::unordered_set<std::string> seen;
  std::lock_guard lock(mutex);
  if (!seen.insert(key).second) return Warned::Again;
  std::fprintf(stderr, "tessel: warning: %s\n", message.c_str());
  std::fflush(stderr);
  return Warned::Printed;
}

} // namespace tessel::base
