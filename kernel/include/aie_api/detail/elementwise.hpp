// The AIE API on tessel: element-wise arithmetic, comparison, selection and
// reductions.
//
// Numerics: integer vector results wrap at the element width (the AIE's
// vector ALU does not saturate); bfloat16 results are computed in fp32 and
// rounded to bfloat16 by the current rounding mode; float results are IEEE
// fp32 (round to nearest even). max/min/abs/neg are exact.
#ifndef TESSEL_AIE_API_DETAIL_ELEMENTWISE_HPP
#define TESSEL_AIE_API_DETAIL_ELEMENTWISE_HPP

#include "aie_api/detail/vector.hpp"

namespace aie {

namespace detail {
// One element's result from a wider computation.
template <typename T>
inline T narrow(float v) {
  if constexpr (std::is_same_v<T, bfloat16>)
    return round_to_bf16(v, core_modes.rounding);
  else
    return v;
}
template <typename T>
inline T wrap(int64_t v) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v)));
}

template <typename T, unsigned N, typename F>
inline vector<T, N> map2(const vector<T, N>& a, const vector<T, N>& b, F f) {
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = f(a.elems_[i], b.elems_[i]);
  return r;
}
template <typename T, unsigned N, typename F>
inline vector<T, N> map1(const vector<T, N>& a, F f) {
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = f(a.elems_[i]);
  return r;
}

template <typename T>
inline T add1(T a, T b) {
  if constexpr (is_float_v<T>)
    return narrow<T>(float(a) + float(b));
  else
    return wrap<T>(int64_t(a) + int64_t(b));
}
template <typename T>
inline T sub1(T a, T b) {
  if constexpr (is_float_v<T>)
    return narrow<T>(float(a) - float(b));
  else
    return wrap<T>(int64_t(a) - int64_t(b));
}
template <typename T>
inline T max1(T a, T b) {
  return b > a ? b : a;
}
template <typename T>
inline T min1(T a, T b) {
  return b < a ? b : a;
}

template <typename T>
using scalar_t = std::type_identity_t<T>;
} // namespace detail

// ---- construction ----------------------------------------------------------
// broadcast<T, N>(x), broadcast<T>(x) (the native size) or broadcast(x)
// (the type of x).
template <typename T = void, unsigned N = 0, typename U>
auto broadcast(U x) {
  using E = std::conditional_t<std::is_void_v<T>, U, T>;
  constexpr unsigned M = N ? N : 512 / (8 * sizeof(E));
  vector<E, M> r;
  for (unsigned i = 0; i < M; ++i)
    r.elems_[i] = static_cast<E>(x);
  return r;
}
namespace detail {
template <typename T>
inline constexpr bool is_acc_tag = std::is_same_v<T, acc32> || std::is_same_v<T, acc64> || std::is_same_v<T, accfloat>;
template <typename T>
inline constexpr unsigned native_lanes = is_acc_tag<T> ? 16 : 512 / (8 * sizeof(T));
} // namespace detail
// Elements of T in one native (512-bit) vector register.
template <typename T>
inline constexpr unsigned native_vector_length_v = 512 / (8 * sizeof(T));
// zeros<T, N>(): a vector of zeros, or for an accumulator tag (accfloat,
// acc32, acc64) an accumulator of zeros, as the AIE API gives them.
template <typename T, unsigned N = detail::native_lanes<T>>
auto zeros() {
  if constexpr (detail::is_acc_tag<T>)
    return accum<T, N>();
  else
    return vector<T, N>();
}
// Two vectors, or two accumulators, end to end.
template <template <typename, unsigned> class V, typename T, unsigned N>
V<T, 2 * N> concat(const V<T, N>& a, const V<T, N>& b) {
  V<T, 2 * N> r;
  r.insert(0, a);
  r.insert(1, b);
  return r;
}
// Four parts (vectors or accumulators) in order.
template <typename V>
auto concat(const V& a, const V& b, const V& c, const V& d) {
  return concat(concat(a, b), concat(c, d));
}

// ---- arithmetic ------------------------------------------------------------
#define TESSEL_AIE_BINARY(name, fn)                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  vector<T, N> name(const vector<T, N>& a, const vector<T, N>& b) {                                                    \
    return detail::map2(a, b, detail::fn<T>);                                                                          \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  vector<T, N> name(const vector<T, N>& a, detail::scalar_t<T> b) {                                                    \
    return detail::map1(a, [b](T x) { return detail::fn<T>(x, b); });                                                  \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  vector<T, N> name(detail::scalar_t<T> a, const vector<T, N>& b) {                                                    \
    return detail::map1(b, [a](T x) { return detail::fn<T>(a, x); });                                                  \
  }
TESSEL_AIE_BINARY(add, add1)
TESSEL_AIE_BINARY(sub, sub1)
TESSEL_AIE_BINARY(max, max1)
TESSEL_AIE_BINARY(min, min1)
#undef TESSEL_AIE_BINARY

template <typename T, unsigned N>
vector<T, N> neg(const vector<T, N>& a) {
  if constexpr (std::is_same_v<T, bfloat16>)
    return detail::map1(a, [](T x) { return -x; });
  else if constexpr (std::is_same_v<T, float>)
    return detail::map1(a, [](T x) { return -x; });
  else
    return detail::map1(a, [](T x) { return detail::wrap<T>(-int64_t(x)); });
}
template <typename T, unsigned N>
vector<T, N> abs(const vector<T, N>& a) {
  if constexpr (std::is_same_v<T, bfloat16>)
    return detail::map1(a, [](T x) { return bfloat16::from_bits(x.bits & 0x7fff); });
  else if constexpr (std::is_same_v<T, float>)
    return detail::map1(a, [](T x) { return __builtin_fabsf(x); });
  else
    return detail::map1(a, [](T x) { return detail::wrap<T>(x < 0 ? -int64_t(x) : int64_t(x)); });
}

// ---- bit operations (integer elements) --------------------------------------
#define TESSEL_AIE_BITOP(name, op)                                                                                     \
  template <typename T, unsigned N>                                                                                    \
  vector<T, N> name(const vector<T, N>& a, const vector<T, N>& b) {                                                    \
    static_assert(!detail::is_float_v<T>, "aie::" #name ": bit operations take integer vectors");                      \
    return detail::map2(a, b, [](T x, T y) { return T(x op y); });                                                     \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  vector<T, N> name(const vector<T, N>& a, detail::scalar_t<T> b) {                                                    \
    static_assert(!detail::is_float_v<T>, "aie::" #name ": bit operations take integer vectors");                      \
    return detail::map1(a, [b](T x) { return T(x op b); });                                                            \
  }
TESSEL_AIE_BITOP(bit_and, &)
TESSEL_AIE_BITOP(bit_or, |)
TESSEL_AIE_BITOP(bit_xor, ^)
#undef TESSEL_AIE_BITOP
template <typename T, unsigned N>
vector<T, N> bit_not(const vector<T, N>& a) {
  static_assert(!detail::is_float_v<T>, "aie::bit_not: bit operations take integer vectors");
  return detail::map1(a, [](T x) { return T(~x); });
}
// ---- pack / unpack (integer elements, half or twice the width) ---------------
namespace detail {
template <typename T> struct narrower;
template <> struct narrower<int16> { using type = int8; };
template <> struct narrower<uint16> { using type = uint8; };
template <> struct narrower<int32> { using type = int16; };
template <> struct narrower<uint32> { using type = uint16; };
template <typename T> struct wider;
template <> struct wider<int8> { using type = int16; };
template <> struct wider<uint8> { using type = uint16; };
template <> struct wider<int16> { using type = int32; };
template <> struct wider<uint16> { using type = uint32; };
} // namespace detail
// Each element narrowed to half its width by the current saturation mode
// (the AIE does not round: the value is already an integer).
template <typename T, unsigned N>
vector<typename detail::narrower<T>::type, N> pack(const vector<T, N>& a) {
  using R = typename detail::narrower<T>::type;
  const saturation_mode m = detail::core_modes.saturation;
  vector<R, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = detail::saturate<R>(int64_t(a.elems_[i]), m);
  return r;
}
// The same bits as elements of U (v.cast_to<U>()).
template <typename U, typename T, unsigned N>
auto vector_cast(const vector<T, N>& v) {
  return v.template cast_to<U>();
}
// Each element widened to twice its width: sign-extended when signed,
// zero-extended when unsigned.
template <typename T, unsigned N>
vector<typename detail::wider<T>::type, N> unpack(const vector<T, N>& a) {
  using R = typename detail::wider<T>::type;
  vector<R, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = R(a.elems_[i]);
  return r;
}
template <typename T, unsigned N>
auto vector<T, N>::pack() const {
  return aie::pack(*this);
}
template <typename T, unsigned N>
auto vector<T, N>::unpack() const {
  return aie::unpack(*this);
}
// Elements shifted left by n (bits shifted out are lost).
template <typename T, unsigned N>
vector<T, N> upshift(const vector<T, N>& a, unsigned n) {
  static_assert(!detail::is_float_v<T>, "aie::upshift: shifts take integer vectors");
  return detail::map1(a, [n](T x) { return detail::wrap<T>(int64_t(uint64_t(int64_t(x)) << n)); });
}
// Elements shifted right by n: arithmetic for signed, logical for unsigned.
template <typename T, unsigned N>
vector<T, N> downshift(const vector<T, N>& a, unsigned n) {
  static_assert(!detail::is_float_v<T>, "aie::downshift: shifts take integer vectors");
  return detail::map1(a, [n](T x) { return T(x >> n); });
}

// ---- comparison and selection ------------------------------------------------
#define TESSEL_AIE_CMP(name, op)                                                                                       \
  template <typename T, unsigned N>                                                                                    \
  mask<N> name(const vector<T, N>& a, const vector<T, N>& b) {                                                         \
    mask<N> m;                                                                                                         \
    for (unsigned i = 0; i < N; ++i)                                                                                   \
      m.set(i, a.elems_[i] op b.elems_[i]);                                                                            \
    return m;                                                                                                          \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  mask<N> name(const vector<T, N>& a, detail::scalar_t<T> b) {                                                         \
    mask<N> m;                                                                                                         \
    for (unsigned i = 0; i < N; ++i)                                                                                   \
      m.set(i, a.elems_[i] op b);                                                                                      \
    return m;                                                                                                          \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  mask<N> name(detail::scalar_t<T> a, const vector<T, N>& b) {                                                         \
    mask<N> m;                                                                                                         \
    for (unsigned i = 0; i < N; ++i)                                                                                   \
      m.set(i, a op b.elems_[i]);                                                                                      \
    return m;                                                                                                          \
  }
TESSEL_AIE_CMP(lt, <)
TESSEL_AIE_CMP(le, <=)
TESSEL_AIE_CMP(gt, >)
TESSEL_AIE_CMP(ge, >=)
TESSEL_AIE_CMP(eq, ==)
TESSEL_AIE_CMP(neq, !=)
#undef TESSEL_AIE_CMP

// Lane i is b[i] where m is set, a[i] where it is clear.
template <typename T, unsigned N>
vector<T, N> select(const vector<T, N>& a, const vector<T, N>& b, const mask<N>& m) {
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = m.test(i) ? b.elems_[i] : a.elems_[i];
  return r;
}
template <typename T, unsigned N>
vector<T, N> select(detail::scalar_t<T> a, const vector<T, N>& b, const mask<N>& m) {
  return select(broadcast<T, N>(a), b, m);
}
template <typename T, unsigned N>
vector<T, N> select(const vector<T, N>& a, detail::scalar_t<T> b, const mask<N>& m) {
  return select(a, broadcast<T, N>(b), m);
}
template <typename T, unsigned N, typename = std::enable_if_t<detail::is_element_v<T>>>
vector<T, N> select(T a, detail::scalar_t<T> b, const mask<N>& m) {
  return select(broadcast<T, N>(a), broadcast<T, N>(b), m);
}

// Scalars: the larger / smaller of two elements.
template <typename T, typename = std::enable_if_t<detail::is_element_v<T>>>
T max(T a, detail::scalar_t<T> b) {
  return detail::max1(a, b);
}
template <typename T, typename = std::enable_if_t<detail::is_element_v<T>>>
T min(T a, detail::scalar_t<T> b) {
  return detail::min1(a, b);
}

// Each element brought into [lo, hi]: max(min(v, hi), lo).
template <typename T, unsigned N>
vector<T, N> clamp(const vector<T, N>& v, detail::scalar_t<T> lo, detail::scalar_t<T> hi) {
  return detail::map1(v, [lo, hi](T x) { return detail::max1(detail::min1(x, hi), lo); });
}

// ---- reductions ------------------------------------------------------------
// reduce_add halves the vector until one element is left (the AIE's order);
// integer sums wrap at the element width, bfloat16 sums are fp32 rounded to
// bfloat16 once at the end.
template <typename T, unsigned N>
T reduce_add(const vector<T, N>& v) {
  using W = std::conditional_t<detail::is_float_v<T>, float, int64_t>;
  W acc[N];
  for (unsigned i = 0; i < N; ++i)
    acc[i] = W(v.elems_[i]);
  for (unsigned n = N / 2; n >= 1; n /= 2)
    for (unsigned i = 0; i < n; ++i)
      acc[i] = acc[i] + acc[i + n];
  if constexpr (detail::is_float_v<T>)
    return detail::narrow<T>(acc[0]);
  else
    return detail::wrap<T>(acc[0]);
}
template <typename T, unsigned N>
T reduce_max(const vector<T, N>& v) {
  T r = v.elems_[0];
  for (unsigned i = 1; i < N; ++i)
    r = detail::max1(r, v.elems_[i]);
  return r;
}
template <typename T, unsigned N>
T reduce_min(const vector<T, N>& v) {
  T r = v.elems_[0];
  for (unsigned i = 1; i < N; ++i)
    r = detail::min1(r, v.elems_[i]);
  return r;
}

// `using namespace aie::operators;` spells the operations as operators:
// + - on vectors (and a scalar), & | ^ ~ << >> on integer vectors, < <= > >=
// == != as masks.
namespace operators {
#define TESSEL_AIE_OPERATOR(op, fn)                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  auto operator op(const vector<T, N>& a, const vector<T, N>& b) {                                                     \
    return fn(a, b);                                                                                                   \
  }                                                                                                                    \
  template <typename T, unsigned N>                                                                                    \
  auto operator op(const vector<T, N>& a, detail::scalar_t<T> b) {                                                     \
    return fn(a, b);                                                                                                   \
  }
TESSEL_AIE_OPERATOR(+, add)
TESSEL_AIE_OPERATOR(-, sub)
TESSEL_AIE_OPERATOR(&, bit_and)
TESSEL_AIE_OPERATOR(|, bit_or)
TESSEL_AIE_OPERATOR(^, bit_xor)
TESSEL_AIE_OPERATOR(<, lt)
TESSEL_AIE_OPERATOR(<=, le)
TESSEL_AIE_OPERATOR(>, gt)
TESSEL_AIE_OPERATOR(>=, ge)
TESSEL_AIE_OPERATOR(==, eq)
TESSEL_AIE_OPERATOR(!=, neq)
#undef TESSEL_AIE_OPERATOR
template <typename T, unsigned N>
vector<T, N> operator-(const vector<T, N>& a) {
  return neg(a);
}
template <typename T, unsigned N>
vector<T, N> operator~(const vector<T, N>& a) {
  return bit_not(a);
}
template <typename T, unsigned N>
vector<T, N> operator<<(const vector<T, N>& a, unsigned n) {
  return upshift(a, n);
}
template <typename T, unsigned N>
vector<T, N> operator>>(const vector<T, N>& a, unsigned n) {
  return downshift(a, n);
}
} // namespace operators

} // namespace aie

#endif
