// tt-logger's level filter and line writer.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tt-logger/tt-logger.hpp"

namespace tt {

namespace {

constexpr std::string_view kTypeNames[] = {
    "Always", "Test",  "Timer",        "Device",        "Model",           "LLRuntime",
    "Loader", "IO",    "CompileTrisc", "BuildKernels",  "Verif",           "Golden",
    "Op",     "HLK",   "HLKC",         "Reportify",     "GraphCompiler",   "Dispatch",
    "Fabric", "Metal", "MetalTrace",   "SiliconDriver", "EmulationDriver", "TTNN",
};
constexpr std::string_view kLevelNames[] = {"trace", "debug", "info", "warning", "error", "critical", "off"};

logging::Level configured_level() {
  const char* text = std::getenv("TT_LOGGER_LEVEL");
  if (text == nullptr || *text == '\0') return logging::Level::Info;
  std::string value(text);
  for (char& c : value)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  if (value == "warn") return logging::Level::Warning;
  if (value == "fatal") return logging::Level::Critical;
  for (size_t i = 0; i < std::size(kLevelNames); ++i)
    if (value == kLevelNames[i]) return logging::Level(i);
  std::fprintf(stderr,
               "tessel: TT_LOGGER_LEVEL='%s' is not a log level: expected trace, debug, info, warning, error, "
               "critical or off; using info\n",
               text);
  return logging::Level::Info;
}

} // namespace

std::string_view logtype_to_string(LogType type) noexcept {
  return size_t(type) < std::size(kTypeNames) ? kTypeNames[size_t(type)] : "UnknownType";
}

namespace logging {

bool enabled(Level level) {
  static const Level threshold = configured_level();
  return level != Level::Off && level >= threshold;
}

void write(Level level, LogType type, std::string_view message) {
  const std::string line = fmt::format("[{}] [{}] {}\n", kLevelNames[size_t(level)], logtype_to_string(type), message);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

} // namespace logging
} // namespace tt
