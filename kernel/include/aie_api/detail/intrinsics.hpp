// The AIE API on tessel: the intrinsic-level names AIE kernels use beside the
// API (vector register types such as v16int32, srs/ups, shift_bytes,
// broadcast_to_*, event0/event1) and the chess compiler's spellings.
//
// The register types are the API's vectors and accumulators, so the
// element-wise intrinsics that share the API's names (add, sub, max, min,
// mul, mac) resolve to aie:: by argument-dependent lookup.
#ifndef TESSEL_AIE_API_DETAIL_INTRINSICS_HPP
#define TESSEL_AIE_API_DETAIL_INTRINSICS_HPP

#include "aie_api/detail/elementwise.hpp"
#include "aie_api/detail/vector.hpp"

#include "aie_api/detail/builtins.hpp"

// ---- register types ------------------------------------------------------
// With each type: undef_v<n><t>() (a register of undefined contents: zeros
// here), broadcast_one_to_v<n><t>() and extract_v<n><t>(v, idx) (part idx of
// a wider register).
#define TESSEL_AIE_VTYPE(n, t)                                                                                         \
  using v##n##t = aie::vector<t, n>;                                                                                   \
  inline v##n##t undef_v##n##t() { return v##n##t(); }                                                                 \
  inline v##n##t broadcast_one_to_v##n##t() { return aie::broadcast<t, n>(t(1)); }                                     \
  template <unsigned M>                                                                                                \
  v##n##t extract_v##n##t(const aie::vector<t, M>& v, int idx) {                                                       \
    return v.template extract<n>(unsigned(idx));                                                                       \
  }
TESSEL_AIE_VTYPE(16, int8)
TESSEL_AIE_VTYPE(32, int8)
TESSEL_AIE_VTYPE(64, int8)
TESSEL_AIE_VTYPE(128, int8)
TESSEL_AIE_VTYPE(16, uint8)
TESSEL_AIE_VTYPE(32, uint8)
TESSEL_AIE_VTYPE(64, uint8)
TESSEL_AIE_VTYPE(128, uint8)
TESSEL_AIE_VTYPE(8, int16)
TESSEL_AIE_VTYPE(16, int16)
TESSEL_AIE_VTYPE(32, int16)
TESSEL_AIE_VTYPE(64, int16)
TESSEL_AIE_VTYPE(8, uint16)
TESSEL_AIE_VTYPE(16, uint16)
TESSEL_AIE_VTYPE(32, uint16)
TESSEL_AIE_VTYPE(64, uint16)
TESSEL_AIE_VTYPE(4, int32)
TESSEL_AIE_VTYPE(8, int32)
TESSEL_AIE_VTYPE(16, int32)
TESSEL_AIE_VTYPE(32, int32)
TESSEL_AIE_VTYPE(4, uint32)
TESSEL_AIE_VTYPE(8, uint32)
TESSEL_AIE_VTYPE(16, uint32)
TESSEL_AIE_VTYPE(32, uint32)
TESSEL_AIE_VTYPE(8, bfloat16)
TESSEL_AIE_VTYPE(16, bfloat16)
TESSEL_AIE_VTYPE(32, bfloat16)
TESSEL_AIE_VTYPE(64, bfloat16)
TESSEL_AIE_VTYPE(4, float)
TESSEL_AIE_VTYPE(8, float)
TESSEL_AIE_VTYPE(16, float)
TESSEL_AIE_VTYPE(32, float)
#undef TESSEL_AIE_VTYPE
#define TESSEL_AIE_ATYPE(n, t) using v##n##t = aie::accum<t, n>;
TESSEL_AIE_ATYPE(8, acc32)
TESSEL_AIE_ATYPE(16, acc32)
TESSEL_AIE_ATYPE(32, acc32)
TESSEL_AIE_ATYPE(64, acc32)
TESSEL_AIE_ATYPE(4, acc64)
TESSEL_AIE_ATYPE(8, acc64)
TESSEL_AIE_ATYPE(16, acc64)
TESSEL_AIE_ATYPE(32, acc64)
TESSEL_AIE_ATYPE(8, accfloat)
TESSEL_AIE_ATYPE(16, accfloat)
TESSEL_AIE_ATYPE(32, accfloat)
TESSEL_AIE_ATYPE(64, accfloat)
#undef TESSEL_AIE_ATYPE

// ---- bit operations: the intrinsics' names for aie::bit_* --------------------
template <typename T, unsigned N>
aie::vector<T, N> band(const aie::vector<T, N>& a, const aie::vector<T, N>& b) { return aie::bit_and(a, b); }
template <typename T, unsigned N>
aie::vector<T, N> bor(const aie::vector<T, N>& a, const aie::vector<T, N>& b) { return aie::bit_or(a, b); }
template <typename T, unsigned N>
aie::vector<T, N> bxor(const aie::vector<T, N>& a, const aie::vector<T, N>& b) { return aie::bit_xor(a, b); }
template <typename T, unsigned N>
aie::vector<T, N> bneg(const aie::vector<T, N>& a) { return aie::bit_not(a); }

// ---- broadcasts ----------------------------------------------------------
#define TESSEL_AIE_BCAST(n, t)                                                                                         \
  inline v##n##t broadcast_to_v##n##t(t x) { return aie::broadcast<t, n>(x); }
TESSEL_AIE_BCAST(64, int8)
TESSEL_AIE_BCAST(64, uint8)
TESSEL_AIE_BCAST(32, int16)
TESSEL_AIE_BCAST(32, uint16)
TESSEL_AIE_BCAST(16, int32)
TESSEL_AIE_BCAST(16, uint32)
TESSEL_AIE_BCAST(32, bfloat16)
TESSEL_AIE_BCAST(16, bfloat16)
TESSEL_AIE_BCAST(16, float)
#undef TESSEL_AIE_BCAST
inline v64int8 broadcast_zero_s8() { return v64int8(); }
inline v64uint8 broadcast_zero_u8() { return v64uint8(); }
inline v32int16 broadcast_zero_s16() { return v32int16(); }
inline v32uint16 broadcast_zero_u16() { return v32uint16(); }
inline v16int32 broadcast_zero_s32() { return v16int32(); }
inline v16uint32 broadcast_zero_u32() { return v16uint32(); }
inline v32bfloat16 broadcast_zero_bfloat16() { return v32bfloat16(); }
inline v16float broadcast_zero_float() { return v16float(); }

// ---- lanes ---------------------------------------------------------------
template <typename T, unsigned N>
T extract_elem(const aie::vector<T, N>& v, int i) {
  return v.get(unsigned(i));
}
template <typename T, unsigned N>
aie::vector<T, N> insert(aie::vector<T, N> v, int i, T x) {
  return v.set(x, unsigned(i));
}

// The bytes [shift, shift + size) of a followed by b: shift_bytes(x, x, 32)
// brings a 64-byte register's upper half down.
template <typename T, unsigned N>
aie::vector<T, N> shift_bytes(const aie::vector<T, N>& a, const aie::vector<T, N>& b, unsigned shift) {
  constexpr unsigned bytes = N * sizeof(T);
  unsigned char all[2 * bytes];
  std::memcpy(all, a.elems_, bytes);
  std::memcpy(all + bytes, b.elems_, bytes);
  aie::vector<T, N> r;
  std::memcpy(r.elems_, all + (shift % (2 * bytes) < bytes ? shift % (2 * bytes) : bytes), bytes);
  return r;
}

// ---- the core's modes: the intrinsics' names for aie::set_saturation --------
inline void set_sat() { aie::set_saturation(aie::saturation_mode::saturate); }
inline void clr_sat() { aie::set_saturation(aie::saturation_mode::none); }

// ---- accumulator conversions --------------------------------------------
// srs: shift right, round and saturate by the current modes (acc32 lanes to
// int16, acc64 lanes to int32, fp32 lanes to bfloat16).
template <unsigned N>
aie::vector<int16, N> srs(const aie::accum<acc32, N>& acc, int shift) {
  return acc.template to_vector<int16>(shift);
}
template <unsigned N>
aie::vector<int32, N> srs(const aie::accum<acc64, N>& acc, int shift) {
  return acc.template to_vector<int32>(shift);
}
template <unsigned N>
aie::vector<bfloat16, N> srs(const aie::accum<accfloat, N>& acc) {
  return acc.template to_vector<bfloat16>();
}
#define TESSEL_AIE_SRS(name, t, tag)                                                                                   \
  template <unsigned N>                                                                                                \
  aie::vector<t, N> name(const aie::accum<tag, N>& acc, int shift) {                                                   \
    return acc.template to_vector<t>(shift);                                                                           \
  }
TESSEL_AIE_SRS(srs_to_v32int8, int8, acc32)
TESSEL_AIE_SRS(srs_to_v32int16, int16, acc32)
TESSEL_AIE_SRS(srs_to_v16int16, int16, acc64)
TESSEL_AIE_SRS(srs_to_v16int32, int32, acc64)
#undef TESSEL_AIE_SRS
// The AIE-ML's two-register shuffle (VSHUFFLE): `shuffle(a, b, T<bits>_<rows>x<cols>_lo|hi)`
// reads the 1024 bits of a then b as a rows x cols matrix of bits-wide
// elements (row-major), transposes it, and returns the low or high 512 bits
// of the result. T8_2x64 interleaves the bytes of a and b, T8_64x2 takes
// them apart again; T16_16x4 and its kin move one bit of the element index
// between row and column. (The modes' meaning follows their names; IRON's
// transpose.cc, which composes them into 4x4 and 8x8 block transposes, gives
// numpy's transposes with it.)
enum tessel_shuffle_mode : unsigned {
  T8_2x64_lo = 0x80200,
  T8_2x64_hi = 0x80201,
  T8_4x32_lo = 0x80400,
  T8_4x32_hi = 0x80401,
  T8_8x16_lo = 0x80800,
  T8_8x16_hi = 0x80801,
  T8_16x8_lo = 0x81000,
  T8_16x8_hi = 0x81001,
  T8_32x4_lo = 0x82000,
  T8_32x4_hi = 0x82001,
  T8_64x2_lo = 0x84000,
  T8_64x2_hi = 0x84001,
  T16_2x32_lo = 0x100200,
  T16_2x32_hi = 0x100201,
  T16_4x16_lo = 0x100400,
  T16_4x16_hi = 0x100401,
  T16_8x8_lo = 0x100800,
  T16_8x8_hi = 0x100801,
  T16_16x4_lo = 0x101000,
  T16_16x4_hi = 0x101001,
  T16_32x2_lo = 0x102000,
  T16_32x2_hi = 0x102001,
  T32_2x16_lo = 0x200200,
  T32_2x16_hi = 0x200201,
  T32_4x8_lo = 0x200400,
  T32_4x8_hi = 0x200401,
  T32_8x4_lo = 0x200800,
  T32_8x4_hi = 0x200801,
  T32_16x2_lo = 0x201000,
  T32_16x2_hi = 0x201001,
  T64_2x8_lo = 0x400200,
  T64_2x8_hi = 0x400201,
  T64_4x4_lo = 0x400400,
  T64_4x4_hi = 0x400401,
  T64_8x2_lo = 0x400800,
  T64_8x2_hi = 0x400801,
};

template <typename T, unsigned N>
aie::vector<T, N> shuffle(const aie::vector<T, N>& a, const aie::vector<T, N>& b, unsigned mode) {
  static_assert(sizeof(T) * N == 64, "::shuffle takes two 512-bit vectors");
  const unsigned bits = mode >> 16, rows = (mode >> 8) & 0xff, cols = 1024 / bits / rows, bytes = bits / 8;
  uint8_t in[128], out[128];
  __builtin_memcpy(in, &a, 64);
  __builtin_memcpy(in + 64, &b, 64);
  for (unsigned r = 0; r < rows; ++r)
    for (unsigned c = 0; c < cols; ++c)
      __builtin_memcpy(out + (c * rows + r) * bytes, in + (r * cols + c) * bytes, bytes);
  aie::vector<T, N> result;
  __builtin_memcpy(&result, out + (mode & 1) * 64, 64);
  return result;
}

inline v16bfloat16 to_v16bfloat16(const v16accfloat& acc) { return acc.to_vector<bfloat16>(); }
inline v32bfloat16 to_v32bfloat16(const v32accfloat& acc) { return acc.to_vector<bfloat16>(); }
inline v16accfloat ups_to_v16accfloat(const v16bfloat16& v) { return v16accfloat(v); }
inline v32acc32 ups_to_v32acc32(const v32int16& v, int shift) { return v32acc32(v, shift); }
inline v16acc64 ups_to_v16acc64(const v16int32& v, int shift) { return v16acc64(v, shift); }

#endif
