// TT-Metalium's logging calls (tt-logger): log_trace, log_debug, log_info,
// log_warning, log_error, log_critical, log_fatal, each with an optional
// tt::LogType first, formatting with fmt. Lines go to stdout as
//   [info] [Test] message
// Which levels print: $TT_LOGGER_LEVEL (trace, debug, info, warning, error,
// critical, off; default info), read once; an unknown value is reported on
// stderr once and info is used. Unlike Metalium's, log_fatal only logs.
// Thread-safe: one line is one write.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <utility>

namespace tt {

enum LogType : uint32_t {
  LogAlways,
  LogTest,
  LogTimer,
  LogDevice,
  LogModel,
  LogLLRuntime,
  LogLoader,
  LogIO,
  LogCompileTrisc,
  LogBuildKernels,
  LogVerif,
  LogGolden,
  LogOp,
  LogHLK,
  LogHLKC,
  LogReportify,
  LogGraphCompiler,
  LogDispatch,
  LogFabric,
  LogMetal,
  LogMetalTrace,
  LogSiliconDriver,
  LogEmulationDriver,
  LogTTNN,
};

// "Test" for LogTest; "UnknownType" past the last one.
std::string_view logtype_to_string(LogType type) noexcept;

namespace logging {
enum class Level : uint8_t { Trace, Debug, Info, Warning, Error, Critical, Off };
// Whether lines of `level` print ($TT_LOGGER_LEVEL).
bool enabled(Level level);
void write(Level level, LogType type, std::string_view message);

template <typename... Args>
void log(Level level, LogType type, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(level)) return;
  const std::string message = fmt::format(format, std::forward<Args>(args)...);
  write(level, type, message);
}
} // namespace logging

#define TESSEL_LOGGER_LEVEL(name, level)                                                                               \
  template <typename... Args>                                                                                          \
  void name(LogType type, fmt::format_string<Args...> format, Args&&... args) {                                        \
    logging::log(logging::Level::level, type, format, std::forward<Args>(args)...);                                    \
  }                                                                                                                    \
  template <typename... Args>                                                                                          \
  void name(fmt::format_string<Args...> format, Args&&... args) {                                                      \
    logging::log(logging::Level::level, LogAlways, format, std::forward<Args>(args)...);                               \
  }
TESSEL_LOGGER_LEVEL(log_trace, Trace)
TESSEL_LOGGER_LEVEL(log_debug, Debug)
TESSEL_LOGGER_LEVEL(log_info, Info)
TESSEL_LOGGER_LEVEL(log_warning, Warning)
TESSEL_LOGGER_LEVEL(log_error, Error)
TESSEL_LOGGER_LEVEL(log_critical, Critical)
TESSEL_LOGGER_LEVEL(log_fatal, Critical)
#undef TESSEL_LOGGER_LEVEL

} // namespace tt

template <>
struct fmt::formatter<tt::LogType> : fmt::formatter<std::string_view> {
  auto format(tt::LogType type, format_context& ctx) const -> format_context::iterator {
    return fmt::formatter<std::string_view>::format(tt::logtype_to_string(type), ctx);
  }
};
