// TT-Metalium's TT_FATAL / TT_THROW / TT_ASSERT: throw tessel::Error with
// the message formatted by fmt (the format string is checked at compile
// time, as Metalium's is). TT_ASSERT checks in every build, as TT_FATAL
// does. Including this brings in fmt, tt_stl/fmt.hpp's formatters, the
// tt-logger calls and the C assert macro (<cassert>), as Metalium's
// assert.hpp does: host programs call assert() with no include of their own.
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <string>
#include <utility>

#include "tessel/error.hpp"
#include "tt-logger/tt-logger.hpp"
#include "tt_stl/fmt.hpp"

namespace tt::tt_metal::detail {
template <typename... Args>
[[noreturn]] void throw_formatted(const char* file, int line, const char* what, fmt::format_string<Args...> format,
                                  Args&&... args) {
  std::string message = fmt::format("{}:{}: {}", file, line, what);
  const std::string detail = fmt::format(format, std::forward<Args>(args)...);
  if (!detail.empty()) message += ": " + detail;
  throw tessel::Error(message);
}
} // namespace tt::tt_metal::detail

#define TT_THROW(...) ::tt::tt_metal::detail::throw_formatted(__FILE__, __LINE__, "TT_THROW", __VA_ARGS__)
#define TT_FATAL(condition, ...)                                                                                       \
  do {                                                                                                                 \
    if (!(condition))                                                                                                  \
      ::tt::tt_metal::detail::throw_formatted(__FILE__, __LINE__, "TT_FATAL failed: " #condition, __VA_ARGS__);        \
  } while (false)
#define TT_ASSERT(condition, ...)                                                                                      \
  do {                                                                                                                 \
    if (!(condition))                                                                                                  \
      ::tt::tt_metal::detail::throw_formatted(__FILE__, __LINE__, "TT_ASSERT failed: " #condition, "" __VA_ARGS__);    \
  } while (false)
