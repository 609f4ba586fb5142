// The AIE API on tessel: multiplication into accumulators (mul, mac, msc,
// accumulate) and the matrix multiply aie::mmul.
//
// Numerics: integer products are exact (int32 x int32 fits an acc64 lane)
// and accumulate with wrap-around at the lane width (acc32: 32 bits, acc64:
// 64). Float products of bfloat16 are exact in fp32; float x float products
// and every sum are IEEE fp32, rounded to nearest even after each operation.
// mmul sums the K products of an output in k order onto the previous value.
// The AIE's adder tree may group the fp32 sums otherwise, so a float mmul
// agrees with silicon within K fp32 roundings, not bit for bit.
#ifndef TESSEL_AIE_API_DETAIL_MULTIPLY_HPP
#define TESSEL_AIE_API_DETAIL_MULTIPLY_HPP

#include "aie_api/detail/vector.hpp"

namespace aie {

namespace detail {
template <typename Tag, typename A, typename B>
inline typename accum<Tag, 16>::lane_type product(A a, B b) {
  if constexpr (std::is_same_v<Tag, accfloat>)
    return float(a) * float(b);
  else
    return static_cast<int64_t>(uint64_t(int64_t(a)) * uint64_t(int64_t(b))); // low 64 bits, exact below
}

template <typename Tag, typename A, typename B>
constexpr void check_product_types() {
  static_assert(is_float_v<A> == is_float_v<B>, "aie multiply: both operands must be integer or both floating point");
  static_assert(std::is_same_v<Tag, accfloat> == is_float_v<A>,
                "aie multiply: integer products accumulate in acc32/acc64, floating-point products in accfloat");
}

// The tag a product accumulates in when the caller names one (or void).
template <typename Requested, typename A, typename B>
using product_tag_t = std::conditional_t<std::is_void_v<Requested>, default_acc_t<A, B>, Requested>;

template <typename T>
using sc = std::type_identity_t<T>;

template <typename T, unsigned N>
vector<T, N> broadcast_like(const vector<T, N>&, T x) {
  vector<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.elems_[i] = x;
  return r;
}
} // namespace detail

// ---- mul / mac / msc ---------------------------------------------------------
// mul(a, b): the element-wise products in an accumulator (aie::mul<acc64>(a, b)
// names the tag); a or b may be a scalar.
template <typename Tag = void, typename A, typename B, unsigned N>
auto mul(const vector<A, N>& a, const vector<B, N>& b) {
  using T = detail::product_tag_t<Tag, A, B>;
  detail::check_product_types<T, A, B>();
  accum<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, detail::product<T>(a.elems_[i], b.elems_[i]));
  return r;
}
template <typename Tag = void, typename A, unsigned N>
auto mul(const vector<A, N>& a, detail::sc<A> b) {
  using T = detail::product_tag_t<Tag, A, A>;
  detail::check_product_types<T, A, A>();
  accum<T, N> r;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, detail::product<T>(a.elems_[i], b));
  return r;
}
template <typename Tag = void, typename A, unsigned N>
auto mul(detail::sc<A> a, const vector<A, N>& b) {
  return mul<Tag>(b, a);
}

// mul_square(a): a * a, element-wise, in an accumulator.
template <typename Tag = void, typename A, unsigned N>
auto mul_square(const vector<A, N>& a) {
  return mul<Tag>(a, a);
}

// mac: acc + a * b; msc: acc - a * b.
template <typename Tag, unsigned N, typename A, typename B>
accum<Tag, N> mac(const accum<Tag, N>& acc, const vector<A, N>& a, const vector<B, N>& b) {
  detail::check_product_types<Tag, A, B>();
  accum<Tag, N> r = acc;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, detail::product<Tag>(a.elems_[i], b.elems_[i]));
  return r;
}
template <typename Tag, unsigned N, typename A>
accum<Tag, N> mac(const accum<Tag, N>& acc, const vector<A, N>& a, detail::sc<A> b) {
  return mac(acc, a, detail::broadcast_like(a, b));
}
template <typename Tag, unsigned N, typename A, typename B>
accum<Tag, N> msc(const accum<Tag, N>& acc, const vector<A, N>& a, const vector<B, N>& b) {
  detail::check_product_types<Tag, A, B>();
  accum<Tag, N> r = acc;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, -detail::product<Tag>(a.elems_[i], b.elems_[i]));
  return r;
}
template <typename Tag, unsigned N, typename A>
accum<Tag, N> mac(const accum<Tag, N>& acc, detail::sc<A> a, const vector<A, N>& b) {
  return mac(acc, b, a);
}
template <typename Tag, unsigned N, typename A>
accum<Tag, N> msc(const accum<Tag, N>& acc, const vector<A, N>& a, detail::sc<A> b) {
  return msc(acc, a, detail::broadcast_like(a, b));
}
// mac_square(acc, a): acc + a * a, element-wise.
template <typename Tag, unsigned N, typename A>
accum<Tag, N> mac_square(const accum<Tag, N>& acc, const vector<A, N>& a) {
  return mac(acc, a, a);
}

// Accumulator addition: lanes add (integer lanes wrap at their width).
template <typename Tag, unsigned N>
accum<Tag, N> add(const accum<Tag, N>& a, const accum<Tag, N>& b) {
  accum<Tag, N> r = a;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, b.lanes_[i]);
  return r;
}
template <typename Tag, unsigned N, typename T>
accum<Tag, N> add(const accum<Tag, N>& a, const vector<T, N>& v) {
  return add(a, accum<Tag, N>(v));
}
template <typename Tag, unsigned N>
accum<Tag, N> sub(const accum<Tag, N>& a, const accum<Tag, N>& b) {
  accum<Tag, N> r = a;
  for (unsigned i = 0; i < N; ++i)
    r.add_lane(i, -b.lanes_[i]);
  return r;
}
template <typename Tag, unsigned N, typename T>
accum<Tag, N> sub(const accum<Tag, N>& a, const vector<T, N>& v) {
  return sub(a, accum<Tag, N>(v));
}
// An accumulator and a scalar: the scalar added to (taken from) every lane.
template <typename Tag, unsigned N, typename S, typename = std::enable_if_t<std::is_arithmetic_v<S>>>
accum<Tag, N> add(const accum<Tag, N>& a, S s) {
  using E = std::conditional_t<accum<Tag, N>::is_float, float, int32_t>;
  return add(a, accum<Tag, N>(broadcast<E, N>(E(s))));
}
template <typename Tag, unsigned N, typename S, typename = std::enable_if_t<std::is_arithmetic_v<S>>>
accum<Tag, N> sub(const accum<Tag, N>& a, S s) {
  using E = std::conditional_t<accum<Tag, N>::is_float, float, int32_t>;
  return sub(a, accum<Tag, N>(broadcast<E, N>(E(s))));
}

// accumulate<Lanes>(acc, coeff, first, v0, v1, ...): lane i is
// acc[i] + coeff[first] * v0[i] + coeff[first + 1] * v1[i] + ...
template <unsigned Lanes, typename Tag, typename C, unsigned CN, typename... V>
accum<Tag, Lanes> accumulate(const accum<Tag, Lanes>& acc, const vector<C, CN>& coeff, unsigned first, const V&... vs) {
  static_assert(sizeof...(V) >= 1, "aie::accumulate: give at least one data vector");
  static_assert(((V::size() == Lanes) && ...), "aie::accumulate: every data vector has the accumulator's lane count");
  accum<Tag, Lanes> r = acc;
  unsigned k = first;
  auto one = [&](const auto& v) {
    detail::check_product_types<Tag, C, typename std::decay_t<decltype(v)>::value_type>();
    for (unsigned i = 0; i < Lanes; ++i)
      r.add_lane(i, detail::product<Tag>(coeff.elems_[k], v.elems_[i]));
    ++k;
  };
  (one(vs), ...);
  return r;
}
template <unsigned Lanes, typename C, unsigned CN, typename V0, typename... V>
auto accumulate(const vector<C, CN>& coeff, unsigned first, const V0& v0, const V&... vs) {
  using Tag = detail::default_acc_t<C, typename V0::value_type>;
  return accumulate<Lanes>(accum<Tag, Lanes>(), coeff, first, v0, vs...);
}

// ---- mmul ------------------------------------------------------------------
// An M x K by K x N matrix multiply-accumulate on row-major blocks held in
// vectors (A: M*K elements, B: K*N, C: M*N). accauto (the default) picks
// the accumulator; integer inputs with an accfloat tag accumulate in the
// integer accumulator too, as the AIE API accepts that spelling.
namespace detail {
// mmul's default accumulator: 16-bit and wider integer operands use acc64
// (the AIE's int16 matrix multiplies accumulate in 64-bit lanes).
template <typename TA, typename TB>
using mmul_default_acc_t =
    std::conditional_t<!is_float_v<TA> && (sizeof(TA) >= 2 || sizeof(TB) >= 2), acc64, default_acc_t<TA, TB>>;
} // namespace detail

template <unsigned M_, unsigned K_, unsigned N_, typename TA, typename TB = TA, typename TagReq = accauto>
class mmul {
  using Tag = std::conditional_t<std::is_same_v<TagReq, accauto> ||
                                     (std::is_same_v<TagReq, accfloat> && !detail::is_float_v<TA>),
                                 detail::mmul_default_acc_t<TA, TB>, TagReq>;
  static_assert(detail::is_float_v<TA> == detail::is_float_v<TB>,
                "aie::mmul: A and B must both be integer or both floating point");

public:
  static constexpr unsigned M = M_, K = K_, N = N_;
  static constexpr unsigned size_A = M * K, size_B = K * N, size_C = M * N;
  using accum_type = accum<Tag, size_C>;
  using type_A = TA;
  using type_B = TB;

  mmul() = default;
  mmul(const accum_type& acc) : acc_(acc) {}  // NOLINT: implicit, as the AIE API's (mmul m = acc; m = acc;)
  template <typename T>
  explicit mmul(const vector<T, size_C>& c, int shift = 0) : acc_(c, shift) {}

  void mac(const vector<TA, size_A>& a, const vector<TB, size_B>& b) {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        auto& lane = acc_.lanes_[i * N + j];
        if constexpr (accum_type::is_float) {
          float sum = lane;
          for (unsigned k = 0; k < K; ++k)
            sum += float(a.elems_[i * K + k]) * float(b.elems_[k * N + j]);
          lane = sum;
        } else { // modulo 2^64, then the lane's width: the same as wrapping after every addition
          uint64_t sum = uint64_t(lane);
          for (unsigned k = 0; k < K; ++k)
            sum += uint64_t(int64_t(a.elems_[i * K + k]) * int64_t(b.elems_[k * N + j]));
          lane = detail::wrap_lane(int64_t(sum), detail::acc_bits<Tag>);
        }
      }
  }
  void mul(const vector<TA, size_A>& a, const vector<TB, size_B>& b) {
    acc_ = accum_type();
    mac(a, b);
  }
  template <typename T>
  vector<T, size_C> to_vector(int shift = 0) const {
    return acc_.template to_vector<T>(shift);
  }
  const accum_type& to_accum() const { return acc_; }
  operator accum_type() const { return acc_; }

private:
  accum_type acc_;
};

} // namespace aie

#endif
