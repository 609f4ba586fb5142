// TT-Metalium's TT_FATAL / TT_THROW / TT_ASSERT: throw tessel::Error with
// the message, formatted by substituting each "{}" with the next argument
// (written with operator<<; format specs inside the braces are not
// interpreted). TT_ASSERT checks in every build, as TT_FATAL does.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "tessel/error.hpp"

namespace tt::tt_metal::detail {

inline void format_into(std::ostringstream& os, std::string_view fmt) { os << fmt; }

template <typename Arg, typename... Rest>
void format_into(std::ostringstream& os, std::string_view fmt, const Arg& arg, const Rest&... rest) {
  const size_t open = fmt.find('{');
  const size_t close = open == std::string_view::npos ? open : fmt.find('}', open);
  if (close == std::string_view::npos) {
    os << fmt;
    return;
  }
  os << fmt.substr(0, open) << arg;
  format_into(os, fmt.substr(close + 1), rest...);
}

template <typename... Args>
[[noreturn]] void throw_formatted(const char* file, int line, const char* what, std::string_view fmt,
                                  const Args&... args) {
  std::ostringstream os;
  os << file << ":" << line << ": " << what;
  if (!fmt.empty()) {
    os << ": ";
    format_into(os, fmt, args...);
  }
  throw tessel::Error(os.str());
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
