// TT-Metalium's tilize_nfaces / untilize_nfaces: a row-major m x n matrix to
// 32x32 tiles of four row-major 16x16 faces, tiles in row-major order, and
// back (the layout diagram is in include/tessel/tile.hpp). Values of any
// 1-, 2- or 4-byte trivially copyable type (bfloat16, float, uint32_t, ...)
// are moved as they are. m and n need not be multiples of 32: tilize pads
// with zero bits, untilize drops the padding.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "tessel/error.hpp"
#include "tessel/tile.hpp"

namespace tt::tt_metal::detail {

template <typename T>
using SameSizeWord =
    std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>;

template <typename T, typename Layout>
std::vector<T> relayout(const std::vector<T>& input, uint64_t expected_size, const char* call, Layout layout) {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4),
                "tilize_nfaces / untilize_nfaces move 1-, 2- or 4-byte values");
  if (input.size() != expected_size)
    throw tessel::ValidationError(std::string(call) + ": the input has " + std::to_string(input.size()) +
                                  " values; expected " + std::to_string(expected_size));
  using Word = SameSizeWord<T>;
  std::vector<Word> words(input.size());
  if (!input.empty()) std::memcpy(words.data(), input.data(), input.size() * sizeof(T));
  const std::vector<Word> moved = layout(std::span<const Word>(words));
  std::vector<T> out(moved.size());
  if (!out.empty()) std::memcpy(static_cast<void*>(out.data()), moved.data(), moved.size() * sizeof(T));
  return out;
}

} // namespace tt::tt_metal::detail

template <typename T>
std::vector<T> tilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  return tt::tt_metal::detail::relayout(input, uint64_t(m) * n, "tilize_nfaces",
                                        [&](auto words) { return tessel::tilize(words, m, n); });
}

template <typename T>
std::vector<T> untilize_nfaces(const std::vector<T>& input, uint32_t m, uint32_t n) {
  return tt::tt_metal::detail::relayout(input, tessel::tilized_size(m, n), "untilize_nfaces",
                                        [&](auto words) { return tessel::untilize(words, m, n); });
}
