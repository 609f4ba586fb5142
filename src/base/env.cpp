#include "base/env.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>

#include "tessel/error.hpp"

extern char** environ;

namespace tessel::base {

namespace {

// Every TESSEL_* variable tessel reads, with what it takes.
struct Variable {
  const char* name;
  const char* takes;
};
constexpr Variable kVariables[] = {
    {"TESSEL_ARCH", "blackhole or wormhole_b0 (compat devices)"},
    {"TESSEL_GRID", "a worker grid such as 4x2 (compat devices)"},
    {"TESSEL_POLICY", "deterministic, random:<seed>, parallel or parallel:<threads> (compat devices)"},
    {"TESSEL_MESH", "the system mesh's shape, rows x columns such as 2x4 or 8x4 (compat SystemMesh, tessel run --mesh)"},
    {"TESSEL_CACHE_DIR", "the kernel cache directory"},
    {"TESSEL_KERNEL_CXX", "the C++ compiler kernels are built with"},
    {"TESSEL_KERNEL_INCLUDE_DIR", "the kernel headers' directory"},
    {"TESSEL_KERNEL_PATH", "directories searched for kernel files, separated by ':'"},
    {"TESSEL_AIE_ARCH", "aie2 or aie2p: the AIE kernel library directory tessel.iron looks in first"},
    {"TESSEL_IRON_DEVICE", "the IRON device designs start with under python -m tessel.iron.run (npu, npu2, ...)"},
    {"TESSEL_PYTHON", "the Python an IRON C++ testbench starts its design server with"},
    {"TESSEL_EXAMPLES_DIR", "the examples directory whose kernels the built-in examples load"},
    {"TESSEL_DPRINT_CORES", "the cores whose DPRINT output is shown"},
    {"TESSEL_WATCHDOG_S", "seconds without progress before a kernel is stopped (0: never)"},
    {"TESSEL_PROGRESS", "1 or 0: show a long run's progress line on stderr (default: when stderr is a terminal)"},
    {"TESSEL_NOC", "eager or checked: when NoC transfers land (checked: at their barriers; early reads are reported)"},
    {"TESSEL_CHECK_MEMORY", "1 or 0: check every NoC transfer against the live allocations"},
    {"TESSEL_STRICT", "1 or 0: make every warning an error"},
    {"TESSEL_PROFILER", "1 or 0: record kernels' device profiler markers"},
    {"TESSEL_PROFILER_DIR", "the directory profiler reads write profile_log_device.csv to (compat)"},
    {"TESSEL_TRACE", "a file to write the event trace to (Chrome/Perfetto JSON, docs/trace.md)"},
    {"TESSEL_TRACE_RING", "keep only the last N trace events per RISC, written when the device closes"},
    {"TESSEL_TIMING", "1 or 0: estimate cycles (docs/timing.md); only 0 or 1"},
    {"TESSEL_INSN_CHECK", "1 or 0: check cross-compiled kernels for instructions the cores lack (size estimate)"},
    {"TESSEL_CARD_LOCK_DIR", "where dispatch sessions keep their per-card lock files (default /tmp)"},
    {"TESSEL_X280_RUNNER", "the tessel-x280-runner X280 threads run in (default: the build tree's; a wheel sets it)"},
    {"TESSEL_TT_METAL_HOME",
     "read when the build is configured: the TT-Metalium checkout examples/ttnn_ops launch ttnn's kernels from"},
};

[[noreturn]] void malformed(const char* name, const std::string& value, const char* expected) {
  throw ValidationError(std::string(name) + "='" + value + "' is not valid: expected " + expected);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

} // namespace

std::optional<std::string> env_text(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

double env_seconds(const char* name, double fallback) {
  const std::optional<std::string> text = env_text(name);
  if (!text) return fallback;
  const char* expected = "a number of seconds, 0 or more (e.g. 10 or 0.5; 0 turns it off)";
  // Decimal digits with at most one point: no sign, exponent, hex, inf or nan.
  bool digit = false, point = false;
  for (char c : *text) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c == '.' && !point)
      point = true;
    else
      malformed(name, *text, expected);
  }
  if (!digit) malformed(name, *text, expected);
  errno = 0;
  const double seconds = std::strtod(text->c_str(), nullptr);
  if (errno != 0 || !std::isfinite(seconds)) malformed(name, *text, expected);
  return seconds;
}

std::optional<uint64_t> env_count(const char* name, uint64_t max, const char* expected) {
  const std::optional<std::string> text = env_text(name);
  if (!text) return std::nullopt;
  if (text->size() > 19 || text->find_first_not_of("0123456789") != std::string::npos) malformed(name, *text, expected);
  const uint64_t n = std::strtoull(text->c_str(), nullptr, 10);
  if (n > max) malformed(name, *text, expected);
  return n;
}

bool env_flag(const char* name, bool fallback) {
  const std::optional<std::string> text = env_text(name);
  if (!text) return fallback;
  const std::string v = lower(*text);
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  malformed(name, *text, "1 or 0 (also true/false, on/off, yes/no)");
}

void check_variable_names() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (char** e = environ; e && *e; ++e) {
      const std::string_view entry(*e);
      if (entry.rfind("TESSEL_", 0) != 0) continue;
      const std::string_view name = entry.substr(0, entry.find('='));
      const bool known =
          std::any_of(std::begin(kVariables), std::end(kVariables), [&](const Variable& v) { return name == v.name; });
      if (known) continue;
      std::string list;
      for (const Variable& v : kVariables)
        list += std::string(list.empty() ? "" : ", ") + v.name;
      std::fprintf(stderr, "tessel: warning: %.*s is not a variable tessel reads (it reads %s)\n", int(name.size()),
                   name.data(), list.c_str());
    }
  });
}

} // namespace tessel::base
