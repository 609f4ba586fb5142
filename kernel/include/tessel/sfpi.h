// SFPI, the SFPU's vector language (sfpi.h in TT-Metalium's toolchain), as
// header-inline host code over the simulator's DST.
//
// Vectors. vFloat, vInt and vUInt hold the 32 lanes of one SFPU register
// (LReg): lane l sits at row l / 8, column l % 8 of the SFPU's 4 x 8 grid.
// Arithmetic is per lane, as the SFPU does it:
//  - vFloat +, -, * are SFPMAD: denormal operands read as zero, one
//    round-to-nearest-even, a denormal or -0 result is +0. `a * b + c` (and
//    `a * b - c`, `c - a * b`) written as one expression is one fused MAD,
//    as the SFPI compiler combines it;
//  - integer +, - wrap (two's complement); >> on vInt is arithmetic, on vUInt
//    logical;
//  - comparisons are the SFPU's: a float compare against 0.0f tests the
//    sign bit (< 0, >= 0) or all 32 bits (== 0, != 0) of the value itself, so
//    -0.0 < 0.0f; any other compare tests the sign / zero of the difference
//    (SFPMAD for floats, the wrapped 32-bit difference for integers).
//
// DST mapping (the ISA's SFPLOAD / SFPSTORE; Wormhole and Blackhole alike).
// DST is rows of 16 datums; a 32x32 tile is 64 rows, face f its rows
// 16f..16f+15 (face f holds tile rows 16*(f/2).., columns 16*(f%2)..). An
// SFPU LLK call sets a row cursor R (the tile's first row, then +16 per
// face); dst_reg[i] is address A = R + 2i, and lane l of it is
//
//     DST row (A & ~3) + l / 8,  column 2 * (l % 8) + ((A >> 1) & 1),
//
// i.e. four consecutive rows, even columns for A % 4 == 0, odd for A % 4 ==
// 2. dst_reg[0..7] cover one face; dst_reg[32 * t + i] (from a binary call's
// cursor at tile 0) is tile t. `dst_reg++` advances R by 2. vConstTileId
// holds 2 * l in lane l.
//
// Reads and writes of DST. Loads are exact. A store keeps all 32 bits with
// fp32_dest_acc_en; into 16-bit DST it is SFPSTORE's conversion to bfloat16:
// denormals flush to signed zero and the mantissa is truncated toward zero
// (the FPU ops' writes round to nearest even instead; docs/numerics.md).
//
// Conditionals. v_if / v_elseif / v_else / v_endif (and v_block / v_and /
// v_endblock) narrow the lane-enable mask as the SFPU's condition-code stack
// does, nesting freely. Every write is predicated: assigning to an existing
// vector variable (=, +=, ...) and storing to dst_reg change enabled lanes
// only; a variable constructed inside a conditional is computed on all lanes.
//
// Checks. DST is reached only through a window an SFPU LLK call opens
// (tessel/llk_sfpu.h, tessel_sim_api::sfpi_open): that call checks that MATH
// holds a section and names its tiles; a dst_reg row beyond the section, or
// dst_reg outside any call, fails the kernel. The window state lives in the
// compute context (tessel_sfpi_window), so the vector code needs no call per
// access. Not modelled: lut / lut2, l_reg, SFPLOADMACRO and replay, the
// programmable constants as per-column vectors (they hold one value), and
// the 16-bit and integer load/store modes of dst_reg[].mode<...>().
#ifndef TESSEL_SFPI_H
#define TESSEL_SFPI_H

#if defined(TESSEL_KERNEL_DATA_MOVEMENT)
#error                                                                                                                 \
    "sfpi.h: SFPI programs the SFPU, which only compute kernels reach: include it in a kernel created with a ComputeConfig (a data-movement kernel has no DST)"
#endif

#include <stddef.h> // size_t, which Metalium's SFPI headers make global

#include "tessel/kernel_abi.h"

#ifndef sfpi_inline
#define sfpi_inline inline __attribute__((always_inline))
#endif

namespace sfpi {

class vFloat;
class vInt;
class vUInt;
class vBool;

namespace tessel_impl {

constexpr int kLanes = 32;

sfpi_inline tessel_sfpi_window& window() { return tessel_ctx()->sfpi; }

// One SFPU register: 32 lanes of 32 bits, read as float or integers.
union Lanes {
  float f[kLanes];
  uint32_t u[kLanes];
  int32_t i[kLanes];
};

sfpi_inline uint32_t bits(float x) { return __builtin_bit_cast(uint32_t, x); }
sfpi_inline float from_bits(uint32_t b) { return __builtin_bit_cast(float, b); }
// SFPMAD's rule for operands and results alike: zero exponent (denormal or
// zero of either sign) reads and writes as +0.
sfpi_inline float flush(float x) { return (bits(x) & 0x7f800000u) ? x : 0.0f; }

// dst = src on the enabled lanes (every SFPU write is predicated).
sfpi_inline void assign(Lanes& dst, const Lanes& src) {
  const uint32_t enabled = window().lanes;
  if (enabled == ~0u) {
    dst = src;
    return;
  }
  for (int l = 0; l < kLanes; ++l)
    dst.u[l] = (enabled >> l) & 1u ? src.u[l] : dst.u[l];
}

// The slow path of a DST access: the row's tile is not ready (sim side).
__attribute__((noinline, cold)) inline void reach(int32_t row) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sfpi_reach(k, row, (uintptr_t)__builtin_return_address(0));
}

// The first float of the four DST rows dst_reg address `a` reads, checked.
sfpi_inline float* rows_at(int32_t a) {
  tessel_sfpi_window& w = window();
  const uint32_t row = uint32_t(a);
  if (__builtin_expect(row >= 64u * 32u || !((w.ready_mask >> (row >> 6)) & 1u), 0)) reach(a);
  return w.section + (row & ~3u) * 16u;
}

sfpi_inline void load(int32_t a, Lanes& out) {
  const float* base = rows_at(a) + ((uint32_t(a) >> 1) & 1u);
  for (int l = 0; l < kLanes; ++l)
    out.f[l] = base[(l >> 3) * 16 + (l & 7) * 2];
}

sfpi_inline void store(int32_t a, const Lanes& v) {
  float* base = rows_at(a) + ((uint32_t(a) >> 1) & 1u);
  const tessel_sfpi_window& w = window();
  Lanes out;
  if (w.dst_32bit) {
    out = v;
  } else {
    for (int l = 0; l < kLanes; ++l) {
      const uint32_t b = v.u[l];
      out.u[l] = (b & 0x7f800000u) ? b & 0xffff0000u : b & 0x80000000u;
    }
  }
  const uint32_t enabled = w.lanes;
  for (int l = 0; l < kLanes; ++l)
    if ((enabled >> l) & 1u) base[(l >> 3) * 16 + (l & 7) * 2] = out.f[l];
}

template <class T>
struct IsVector {
  static constexpr bool value = false;
};

class DReg;
template <class T>
class ConstReg;
struct MulExpr;

} // namespace tessel_impl

// The base of the vector types: its lanes.
class vVal {
public:
  tessel_impl::Lanes lanes;
};

class vFloat : public vVal {
public:
  sfpi_inline vFloat() = default;
  sfpi_inline vFloat(const vFloat&) = default;
  sfpi_inline vFloat(float x) {
    for (int l = 0; l < tessel_impl::kLanes; ++l)
      lanes.f[l] = x;
  }
  sfpi_inline vFloat(tessel_impl::DReg d);
  sfpi_inline vFloat& operator=(const vFloat& o) {
    tessel_impl::assign(lanes, o.lanes);
    return *this;
  }
  sfpi_inline vFloat& operator+=(vFloat o);
  sfpi_inline vFloat& operator-=(vFloat o);
  sfpi_inline vFloat& operator*=(vFloat o);
};

class vInt : public vVal {
public:
  sfpi_inline vInt() = default;
  sfpi_inline vInt(const vInt&) = default;
  sfpi_inline vInt(int x) {
    for (int l = 0; l < tessel_impl::kLanes; ++l)
      lanes.i[l] = x;
  }
  sfpi_inline vInt(unsigned x) : vInt(int(x)) {}
  sfpi_inline explicit vInt(const vUInt& v);
  sfpi_inline vInt(tessel_impl::DReg d);
  sfpi_inline vInt& operator=(const vInt& o) {
    tessel_impl::assign(lanes, o.lanes);
    return *this;
  }
  sfpi_inline vInt& operator+=(vInt o);
  sfpi_inline vInt& operator-=(vInt o);
  sfpi_inline vInt& operator&=(vInt o);
  sfpi_inline vInt& operator|=(vInt o);
  sfpi_inline vInt& operator^=(vInt o);
  sfpi_inline vInt& operator<<=(unsigned n);
  sfpi_inline vInt& operator>>=(unsigned n);
};

class vUInt : public vVal {
public:
  sfpi_inline vUInt() = default;
  sfpi_inline vUInt(const vUInt&) = default;
  sfpi_inline vUInt(unsigned x) {
    for (int l = 0; l < tessel_impl::kLanes; ++l)
      lanes.u[l] = x;
  }
  sfpi_inline vUInt(int x) : vUInt(unsigned(x)) {}
  sfpi_inline explicit vUInt(const vInt& v) { lanes = v.lanes; }
  sfpi_inline vUInt(tessel_impl::DReg d);
  sfpi_inline vUInt& operator=(const vUInt& o) {
    tessel_impl::assign(lanes, o.lanes);
    return *this;
  }
  sfpi_inline vUInt& operator+=(vUInt o);
  sfpi_inline vUInt& operator-=(vUInt o);
  sfpi_inline vUInt& operator&=(vUInt o);
  sfpi_inline vUInt& operator|=(vUInt o);
  sfpi_inline vUInt& operator^=(vUInt o);
  sfpi_inline vUInt& operator<<=(unsigned n);
  sfpi_inline vUInt& operator>>=(unsigned n);
};

sfpi_inline vInt::vInt(const vUInt& v) { lanes = v.lanes; }

// Lane loops for function bodies (plain loops, not lambdas: a compute
// kernel parses this header whether it uses SFPI or not). Each declares the
// result `r` and returns it; `l` is the lane, `x` / `y` the operands' lane
// values (bits for U1 / U2, flushed floats for F2).
#define TESSEL_SFPI_EACH_LANE for (int l = 0; l < ::sfpi::tessel_impl::kLanes; ++l)
#define TESSEL_SFPI_U1(V, a, expr)                                                                                     \
  V r;                                                                                                                 \
  TESSEL_SFPI_EACH_LANE {                                                                                              \
    const uint32_t x = (a).lanes.u[l];                                                                                 \
    r.lanes.u[l] = (expr);                                                                                             \
  }                                                                                                                    \
  return r
#define TESSEL_SFPI_U2(V, a, b, expr)                                                                                  \
  V r;                                                                                                                 \
  TESSEL_SFPI_EACH_LANE {                                                                                              \
    const uint32_t x = (a).lanes.u[l], y = (b).lanes.u[l];                                                             \
    r.lanes.u[l] = (expr);                                                                                             \
  }                                                                                                                    \
  return r
#define TESSEL_SFPI_F2(a, b, expr)                                                                                     \
  vFloat r;                                                                                                            \
  TESSEL_SFPI_EACH_LANE {                                                                                              \
    const float x = ::sfpi::tessel_impl::flush((a).lanes.f[l]), y = ::sfpi::tessel_impl::flush((b).lanes.f[l]);        \
    r.lanes.f[l] = ::sfpi::tessel_impl::flush(expr);                                                                   \
  }                                                                                                                    \
  return r

namespace tessel_impl {
template <>
struct IsVector<vFloat> {
  static constexpr bool value = true;
};
template <>
struct IsVector<vInt> {
  static constexpr bool value = true;
};
template <>
struct IsVector<vUInt> {
  static constexpr bool value = true;
};

} // namespace tessel_impl

// A lane mask: bit l set where the condition holds in lane l.
class vBool {
public:
  uint32_t mask;
  sfpi_inline explicit vBool(uint32_t m) : mask(m) {}
  sfpi_inline vBool(const vInt& v) : mask(0) {
    for (int l = 0; l < tessel_impl::kLanes; ++l)
      mask |= uint32_t(v.lanes.u[l] != 0) << l;
  }
  sfpi_inline vBool(const vUInt& v) : vBool(vInt(v)) {}
};
sfpi_inline vBool operator&&(vBool a, vBool b) { return vBool(a.mask & b.mask); }
sfpi_inline vBool operator||(vBool a, vBool b) { return vBool(a.mask | b.mask); }
sfpi_inline vBool operator!(vBool a) { return vBool(~a.mask); }

namespace tessel_impl {

enum class Cmp { Lt, Le, Gt, Ge, Eq, Ne };
// The SFPU's sign / zero tests (SFPSETCC) on a 32-bit value.
sfpi_inline bool test(Cmp c, uint32_t v) {
  const bool neg = (v >> 31) != 0, zero = v == 0;
  switch (c) {
  case Cmp::Lt: return neg;
  case Cmp::Ge: return !neg;
  case Cmp::Eq: return zero;
  case Cmp::Ne: return !zero;
  case Cmp::Gt: return !neg && !zero;
  case Cmp::Le: return neg || zero;
  }
  return false;
}
// Float compares test the SFPMAD difference, or the value itself against +0.
sfpi_inline vBool float_cmp(Cmp c, const vFloat& a, const vFloat& b) {
  uint32_t m = 0;
  TESSEL_SFPI_EACH_LANE m |= uint32_t(test(c, bits(flush(flush(a.lanes.f[l]) - flush(b.lanes.f[l]))))) << l;
  return vBool(m);
}
sfpi_inline vBool float_cmp(Cmp c, const vFloat& a, float b) {
  if (bits(b) != 0) return float_cmp(c, a, vFloat(b));
  uint32_t m = 0;
  TESSEL_SFPI_EACH_LANE m |= uint32_t(test(c, a.lanes.u[l])) << l;
  return vBool(m);
}
// Integer compares test the wrapped difference (SFPIADD).
sfpi_inline vBool int_cmp(Cmp c, const Lanes& a, const Lanes& b) {
  uint32_t m = 0;
  TESSEL_SFPI_EACH_LANE m |= uint32_t(test(c, a.u[l] - b.u[l])) << l;
  return vBool(m);
}

// A product not yet rounded: `a * b` fuses into a following + or -.
struct MulExpr {
  vFloat a, b;
  sfpi_inline operator vFloat() const { TESSEL_SFPI_F2(a, b, x * y); }
};
// sign * (a * b) + c in one rounding.
sfpi_inline vFloat mad(const MulExpr& m, float sign, const vFloat& c) {
  vFloat r;
  TESSEL_SFPI_EACH_LANE r.lanes.f[l] =
      flush(__builtin_fmaf(sign * flush(m.a.lanes.f[l]), flush(m.b.lanes.f[l]), flush(c.lanes.f[l])));
  return r;
}

} // namespace tessel_impl

// ---- vFloat arithmetic ----

sfpi_inline tessel_impl::MulExpr operator*(vFloat a, vFloat b) { return {a, b}; }
sfpi_inline tessel_impl::MulExpr operator*(float a, vFloat b) { return {vFloat(a), b}; }
sfpi_inline tessel_impl::MulExpr operator*(vFloat a, float b) { return {a, vFloat(b)}; }
sfpi_inline vFloat operator+(vFloat a, vFloat b) { TESSEL_SFPI_F2(a, b, x + y); }
sfpi_inline vFloat operator-(vFloat a, vFloat b) { TESSEL_SFPI_F2(a, b, x - y); }
sfpi_inline vFloat operator+(vFloat a, float b) { return a + vFloat(b); }
sfpi_inline vFloat operator+(float a, vFloat b) { return vFloat(a) + b; }
sfpi_inline vFloat operator-(vFloat a, float b) { return a - vFloat(b); }
sfpi_inline vFloat operator-(float a, vFloat b) { return vFloat(a) - b; }
// Negation flips the sign bit (no flush), as SFPMOV does.
sfpi_inline vFloat operator-(vFloat a) { TESSEL_SFPI_U1(vFloat, a, x ^ 0x80000000u); }
sfpi_inline vFloat operator+(vFloat a) { return a; }

sfpi_inline vFloat operator+(tessel_impl::MulExpr m, vFloat c) { return tessel_impl::mad(m, 1.0f, c); }
sfpi_inline vFloat operator+(vFloat c, tessel_impl::MulExpr m) { return tessel_impl::mad(m, 1.0f, c); }
sfpi_inline vFloat operator+(tessel_impl::MulExpr m, float c) { return tessel_impl::mad(m, 1.0f, vFloat(c)); }
sfpi_inline vFloat operator+(float c, tessel_impl::MulExpr m) { return tessel_impl::mad(m, 1.0f, vFloat(c)); }
sfpi_inline vFloat operator-(tessel_impl::MulExpr m, vFloat c) { return tessel_impl::mad(m, 1.0f, -c); }
sfpi_inline vFloat operator-(vFloat c, tessel_impl::MulExpr m) { return tessel_impl::mad(m, -1.0f, c); }
sfpi_inline vFloat operator-(tessel_impl::MulExpr m, float c) { return tessel_impl::mad(m, 1.0f, vFloat(-c)); }
sfpi_inline vFloat operator-(float c, tessel_impl::MulExpr m) { return tessel_impl::mad(m, -1.0f, vFloat(c)); }
sfpi_inline vFloat operator+(tessel_impl::MulExpr m, tessel_impl::MulExpr n) { return m + vFloat(n); }
sfpi_inline vFloat operator-(tessel_impl::MulExpr m, tessel_impl::MulExpr n) { return m - vFloat(n); }
sfpi_inline vFloat operator-(tessel_impl::MulExpr m) { return -vFloat(m); }

sfpi_inline vFloat& vFloat::operator+=(vFloat o) { return *this = *this + o; }
sfpi_inline vFloat& vFloat::operator-=(vFloat o) { return *this = *this - o; }
sfpi_inline vFloat& vFloat::operator*=(vFloat o) { return *this = vFloat(*this * o); }

// ---- vFloat comparisons ----

#define TESSEL_SFPI_FLOAT_CMP(op, c)                                                                                   \
  sfpi_inline vBool operator op(vFloat a, vFloat b) { return tessel_impl::float_cmp(tessel_impl::Cmp::c, a, b); }      \
  sfpi_inline vBool operator op(vFloat a, float b) { return tessel_impl::float_cmp(tessel_impl::Cmp::c, a, b); }
TESSEL_SFPI_FLOAT_CMP(<, Lt)
TESSEL_SFPI_FLOAT_CMP(<=, Le)
TESSEL_SFPI_FLOAT_CMP(>, Gt)
TESSEL_SFPI_FLOAT_CMP(>=, Ge)
TESSEL_SFPI_FLOAT_CMP(==, Eq)
TESSEL_SFPI_FLOAT_CMP(!=, Ne)
#undef TESSEL_SFPI_FLOAT_CMP
sfpi_inline vBool operator<(float a, vFloat b) { return b > a; }
sfpi_inline vBool operator<=(float a, vFloat b) { return b >= a; }
sfpi_inline vBool operator>(float a, vFloat b) { return b < a; }
sfpi_inline vBool operator>=(float a, vFloat b) { return b <= a; }
sfpi_inline vBool operator==(float a, vFloat b) { return b == a; }
sfpi_inline vBool operator!=(float a, vFloat b) { return b != a; }

// ---- vInt and vUInt: wrapping arithmetic, bitwise ops, shifts, compares ----

#define TESSEL_SFPI_INT_OPS(V)                                                                                         \
  sfpi_inline V operator+(V a, V b) { TESSEL_SFPI_U2(V, a, b, x + y); }                                                \
  sfpi_inline V operator-(V a, V b) { TESSEL_SFPI_U2(V, a, b, x - y); }                                                \
  sfpi_inline V operator&(V a, V b) { TESSEL_SFPI_U2(V, a, b, x& y); }                                                 \
  sfpi_inline V operator|(V a, V b) { TESSEL_SFPI_U2(V, a, b, x | y); }                                                \
  sfpi_inline V operator^(V a, V b) { TESSEL_SFPI_U2(V, a, b, x ^ y); }                                                \
  sfpi_inline V operator~(V a) { TESSEL_SFPI_U1(V, a, ~x); }                                                           \
  sfpi_inline V operator-(V a) { return V(0) - a; }                                                                    \
  sfpi_inline V operator+(V a) { return a; }                                                                           \
  sfpi_inline V operator<<(V a, unsigned n) { TESSEL_SFPI_U1(V, a, n < 32 ? x << n : 0u); }                            \
  sfpi_inline V operator<<(V a, V n) { TESSEL_SFPI_U2(V, a, n, y < 32 ? x << y : 0u); }                                \
  sfpi_inline vBool operator<(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Lt, a.lanes, b.lanes); }       \
  sfpi_inline vBool operator<=(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Le, a.lanes, b.lanes); }      \
  sfpi_inline vBool operator>(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Gt, a.lanes, b.lanes); }       \
  sfpi_inline vBool operator>=(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Ge, a.lanes, b.lanes); }      \
  sfpi_inline vBool operator==(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Eq, a.lanes, b.lanes); }      \
  sfpi_inline vBool operator!=(V a, V b) { return tessel_impl::int_cmp(tessel_impl::Cmp::Ne, a.lanes, b.lanes); }      \
  sfpi_inline V& V::operator+=(V o) { return *this = *this + o; }                                                      \
  sfpi_inline V& V::operator-=(V o) { return *this = *this - o; }                                                      \
  sfpi_inline V& V::operator&=(V o) { return *this = *this & o; }                                                      \
  sfpi_inline V& V::operator|=(V o) { return *this = *this | o; }                                                      \
  sfpi_inline V& V::operator^=(V o) { return *this = *this ^ o; }                                                      \
  sfpi_inline V& V::operator<<=(unsigned n) { return *this = *this << n; }                                             \
  sfpi_inline V& V::operator>>=(unsigned n) { return *this = *this >> n; }
sfpi_inline vInt operator>>(vInt a, unsigned n) { TESSEL_SFPI_U1(vInt, a, uint32_t(int32_t(x) >> (n < 32 ? n : 31))); }
sfpi_inline vInt operator>>(vInt a, vInt n) { TESSEL_SFPI_U2(vInt, a, n, uint32_t(int32_t(x) >> (y < 32 ? y : 31))); }
sfpi_inline vUInt operator>>(vUInt a, unsigned n) { TESSEL_SFPI_U1(vUInt, a, n < 32 ? x >> n : 0u); }
sfpi_inline vUInt operator>>(vUInt a, vUInt n) { TESSEL_SFPI_U2(vUInt, a, n, y < 32 ? x >> y : 0u); }
TESSEL_SFPI_INT_OPS(vInt)
TESSEL_SFPI_INT_OPS(vUInt)
#undef TESSEL_SFPI_INT_OPS

// ---- DST: dst_reg ----

namespace tessel_impl {

// dst_reg[i]: DST address row + 2i of the open window.
class DReg {
public:
  int32_t address;
  sfpi_inline explicit DReg(int32_t a) : address(a) {}
  sfpi_inline DReg(const DReg&) = default;
  sfpi_inline operator vFloat() const { return vFloat(*this); }
  sfpi_inline const DReg& operator=(const vVal& v) const {
    store(address, v.lanes);
    return *this;
  }
  sfpi_inline const DReg& operator=(const DReg& d) const { return *this = vFloat(d); }
  sfpi_inline const DReg& operator=(float x) const { return *this = vFloat(x); }
  sfpi_inline const DReg& operator=(const MulExpr& m) const { return *this = vFloat(m); }
};

class DstRegFile {
public:
  sfpi_inline DReg operator[](int i) const { return DReg(int32_t(window().row) + 2 * i); }
  sfpi_inline void operator++(int) const { window().row += 2; }
  sfpi_inline void operator++() const { window().row += 2; }
  sfpi_inline void operator+=(int n) const { window().row += 2 * n; }
};

} // namespace tessel_impl

sfpi_inline vFloat::vFloat(tessel_impl::DReg d) { tessel_impl::load(d.address, lanes); }
sfpi_inline vInt::vInt(tessel_impl::DReg d) { tessel_impl::load(d.address, lanes); }
sfpi_inline vUInt::vUInt(tessel_impl::DReg d) { tessel_impl::load(d.address, lanes); }

// dst_reg in expressions is a vFloat.
#define TESSEL_SFPI_DREG_OPS(op)                                                                                       \
  sfpi_inline auto operator op(tessel_impl::DReg a, tessel_impl::DReg b) { return vFloat(a) op vFloat(b); }            \
  sfpi_inline auto operator op(tessel_impl::DReg a, vFloat b) { return vFloat(a) op b; }                               \
  sfpi_inline auto operator op(vFloat a, tessel_impl::DReg b) { return a op vFloat(b); }                               \
  sfpi_inline auto operator op(tessel_impl::DReg a, float b) { return vFloat(a) op b; }                                \
  sfpi_inline auto operator op(float a, tessel_impl::DReg b) { return a op vFloat(b); }
TESSEL_SFPI_DREG_OPS(+)
TESSEL_SFPI_DREG_OPS(-)
TESSEL_SFPI_DREG_OPS(*)
TESSEL_SFPI_DREG_OPS(<)
TESSEL_SFPI_DREG_OPS(<=)
TESSEL_SFPI_DREG_OPS(>)
TESSEL_SFPI_DREG_OPS(>=)
TESSEL_SFPI_DREG_OPS(==)
TESSEL_SFPI_DREG_OPS(!=)
#undef TESSEL_SFPI_DREG_OPS
sfpi_inline vFloat operator-(tessel_impl::DReg a) { return -vFloat(a); }
sfpi_inline vFloat operator+(tessel_impl::MulExpr m, tessel_impl::DReg c) { return m + vFloat(c); }
sfpi_inline vFloat operator+(tessel_impl::DReg c, tessel_impl::MulExpr m) { return vFloat(c) + m; }
sfpi_inline vFloat operator-(tessel_impl::MulExpr m, tessel_impl::DReg c) { return m - vFloat(c); }
sfpi_inline vFloat operator-(tessel_impl::DReg c, tessel_impl::MulExpr m) { return vFloat(c) - m; }

constexpr tessel_impl::DstRegFile dst_reg{};

// ---- Constant registers ----

namespace tessel_impl {

enum class ConstId { Zero, One, NegOne, C0p8373, Prgm0, Prgm1, Prgm2, TileId };

// A read-only (or, for the programmable ones, SFPCONFIG-written) constant
// register, read as a vector of type T.
template <class T>
class ConstReg {
public:
  ConstId id;
  sfpi_inline operator T() const {
    T r;
    for (int l = 0; l < kLanes; ++l)
      r.lanes.u[l] = lane(l);
    return r;
  }
  // The programmable constants hold one value in every lane here.
  sfpi_inline void operator=(float x) const { set(bits(x)); }
  sfpi_inline void operator=(double x) const { set(bits(float(x))); }
  sfpi_inline void operator=(int x) const { set(uint32_t(x)); }
  sfpi_inline void operator=(unsigned x) const { set(x); }

private:
  sfpi_inline uint32_t lane(int l) const {
    switch (id) {
    case ConstId::Zero: return 0u;
    case ConstId::One: return 0x3f800000u;
    case ConstId::NegOne: return 0xbf800000u;
    case ConstId::C0p8373: return bits(0.8373f);
    case ConstId::Prgm0: return window().prgm[0];
    case ConstId::Prgm1: return window().prgm[1];
    case ConstId::Prgm2: return window().prgm[2];
    case ConstId::TileId: return uint32_t(2 * l);
    }
    return 0u;
  }
  sfpi_inline void set(uint32_t b) const {
    const int i = int(id) - int(ConstId::Prgm0);
    if (i >= 0 && i < 3) window().prgm[i] = b;
  }
};

} // namespace tessel_impl

constexpr tessel_impl::ConstReg<vFloat> vConst0{tessel_impl::ConstId::Zero};
constexpr tessel_impl::ConstReg<vFloat> vConst1{tessel_impl::ConstId::One};
constexpr tessel_impl::ConstReg<vFloat> vConstNeg1{tessel_impl::ConstId::NegOne};
constexpr tessel_impl::ConstReg<vFloat> vConst0p8373{tessel_impl::ConstId::C0p8373};
constexpr tessel_impl::ConstReg<vFloat> vConstFloatPrgm0{tessel_impl::ConstId::Prgm0};
constexpr tessel_impl::ConstReg<vFloat> vConstFloatPrgm1{tessel_impl::ConstId::Prgm1};
constexpr tessel_impl::ConstReg<vFloat> vConstFloatPrgm2{tessel_impl::ConstId::Prgm2};
constexpr tessel_impl::ConstReg<vInt> vConstIntPrgm0{tessel_impl::ConstId::Prgm0};
constexpr tessel_impl::ConstReg<vInt> vConstIntPrgm1{tessel_impl::ConstId::Prgm1};
constexpr tessel_impl::ConstReg<vInt> vConstIntPrgm2{tessel_impl::ConstId::Prgm2};
constexpr tessel_impl::ConstReg<vInt> vConstTileId{tessel_impl::ConstId::TileId};

// ---- Conditionals ----

namespace tessel_impl {

// One v_if ... v_endif (or v_block ... v_endblock): the lanes enabled
// around it, and those an earlier branch already took.
class Cond {
public:
  sfpi_inline Cond() : outer_(window().lanes), taken_(0) {}
  sfpi_inline ~Cond() { window().lanes = outer_; }
  Cond(const Cond&) = delete;
  Cond& operator=(const Cond&) = delete;
  // v_if / v_elseif: the lanes not yet taken where c holds.
  sfpi_inline void branch(vBool c) {
    const uint32_t now = outer_ & ~taken_ & c.mask;
    taken_ |= now;
    window().lanes = now;
  }
  // v_else: the lanes no branch took.
  sfpi_inline void otherwise() { window().lanes = outer_ & ~taken_; }
  // v_and: narrow the enabled lanes further.
  sfpi_inline void narrow(vBool c) { window().lanes &= c.mask; }

private:
  uint32_t outer_, taken_;
};

} // namespace tessel_impl

#define v_if(x)                                                                                                        \
  {                                                                                                                    \
    ::sfpi::tessel_impl::Cond tessel_sfpi_cond;                                                                        \
    tessel_sfpi_cond.branch(x);                                                                                        \
    {
#define v_elseif(x)                                                                                                    \
  }                                                                                                                    \
  tessel_sfpi_cond.branch(x);                                                                                          \
  {
#define v_else                                                                                                         \
  }                                                                                                                    \
  tessel_sfpi_cond.otherwise();                                                                                        \
  {
#define v_endif                                                                                                        \
  }                                                                                                                    \
  }
#define v_block                                                                                                        \
  {                                                                                                                    \
    ::sfpi::tessel_impl::Cond tessel_sfpi_cond;
#define v_and(x) tessel_sfpi_cond.narrow(x)
#define v_endblock }

// ---- Library: bit-field and conversion intrinsics ----

template <class T, class V>
sfpi_inline T reinterpret(const V& v) {
  static_assert(tessel_impl::IsVector<T>::value && tessel_impl::IsVector<V>::value,
                "sfpi::reinterpret converts between vFloat, vInt and vUInt");
  T r;
  r.lanes = v.lanes;
  return r;
}
template <class T>
sfpi_inline T reinterpret(tessel_impl::DReg d) {
  return reinterpret<T>(vFloat(d));
}
template <class T, class V>
sfpi_inline T as(const V& v) {
  return reinterpret<T>(v);
}

sfpi_inline vFloat abs(vFloat v) { TESSEL_SFPI_U1(vFloat, v, x & 0x7fffffffu); }
sfpi_inline vInt abs(vInt v) { TESSEL_SFPI_U1(vInt, v, int32_t(x) < 0 ? 0u - x : x); }
// The sign bit of v set to sgn's low bit, or to the sign of another vector.
sfpi_inline vFloat setsgn(vFloat v, int sgn) {
  TESSEL_SFPI_U1(vFloat, v, (x & 0x7fffffffu) | (uint32_t(sgn & 1) << 31));
}
template <class V>
sfpi_inline vFloat setsgn(vFloat v, V sgn) {
  static_assert(tessel_impl::IsVector<V>::value, "setsgn takes the sign from an int or a vector");
  TESSEL_SFPI_U2(vFloat, v, sgn, (x & 0x7fffffffu) | (y & 0x80000000u));
}
// Exponent: unbiased (exexp) or the raw 8-bit field (exexp_nodebias).
sfpi_inline vInt exexp(vFloat v) { TESSEL_SFPI_U1(vInt, v, ((x >> 23) & 0xffu) - 127u); }
sfpi_inline vInt exexp_nodebias(vFloat v) { TESSEL_SFPI_U1(vInt, v, (x >> 23) & 0xffu); }
// Mantissa: with the implicit one at bit 23 (exman8) or the 23 stored bits (exman9).
sfpi_inline vInt exman8(vFloat v) { TESSEL_SFPI_U1(vInt, v, (x & 0x7fffffu) | 0x800000u); }
sfpi_inline vInt exman9(vFloat v) { TESSEL_SFPI_U1(vInt, v, x & 0x7fffffu); }
// The exponent field set to the low 8 bits of e (a biased exponent).
sfpi_inline vFloat setexp(vFloat v, unsigned e) { TESSEL_SFPI_U1(vFloat, v, (x & 0x807fffffu) | ((e & 0xffu) << 23)); }
sfpi_inline vFloat setexp(vFloat v, int e) { return setexp(v, unsigned(e)); }
template <class V>
sfpi_inline vFloat setexp(vFloat v, V e) {
  static_assert(tessel_impl::IsVector<V>::value, "setexp takes an integer or a vector");
  TESSEL_SFPI_U2(vFloat, v, e, (x & 0x807fffffu) | ((y & 0xffu) << 23));
}
// The mantissa field set to the low 23 bits of m.
sfpi_inline vFloat setman(vFloat v, unsigned m) { TESSEL_SFPI_U1(vFloat, v, (x & 0xff800000u) | (m & 0x7fffffu)); }
sfpi_inline vFloat setman(vFloat v, int m) { return setman(v, unsigned(m)); }
template <class V>
sfpi_inline vFloat setman(vFloat v, V m) {
  static_assert(tessel_impl::IsVector<V>::value, "setman takes an integer or a vector");
  TESSEL_SFPI_U2(vFloat, v, m, (x & 0xff800000u) | (y & 0x7fffffu));
}
// n added to the exponent field (wrapping within the 8 bits).
sfpi_inline vFloat addexp(vFloat v, int n) {
  TESSEL_SFPI_U1(vFloat, v, (x & 0x807fffffu) | ((((x >> 23) + uint32_t(n)) & 0xffu) << 23));
}
// Leading zeros of the 32-bit value (32 for zero).
template <class V>
sfpi_inline vInt lz(V v) {
  static_assert(tessel_impl::IsVector<V>::value, "lz takes a vector");
  TESSEL_SFPI_U1(vInt, v, x ? uint32_t(__builtin_clz(x)) : 32u);
}
// Logical shift: left by amt, or right by -amt.
sfpi_inline vUInt shft(vUInt v, int amt) { return amt >= 0 ? v << unsigned(amt) : v >> unsigned(-amt); }
sfpi_inline vUInt shft(vUInt v, vInt amt) {
  TESSEL_SFPI_U2(vUInt, v, amt, int32_t(y) >= 0 ? (y < 32 ? x << y : 0u) : (int32_t(y) > -32 ? x >> (0u - y) : 0u));
}
// SFPCAST: a sign-magnitude integer (bit 31 sign, 31-bit magnitude) to the
// nearest float, ties to even. Non-negative two's complement values agree.
// Stochastic rounding (round_mode 1) is not modelled: always nearest even.
sfpi_inline vFloat int32_to_float(vInt v, int round_mode = 0) {
  (void)round_mode;
  vFloat r;
  TESSEL_SFPI_EACH_LANE {
    const uint32_t x = v.lanes.u[l];
    const float m = float(x & 0x7fffffffu);
    r.lanes.f[l] = (x >> 31) ? -m : m;
  }
  return r;
}
// Rounding to bfloat16 precision (SFPSTOCHRND), to nearest even; the result
// is a float whose low 16 bits are zero. Inf and NaN are truncated.
sfpi_inline vFloat float_to_fp16b(vFloat v, int round_mode = 0) {
  (void)round_mode;
  TESSEL_SFPI_U1(vFloat, v,
                 (x & 0x7f800000u) == 0x7f800000u ? x & 0xffff0000u : (x + 0x7fffu + ((x >> 16) & 1u)) & 0xffff0000u);
}
// a, b = min(a, b), max(a, b) per lane (SFPSWAP's ordering: -0 < +0).
sfpi_inline void vec_min_max(vFloat& a, vFloat& b) {
  vFloat lo = a, hi = b;
  for (int l = 0; l < tessel_impl::kLanes; ++l) {
    const int32_t x = a.lanes.i[l], y = b.lanes.i[l];
    // Sign-magnitude order: flip the magnitude bits of negative values.
    const int32_t kx = x < 0 ? int32_t(uint32_t(x) ^ 0x7fffffffu) : x;
    const int32_t ky = y < 0 ? int32_t(uint32_t(y) ^ 0x7fffffffu) : y;
    if (kx > ky) {
      lo.lanes.i[l] = y;
      hi.lanes.i[l] = x;
    }
  }
  a = lo;
  b = hi;
}

} // namespace sfpi

#endif // TESSEL_SFPI_H
