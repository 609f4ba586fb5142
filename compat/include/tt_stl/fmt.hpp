// fmt formatters for what Metalium host programs print: enums by name
// (tt_stl/enum_name.hpp), std::optional, std::variant, std::vector,
// std::array, std::set, std::map, std::pair. Sequences print as
// "{a, b}", maps as "{k: v}", an empty optional as "std::nullopt".
// Like Metalium's, these conflict with fmt/ranges.h: include one or the other.
#pragma once

#include <fmt/format.h>

#include <array>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tt_stl/enum_name.hpp"

namespace tessel_compat {

// A formatter with no format spec of its own.
struct PlainFormatter {
  constexpr auto parse(fmt::format_parse_context& ctx) -> fmt::format_parse_context::iterator { return ctx.begin(); }
};

template <typename T>
auto format_value(fmt::format_context::iterator out, const T& value) -> fmt::format_context::iterator {
  if constexpr (std::is_pointer_v<T> && !std::is_same_v<std::remove_cv_t<std::remove_pointer_t<T>>, char>) {
    if (value == nullptr) return fmt::format_to(out, "nullptr");
    return fmt::format_to(out, "{}", fmt::ptr(value));
  } else {
    return fmt::format_to(out, "{}", value);
  }
}

template <typename Iter>
auto format_sequence(fmt::format_context::iterator out, Iter first, Iter last) -> fmt::format_context::iterator {
  out = fmt::format_to(out, "{{");
  for (Iter it = first; it != last; ++it) {
    if (it != first) out = fmt::format_to(out, ", ");
    // The cast turns std::vector<bool>'s proxy references into bools.
    out = format_value(out, static_cast<const std::iter_value_t<Iter>&>(*it));
  }
  return fmt::format_to(out, "}}");
}

} // namespace tessel_compat

template <typename E>
requires std::is_enum_v<E>
struct fmt::formatter<E> : tessel_compat::PlainFormatter {
  auto format(E value, format_context& ctx) const -> format_context::iterator {
    const std::string_view name = tessel_compat::enum_name(value);
    if (!name.empty()) return fmt::format_to(ctx.out(), "{}", name);
    return fmt::format_to(ctx.out(), "{}", static_cast<std::underlying_type_t<E>>(value));
  }
};

template <typename T>
struct fmt::formatter<std::optional<T>> : tessel_compat::PlainFormatter {
  auto format(const std::optional<T>& v, format_context& ctx) const -> format_context::iterator {
    if (!v) return fmt::format_to(ctx.out(), "std::nullopt");
    return tessel_compat::format_value(ctx.out(), *v);
  }
};

template <typename... Ts>
struct fmt::formatter<std::variant<Ts...>> : tessel_compat::PlainFormatter {
  auto format(const std::variant<Ts...>& v, format_context& ctx) const -> format_context::iterator {
    return std::visit([&](const auto& value) { return tessel_compat::format_value(ctx.out(), value); }, v);
  }
};

template <typename T, typename A>
struct fmt::formatter<std::vector<T, A>> : tessel_compat::PlainFormatter {
  auto format(const std::vector<T, A>& v, format_context& ctx) const -> format_context::iterator {
    return tessel_compat::format_sequence(ctx.out(), v.begin(), v.end());
  }
};

template <typename T, size_t N>
struct fmt::formatter<std::array<T, N>> : tessel_compat::PlainFormatter {
  auto format(const std::array<T, N>& v, format_context& ctx) const -> format_context::iterator {
    return tessel_compat::format_sequence(ctx.out(), v.begin(), v.end());
  }
};

template <typename K, typename C, typename A>
struct fmt::formatter<std::set<K, C, A>> : tessel_compat::PlainFormatter {
  auto format(const std::set<K, C, A>& v, format_context& ctx) const -> format_context::iterator {
    return tessel_compat::format_sequence(ctx.out(), v.begin(), v.end());
  }
};

template <typename K, typename V, typename C, typename A>
struct fmt::formatter<std::map<K, V, C, A>> : tessel_compat::PlainFormatter {
  auto format(const std::map<K, V, C, A>& m, format_context& ctx) const -> format_context::iterator {
    auto out = fmt::format_to(ctx.out(), "{{");
    bool first = true;
    for (const auto& [k, v] : m) {
      if (!first) out = fmt::format_to(out, ", ");
      first = false;
      out = tessel_compat::format_value(out, k);
      out = fmt::format_to(out, ": ");
      out = tessel_compat::format_value(out, v);
    }
    return fmt::format_to(out, "}}");
  }
};

template <typename A, typename B>
struct fmt::formatter<std::pair<A, B>> : tessel_compat::PlainFormatter {
  auto format(const std::pair<A, B>& p, format_context& ctx) const -> format_context::iterator {
    auto out = fmt::format_to(ctx.out(), "(");
    out = tessel_compat::format_value(out, p.first);
    out = fmt::format_to(out, ", ");
    out = tessel_compat::format_value(out, p.second);
    return fmt::format_to(out, ")");
  }
};
