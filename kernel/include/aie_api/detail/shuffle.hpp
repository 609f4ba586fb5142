// The AIE API on tessel: moving elements between lanes (shuffles, filters,
// interleaves, transpose). Lanes the AIE leaves undefined are zero here.
#ifndef TESSEL_AIE_API_DETAIL_SHUFFLE_HPP
#define TESSEL_AIE_API_DETAIL_SHUFFLE_HPP

#include "aie_api/detail/elementwise.hpp"
#include "aie_api/detail/vector.hpp"

#include <utility>

namespace aie {

// Element i moves to lane i + n; the lowest n lanes are zero.
template <typename T, unsigned N>
vector<T, N> shuffle_up(const vector<T, N>& v, unsigned n) {
  vector<T, N> r;
  for (unsigned i = n; i < N; ++i)
    r.elems_[i] = v.elems_[i - n];
  return r;
}
// Element i moves to lane i - n; the highest n lanes are zero.
template <typename T, unsigned N>
vector<T, N> shuffle_down(const vector<T, N>& v, unsigned n) {
  vector<T, N> r;
  for (unsigned i = 0; i + n < N; ++i)
    r.elems_[i] = v.elems_[i + n];
  return r;
}
// As shuffle_up; the lowest n lanes take the highest n elements of fill.
template <typename T, unsigned N>
vector<T, N> shuffle_up_fill(const vector<T, N>& v, const vector<T, N>& fill, unsigned n) {
  vector<T, N> r = shuffle_up(v, n);
  for (unsigned i = 0; i < n && i < N; ++i)
    r.elems_[i] = fill.elems_[N - n + i];
  return r;
}
// As shuffle_down; the highest n lanes take the lowest n elements of fill.
template <typename T, unsigned N>
vector<T, N> shuffle_down_fill(const vector<T, N>& v, const vector<T, N>& fill, unsigned n) {
  vector<T, N> r = shuffle_down(v, n);
  for (unsigned i = N - n; i < N; ++i)
    r.elems_[i] = fill.elems_[i + n - N];
  return r;
}
template <typename T, unsigned N>
vector<T, N> shuffle_up_rotate(const vector<T, N>& v, unsigned n) {
  return shuffle_up_fill(v, v, n % N);
}
template <typename T, unsigned N>
vector<T, N> shuffle_down_rotate(const vector<T, N>& v, unsigned n) {
  return shuffle_down_fill(v, v, n % N);
}
// As shuffle_up; the lowest n lanes repeat element 0 (a filter's left edge).
template <typename T, unsigned N>
vector<T, N> shuffle_up_replicate(const vector<T, N>& v, unsigned n) {
  return shuffle_up_fill(v, broadcast<T, N>(v.elems_[0]), n < N ? n : N);
}
// As shuffle_down; the highest n lanes repeat element N - 1.
template <typename T, unsigned N>
vector<T, N> shuffle_down_replicate(const vector<T, N>& v, unsigned n) {
  return shuffle_down_fill(v, broadcast<T, N>(v.elems_[N - 1]), n < N ? n : N);
}
template <typename T, unsigned N>
vector<T, N> reverse(const vector<T, N>& v) {
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = v.elems_[N - 1 - i];
  return r;
}

namespace detail {
// Blocks of `step` elements, every other one starting at block `first`.
template <typename T, unsigned N>
vector<T, N / 2> filter_blocks(const vector<T, N>& v, unsigned step, unsigned first, const char* what,
                               const std::source_location& at) {
  if (step == 0 || step > N / 2 || (N / 2) % step != 0) fail_index(what, step, N / 2 + 1, at);
  vector<T, N / 2> r;
  unsigned o = 0;
  for (unsigned b = first; b * step < N; b += 2)
    for (unsigned i = 0; i < step; ++i)
      r.elems_[o++] = v.elems_[b * step + i];
  return r;
}
} // namespace detail

// The even (odd) blocks of `step` elements: filter_even({0,1,2,3}) is {0,2}.
template <typename T, unsigned N>
vector<T, N / 2> filter_even(const vector<T, N>& v, unsigned step = 1,
                             std::source_location at = std::source_location::current()) {
  return detail::filter_blocks(v, step, 0, "aie::filter_even (step)", at);
}
template <typename T, unsigned N>
vector<T, N / 2> filter_odd(const vector<T, N>& v, unsigned step = 1,
                            std::source_location at = std::source_location::current()) {
  return detail::filter_blocks(v, step, 1, "aie::filter_odd (step)", at);
}

// Alternates blocks of `step` elements of a and b: a0 b0 a1 b1 ...; the
// first half of that sequence is .first, the second .second.
template <typename T, unsigned N>
std::pair<vector<T, N>, vector<T, N>> interleave_zip(const vector<T, N>& a, const vector<T, N>& b, unsigned step,
                                                     std::source_location at = std::source_location::current()) {
  if (step == 0 || step > N || N % step != 0) detail::fail_index("aie::interleave_zip (step)", step, N + 1, at);
  T all[2 * N];
  unsigned o = 0;
  for (unsigned blk = 0; blk < N / step; ++blk) {
    for (unsigned i = 0; i < step; ++i)
      all[o++] = a.elems_[blk * step + i];
    for (unsigned i = 0; i < step; ++i)
      all[o++] = b.elems_[blk * step + i];
  }
  std::pair<vector<T, N>, vector<T, N>> r;
  std::memcpy(r.first.elems_, all, sizeof r.first.elems_);
  std::memcpy(r.second.elems_, all + N, sizeof r.second.elems_);
  return r;
}
// The inverse of interleave_zip: the even blocks of a then b, and the odd.
template <typename T, unsigned N>
std::pair<vector<T, N>, vector<T, N>> interleave_unzip(const vector<T, N>& a, const vector<T, N>& b, unsigned step,
                                                       std::source_location at = std::source_location::current()) {
  if (step == 0 || step > N || N % step != 0) detail::fail_index("aie::interleave_unzip (step)", step, N + 1, at);
  std::pair<vector<T, N>, vector<T, N>> r;
  unsigned e = 0, o = 0;
  for (unsigned blk = 0; blk < 2 * N / step; ++blk)
    for (unsigned i = 0; i < step; ++i) {
      unsigned src = blk * step + i;
      T x = src < N ? a.elems_[src] : b.elems_[src - N];
      if (blk % 2 == 0)
        r.first.elems_[e++] = x;
      else
        r.second.elems_[o++] = x;
    }
  return r;
}

// v read as a rows x cols row-major matrix, returned as its cols x rows
// transpose.
template <typename T, unsigned N>
vector<T, N> transpose(const vector<T, N>& v, unsigned rows, unsigned cols,
                       std::source_location at = std::source_location::current()) {
  if (rows * cols != N) {
    char message[160];
    std::snprintf(message, sizeof message, "aie::transpose: %u rows x %u columns is not the vector's %u elements", rows,
                  cols, N);
    detail::fail(message, at.file_name(), at.line());
  }
  vector<T, N> r;
  for (unsigned i = 0; i < rows; ++i)
    for (unsigned j = 0; j < cols; ++j)
      r.elems_[j * rows + i] = v.elems_[i * cols + j];
  return r;
}

} // namespace aie

#endif
