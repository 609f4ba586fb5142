// The name of an enumerator, found at compile time from the compiler's
// spelling of a template argument (GCC and Clang), for the fmt formatters
// (tt_stl/fmt.hpp). Values 0..kEnumNameLimit-1 are named; others, and
// values with no enumerator, print as their number.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tessel_compat {

inline constexpr int kEnumNameLimit = 128;

// "Name" for an enumerator `ns::E::Name`, "" when V names no enumerator
// (the compiler then spells it as a cast, "(ns::E)5").
template <auto V>
constexpr std::string_view enumerator_name() {
  constexpr std::string_view f = __PRETTY_FUNCTION__;
  constexpr size_t eq = f.find("V = ");
  constexpr std::string_view value = f.substr(eq + 4, f.find_first_of(";]", eq) - eq - 4);
  if (value.empty() || value.front() == '(') return {};
  constexpr size_t colon = value.rfind(':');
  return colon == std::string_view::npos ? value : value.substr(colon + 1);
}

template <typename E, size_t... I>
constexpr std::array<std::string_view, sizeof...(I)> enumerator_names(std::index_sequence<I...>) {
  return {enumerator_name<static_cast<E>(I)>()...};
}

// The enumerator's name, or "" (print the number instead).
template <typename E>
std::string_view enum_name(E value) {
  static constexpr auto names = enumerator_names<E>(std::make_index_sequence<kEnumNameLimit>{});
  const auto i = static_cast<std::underlying_type_t<E>>(value);
  if (i < 0 || static_cast<long long>(i) >= kEnumNameLimit) return {};
  return names[static_cast<size_t>(i)];
}

} // namespace tessel_compat
