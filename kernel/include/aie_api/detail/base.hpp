// The AIE API on tessel: element types, the scalar bfloat16, the rounding and
// saturation state, and the kernel fail path. Included by aie_api/aie.hpp.
//
// Rounding and saturation are per kernel binary (the JIT loads one copy of a
// kernel per core, and -fno-gnu-unique keeps inline variables apart), so a
// core's set_rounding() is seen by that core's kernel only, as on the AIE
// where the modes live in each core's control registers.
#ifndef TESSEL_AIE_API_DETAIL_BASE_HPP
#define TESSEL_AIE_API_DETAIL_BASE_HPP

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tessel/bf16_round.h"

// ---- element types --------------------------------------------------------

// The AIE's scalar bfloat16: 1 sign, 8 exponent, 7 mantissa bits. Converting
// from float rounds to nearest, ties to even (NaN stays a quiet NaN);
// converting to float is exact. Arithmetic is done in float.
struct bfloat16 {
  uint16_t bits;

  bfloat16() = default;
  constexpr bfloat16(float f) : bits(from_float(f)) {}
  constexpr bfloat16(double d) : bfloat16(static_cast<float>(d)) {}
  constexpr bfloat16(int i) : bfloat16(static_cast<float>(i)) {}
  constexpr bfloat16(unsigned i) : bfloat16(static_cast<float>(i)) {}
  constexpr bfloat16(long i) : bfloat16(static_cast<float>(i)) {}
  constexpr operator float() const { return __builtin_bit_cast(float, static_cast<uint32_t>(bits) << 16); }

  static constexpr bfloat16 from_bits(uint16_t b) {
    bfloat16 r{};
    r.bits = b;
    return r;
  }
  static constexpr uint16_t from_float(float f) { return tessel_bf16::from_float(f); }

  bfloat16& operator+=(float o) { return *this = float(*this) + o; }
  bfloat16& operator-=(float o) { return *this = float(*this) - o; }
  bfloat16& operator*=(float o) { return *this = float(*this) * o; }
  bfloat16& operator/=(float o) { return *this = float(*this) / o; }
  bfloat16 operator-() const { return from_bits(bits ^ 0x8000u); }
};
// No binary operators of its own: both operands convert to float, so `a + b`,
// `a < b` and `a * 3` are float operations, as on the AIE.

template <>
struct std::numeric_limits<bfloat16> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr bfloat16 lowest() { return bfloat16::from_bits(0xff7f); }
  static constexpr bfloat16 min() { return bfloat16::from_bits(0x0080); }
  static constexpr bfloat16 max() { return bfloat16::from_bits(0x7f7f); }
  static constexpr bfloat16 epsilon() { return bfloat16::from_bits(0x3c00); }
  static constexpr bfloat16 infinity() { return bfloat16::from_bits(0x7f80); }
  static constexpr bfloat16 quiet_NaN() { return bfloat16::from_bits(0x7fc0); }
};

// The AIE toolchain's scalar type names.
using int8 = int8_t;
using uint8 = uint8_t;
using int16 = int16_t;
using uint16 = uint16_t;
using int32 = int32_t;
using uint32 = uint32_t;
using int64 = int64_t;
using uint64 = uint64_t;

// Accumulator tags: global names, as kernels spell them (aie::accum<acc32, 16>).
struct acc32 {};
struct acc64 {};
struct accfloat {};
struct accauto {}; // the accumulator the operand types default to

namespace aie {
using ::acc32;
using ::acc64;
using ::accauto;
using ::accfloat;

// ---- rounding and saturation ---------------------------------------------
// floor/ceil: toward -inf/+inf; symmetric_floor/symmetric_ceil: toward/away
// from zero; the others round to nearest and differ on ties: positive_inf and
// negative_inf toward +inf/-inf, symmetric_inf/symmetric_zero away from/toward
// zero, conv_even/conv_odd to the even/odd neighbour.
enum class rounding_mode {
  floor,
  ceil,
  symmetric_floor,
  symmetric_ceil,
  negative_inf,
  positive_inf,
  symmetric_zero,
  symmetric_inf,
  conv_even,
  conv_odd,
};
// none and truncate wrap (keep the low bits); saturate clamps to the type's
// range; symmetric clamps to [-max, max].
enum class saturation_mode { none, truncate, saturate, symmetric };

namespace detail {
struct modes {
  // A kernel starts rounding to nearest, ties to even, as IRON's kernels run
  // (its bf16 add and mul designs check bit for bit against numpy's
  // round-to-nearest-even), and without saturation.
  rounding_mode rounding = rounding_mode::conv_even;
  saturation_mode saturation = saturation_mode::none;
};
inline modes core_modes;
} // namespace detail

inline void set_rounding(rounding_mode m) { detail::core_modes.rounding = m; }
// Sets the mode and returns the one it replaces (to restore it afterwards).
inline rounding_mode swap_rounding(rounding_mode m) {
  const rounding_mode old = detail::core_modes.rounding;
  detail::core_modes.rounding = m;
  return old;
}
inline rounding_mode get_rounding() { return detail::core_modes.rounding; }
inline void set_saturation(saturation_mode m) { detail::core_modes.saturation = m; }
inline saturation_mode swap_saturation(saturation_mode m) {
  const saturation_mode old = detail::core_modes.saturation;
  detail::core_modes.saturation = m;
  return old;
}
inline saturation_mode get_saturation() { return detail::core_modes.saturation; }

namespace detail {

// ---- the fail path ---------------------------------------------------------
// Inside a tessel kernel a misuse stops the kernel with a report naming the
// call site (the simulator's fail call); a host program that includes the
// header directly may define TESSEL_AIE_FAIL(message, file, line) first.
[[noreturn]] inline void fail(const char* message, const char* file, unsigned line) {
#if defined(TESSEL_AIE_FAIL)
  TESSEL_AIE_FAIL(message, file, line);
  __builtin_unreachable();
#elif defined(TESSEL_KERNEL_PRELUDE_H)
  tessel_kernel_ctx* ctx = tessel_ctx();
  ctx->api->fail(ctx, message, file, line);
  __builtin_unreachable();
#else
  std::fprintf(stderr, "%s:%u: %s\n", file, line, message);
  __builtin_trap();
#endif
}

// An address as the report shows it: the L1 offset inside a kernel.
inline unsigned long report_address(const void* p) {
#if defined(TESSEL_KERNEL_PRELUDE_H) && !defined(TESSEL_AIE_FAIL)
  return static_cast<unsigned long>(static_cast<const uint8_t*>(p) - tessel_ctx()->l1_base);
#else
  return reinterpret_cast<unsigned long>(p);
#endif
}

// ---- element type traits ---------------------------------------------------
template <typename T>
inline constexpr bool is_element_v =
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
    std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, bfloat16> || std::is_same_v<T, float>;

template <typename T>
inline constexpr bool is_float_v = std::is_same_v<T, bfloat16> || std::is_same_v<T, float>;

template <typename T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, int8_t>)
    return "int8";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "uint8";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "int16";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "uint16";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "int32";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "uint32";
  else if constexpr (std::is_same_v<T, bfloat16>)
    return "bfloat16";
  else
    return "float";
}

// The accumulator a product of A and B lands in (the AIE API's defaults).
template <typename A, typename B>
using default_acc_t = std::conditional_t<is_float_v<A> || is_float_v<B>, accfloat,
                                         std::conditional_t<(sizeof(A) >= 4 || sizeof(B) >= 4), acc64, acc32>>;

template <typename Tag>
inline constexpr unsigned acc_bits = std::is_same_v<Tag, acc64> ? 64 : 32; // accfloat lanes are fp32

// ---- integer rounding and saturation ---------------------------------------

// What rounding adds to floor(x) (0 or 1) by mode, for x negative or not,
// exact or not, its fraction below (-1), at (0) or above (1) one half, and
// floor(x) odd or not.
constexpr int round_up_step(rounding_mode m, bool neg, bool exact, int vs_half, bool odd) {
  switch (m) {
  case rounding_mode::floor: return 0;
  case rounding_mode::ceil: return !exact;
  case rounding_mode::symmetric_floor: return neg && !exact;
  case rounding_mode::symmetric_ceil: return !neg && !exact;
  default:
    if (vs_half != 0) return vs_half > 0;
    return m == rounding_mode::positive_inf || (m == rounding_mode::symmetric_inf && !neg) ||
           (m == rounding_mode::symmetric_zero && neg) || (m == rounding_mode::conv_even && odd) ||
           (m == rounding_mode::conv_odd && !odd);
  }
}

// v / 2^shift rounded by mode (shift 0..63).
constexpr int64_t shift_round(int64_t v, unsigned shift, rounding_mode m) {
  if (shift == 0) return v;
  __int128 x = v;
  __int128 q = x >> shift; // floor
  __int128 r = x - (q << shift);
  __int128 half = static_cast<__int128>(1) << (shift - 1);
  q += round_up_step(m, v < 0, r == 0, r < half ? -1 : r > half, q & 1);
  return static_cast<int64_t>(q);
}

// v brought into T's range by mode.
template <typename T>
constexpr T saturate(int64_t v, saturation_mode m) {
  constexpr int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::min());
  constexpr int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max());
  if (m == saturation_mode::saturate || m == saturation_mode::symmetric) {
    int64_t low = m == saturation_mode::symmetric && lo < 0 ? -hi : lo;
    return static_cast<T>(v < low ? low : v > hi ? hi : v);
  }
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<uint64_t>(v))); // wraps
}

// Sign-extends the low `bits` of v (an acc32 lane keeps 32 bits).
constexpr int64_t wrap_lane(int64_t v, unsigned bits) {
  if (bits >= 64) return v;
  return static_cast<int64_t>(static_cast<uint64_t>(v) << (64 - bits)) >> (64 - bits);
}

// float to bfloat16 by rounding mode: the dropped 16 bits of the
// sign-magnitude value are rounded as an integer shift would round them.
inline bfloat16 round_to_bf16(float f, rounding_mode m) {
  uint32_t u = __builtin_bit_cast(uint32_t, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return bfloat16::from_bits(static_cast<uint16_t>((u >> 16) | 0x0040u));
  int64_t mag = u & 0x7fffffffu;
  bool neg = u >> 31;
  int64_t q = shift_round(neg ? -mag : mag, 16, m);
  uint32_t qm = static_cast<uint32_t>(q < 0 ? -q : q);
  if (qm > 0x7f80u) qm = 0x7f80u; // rounding up from the largest finite gives infinity
  return bfloat16::from_bits(static_cast<uint16_t>((neg ? 0x8000u : 0u) | qm));
}

} // namespace detail
} // namespace aie

#endif
