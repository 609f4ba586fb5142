// The AIE API on tessel: aie::vector, aie::mask and aie::accum.
//
// A vector<T, N> holds exactly N elements of T and nothing else (so the
// intrinsic idiom `*(v16int32*)p` reads 64 bytes at p). Sizes are the AIE's
// vector registers: N a power of two and 128 to 4096 bits in all (past
// 1024 bits, as the AIE API does, several native registers). An accum
// holds N lanes of its tag (acc32: 32-bit integer lanes, acc64: 64-bit,
// accfloat: fp32), 128 to 4096 bits in all (an mmul accumulator spans two registers). Other sizes and element types are
// refused at compile time, as the AIE compiler refuses them.
#ifndef TESSEL_AIE_API_DETAIL_VECTOR_HPP
#define TESSEL_AIE_API_DETAIL_VECTOR_HPP

#include "aie_api/detail/base.hpp"

#include <source_location>

namespace aie {

namespace detail {
constexpr bool is_pow2(unsigned n) { return n != 0 && (n & (n - 1)) == 0; }

[[noreturn]] inline void fail_index(const char* what, unsigned index, unsigned count, const std::source_location& at) {
  char message[160];
  std::snprintf(message, sizeof message, "%s: index %u is beyond the %u it holds (expected 0 to %u)", what, index,
                count, count - 1);
  fail(message, at.file_name(), at.line());
}
} // namespace detail

template <unsigned N>
class mask {
  static_assert(N >= 2 && N <= 128 && detail::is_pow2(N), "aie::mask: the lane count must be a power of two, 2 to 128");
  static constexpr unsigned kWords = (N + 63) / 64;
  uint64_t w_[kWords] = {};

public:
  static constexpr unsigned size() { return N; }
  constexpr mask() = default;
  constexpr explicit mask(bool all) {
    for (unsigned i = 0; i < N; ++i)
      set(i, all);
  }
  static constexpr mask from_uint32(uint32_t bits) {
    mask m;
    for (unsigned i = 0; i < N && i < 32; ++i)
      m.set(i, (bits >> i) & 1u);
    return m;
  }
  static constexpr mask from_uint64(uint64_t bits) {
    mask m;
    m.w_[0] = N >= 64 ? bits : bits & ((uint64_t(1) << N) - 1);
    return m;
  }
  constexpr uint32_t to_uint32(unsigned word = 0) const {
    return static_cast<uint32_t>(w_[word / 2] >> (32 * (word % 2)));
  }
  constexpr bool test(unsigned i) const { return (w_[i / 64] >> (i % 64)) & 1u; }
  constexpr void set(unsigned i, bool v = true) {
    if (v)
      w_[i / 64] |= uint64_t(1) << (i % 64);
    else
      w_[i / 64] &= ~(uint64_t(1) << (i % 64));
  }
  constexpr void clear(unsigned i) { set(i, false); }
  constexpr unsigned count() const {
    unsigned c = 0;
    for (unsigned i = 0; i < N; ++i)
      c += test(i);
    return c;
  }
  constexpr bool empty() const { return count() == 0; }
  constexpr bool full() const { return count() == N; }
  constexpr mask operator~() const {
    mask m;
    for (unsigned i = 0; i < N; ++i)
      m.set(i, !test(i));
    return m;
  }
  friend constexpr mask operator&(const mask& a, const mask& b) {
    return a.combine(b, [](bool x, bool y) { return x && y; });
  }
  friend constexpr mask operator|(const mask& a, const mask& b) {
    return a.combine(b, [](bool x, bool y) { return x || y; });
  }
  friend constexpr mask operator^(const mask& a, const mask& b) {
    return a.combine(b, [](bool x, bool y) { return x != y; });
  }
  friend constexpr bool operator==(const mask& a, const mask& b) { return (a ^ b).empty(); }

private:
  template <typename F>
  constexpr mask combine(const mask& o, F f) const {
    mask m;
    for (unsigned i = 0; i < N; ++i)
      m.set(i, f(test(i), o.test(i)));
    return m;
  }
};

// N defaults to a 512-bit vector, as in the AIE API.
template <typename T, unsigned N = 512 / (8 * sizeof(T))>
class vector {
  static_assert(detail::is_element_v<T>,
                "aie::vector: the element type must be int8, uint8, int16, uint16, int32, uint32, bfloat16 or float");
  static_assert(detail::is_pow2(N) && N * sizeof(T) * 8 >= 128 && N * sizeof(T) * 8 <= 4096,
                "aie::vector: the size must be a power of two and 128 to 4096 bits in all (one to four AIE vector "
                "registers)");

public:
  using value_type = T;
  T elems_[N];

  static constexpr unsigned size() { return N; }
  static constexpr unsigned bits() { return N * sizeof(T) * 8; }

  constexpr vector() : elems_{} {}
  template <typename... Ts>
  requires(sizeof...(Ts) >= 1 && sizeof...(Ts) < N) constexpr vector(T first, Ts... rest)
      : elems_{first, static_cast<T>(rest)...} {}

  T get(unsigned i, std::source_location at = std::source_location::current()) const {
    if (i >= N) detail::fail_index("aie::vector::get", i, N, at);
    return elems_[i];
  }
  vector& set(T v, unsigned i, std::source_location at = std::source_location::current()) {
    if (i >= N) detail::fail_index("aie::vector::set", i, N, at);
    elems_[i] = v;
    return *this;
  }
  T operator[](unsigned i) const { return elems_[i]; }
  T& operator[](unsigned i) { return elems_[i]; }

  // The idx-th block of M elements.
  template <unsigned M>
  vector<T, M> extract(unsigned idx, std::source_location at = std::source_location::current()) const {
    static_assert(M <= N && N % M == 0, "aie::vector::extract: the part must divide the vector");
    if (idx >= N / M) detail::fail_index("aie::vector::extract", idx, N / M, at);
    vector<T, M> r;
    for (unsigned i = 0; i < M; ++i)
      r.elems_[i] = elems_[idx * M + i];
    return r;
  }
  template <unsigned M>
  vector& insert(unsigned idx, const vector<T, M>& part, std::source_location at = std::source_location::current()) {
    static_assert(M <= N && N % M == 0, "aie::vector::insert: the part must divide the vector");
    if (idx >= N / M) detail::fail_index("aie::vector::insert", idx, N / M, at);
    for (unsigned i = 0; i < M; ++i)
      elems_[idx * M + i] = part.elems_[i];
    return *this;
  }
  // This vector as block idx of a larger one; the other elements are zero
  // (the AIE leaves them undefined).
  template <unsigned M>
  vector<T, M> grow(unsigned idx = 0) const {
    static_assert(M >= N && M % N == 0, "aie::vector::grow: the result must be a multiple of the vector");
    vector<T, M> r;
    r.insert(idx, *this);
    return r;
  }
  // aie::pack(*this) / aie::unpack(*this): half / twice the element width.
  auto pack() const;
  auto unpack() const;
  // The same bits as elements of U.
  template <typename U>
  vector<U, N * sizeof(T) / sizeof(U)> cast_to() const {
    vector<U, N * sizeof(T) / sizeof(U)> r;
    std::memcpy(r.elems_, elems_, sizeof elems_);
    return r;
  }
  // Moves every element up one lane and puts v in lane 0.
  vector& push(T v) {
    for (unsigned i = N - 1; i > 0; --i)
      elems_[i] = elems_[i - 1];
    elems_[0] = v;
    return *this;
  }
};

template <typename Tag, unsigned N>
class accum {
  static_assert(std::is_same_v<Tag, acc32> || std::is_same_v<Tag, acc64> || std::is_same_v<Tag, accfloat>,
                "aie::accum: the tag must be acc32, acc64 or accfloat");
  // Up to 4096 bits: an mmul's accumulator spans two registers (IRON's 8x2x8
  // int16 matmul accumulates 64 lanes of acc64).
  static_assert(detail::is_pow2(N) && N * detail::acc_bits<Tag> >= 128 && N * detail::acc_bits<Tag> <= 4096,
                "aie::accum: the lane count must be a power of two and 128 to 4096 bits in all");

public:
  using value_type = Tag;
  using lane_type = std::conditional_t<std::is_same_v<Tag, accfloat>, float, int64_t>;
  static constexpr bool is_float = std::is_same_v<Tag, accfloat>;
  lane_type lanes_[N];

  static constexpr unsigned size() { return N; }

  constexpr accum() : lanes_{} {}
  template <typename T>
  explicit accum(const vector<T, N>& v, int shift = 0) : lanes_{} {
    from_vector(v, shift);
  }

  // acc = v: from_vector(v), as the AIE API assigns a vector.
  template <typename T>
  accum& operator=(const vector<T, N>& v) {
    return from_vector(v);
  }

  // Each element shifted left by `shift` (integer tags); float elements are
  // exact in an fp32 lane.
  template <typename T>
  accum& from_vector(const vector<T, N>& v, int shift = 0) {
    static_assert(detail::is_float_v<T> == is_float,
                  "aie::accum::from_vector: integer vectors go to acc32/acc64, float vectors to accfloat");
    for (unsigned i = 0; i < N; ++i) {
      if constexpr (is_float)
        lanes_[i] = static_cast<float>(v.elems_[i]);
      else
        lanes_[i] = detail::wrap_lane(static_cast<int64_t>(static_cast<uint64_t>(int64_t(v.elems_[i])) << shift),
                                      detail::acc_bits<Tag>);
    }
    return *this;
  }

  // Integer lanes: shifted right by `shift` with the current rounding mode,
  // then brought into T by the current saturation mode. accfloat lanes:
  // to bfloat16 with the current rounding mode, to float exactly.
  template <typename T>
  vector<T, N> to_vector(int shift = 0) const {
    static_assert(detail::is_float_v<T> == is_float,
                  "aie::accum::to_vector: acc32/acc64 give integer vectors, accfloat gives bfloat16 or float");
    vector<T, N> r;
    const detail::modes m = detail::core_modes;
    for (unsigned i = 0; i < N; ++i) {
      if constexpr (std::is_same_v<T, float>)
        r.elems_[i] = lanes_[i];
      else if constexpr (std::is_same_v<T, bfloat16>)
        r.elems_[i] = detail::round_to_bf16(lanes_[i], m.rounding);
      else
        r.elems_[i] = detail::saturate<T>(detail::shift_round(lanes_[i], unsigned(shift), m.rounding), m.saturation);
    }
    return r;
  }
  template <typename T>
  operator vector<T, N>() const {
    return to_vector<T>(0);
  }

  lane_type get(unsigned i) const { return lanes_[i]; }
  template <unsigned M>
  accum<Tag, M> extract(unsigned idx) const {
    static_assert(M <= N && N % M == 0, "aie::accum::extract: the part must divide the accumulator");
    accum<Tag, M> r;
    for (unsigned i = 0; i < M; ++i)
      r.lanes_[i] = lanes_[idx * M + i];
    return r;
  }
  template <unsigned M>
  accum& insert(unsigned idx, const accum<Tag, M>& part) {
    static_assert(M <= N && N % M == 0, "aie::accum::insert: the part must divide the accumulator");
    for (unsigned i = 0; i < M; ++i)
      lanes_[idx * M + i] = part.lanes_[i];
    return *this;
  }
  template <unsigned M>
  accum<Tag, M> grow(unsigned idx = 0) const {
    accum<Tag, M> r;
    r.insert(idx, *this);
    return r;
  }

  // Lane arithmetic as the accumulator does it: integer lanes wrap at their
  // width, fp32 lanes round to nearest even.
  void add_lane(unsigned i, lane_type v) {
    if constexpr (is_float)
      lanes_[i] += v;
    else
      lanes_[i] = detail::wrap_lane(static_cast<int64_t>(uint64_t(lanes_[i]) + uint64_t(v)), detail::acc_bits<Tag>);
  }
};

} // namespace aie

#endif
