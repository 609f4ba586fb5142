// DPRINT for kernels: `DPRINT << "x=" << x << ENDL();`
//
// Printing is enabled per core by the host (TESSEL_DPRINT_CORES). Each line
// is emitted by the simulator prefixed with `device:(x=,y=):RISC:`. Values are
// formatted in the kernel into the context's line buffer; ENDL() flushes it.
#ifndef TESSEL_DPRINT_H
#define TESSEL_DPRINT_H

#include "tessel/kernel_abi.h"

extern "C" int snprintf(char* s, unsigned long n, const char* format, ...);

namespace tessel_detail {

struct DprintEndl {};
struct DprintSetPrecision {
  int p;
};
struct DprintSetW {
  int w;
};
struct DprintFixed {};
struct DprintDefaultFloat {};
struct DprintHex {};
struct DprintDec {};
struct DprintOct {};
struct DprintBf16 {
  uint16_t bits;
};

struct Dprint {
  bool enabled;
  // Sticky formatting state lives for one statement.
  int precision = 6;
  int width = 0;
  bool fixed = false;
  int base = 10;

  void put(const char* s, int n) {
    tessel_kernel_ctx* k = tessel_ctx();
    for (int i = 0; i < n && k->dprint_length < sizeof(k->dprint_buffer); ++i)
      k->dprint_buffer[k->dprint_length++] = s[i];
  }
  template <typename... A>
  void fmt(const char* f, A... a) {
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, f, a...);
    put(tmp, n < 0 ? 0 : (n > int(sizeof tmp) - 1 ? int(sizeof tmp) - 1 : n));
  }
  void integer(unsigned long long v, bool negative) {
    const char* f = base == 16 ? "%*llx" : base == 8 ? "%*llo" : negative ? "-%*llu" : "%*llu";
    fmt(f, width, v);
  }
};

inline Dprint dprint_begin() { return Dprint{tessel_ctx()->dprint_enabled != 0}; }

inline Dprint& operator<<(Dprint& d, const char* s) {
  if (d.enabled) d.fmt("%*s", d.width, s);
  return d;
}
inline Dprint& operator<<(Dprint& d, char c) {
  if (d.enabled) d.put(&c, 1);
  return d;
}
inline Dprint& operator<<(Dprint& d, unsigned long long v) {
  if (d.enabled) d.integer(v, false);
  return d;
}
// Signed values print with a minus sign in decimal and as their two's
// complement bits (of the value's own width) in hex and octal.
inline Dprint& signed_integer(Dprint& d, long long v, unsigned long long width_mask) {
  if (!d.enabled) return d;
  if (d.base != 10)
    d.integer((unsigned long long)v & width_mask, false);
  else
    d.integer(v < 0 ? (unsigned long long)(-(v + 1)) + 1 : (unsigned long long)v, v < 0);
  return d;
}
inline Dprint& operator<<(Dprint& d, long long v) { return signed_integer(d, v, ~0ull); }
inline Dprint& operator<<(Dprint& d, unsigned long v) { return d << (unsigned long long)v; }
inline Dprint& operator<<(Dprint& d, long v) { return d << (long long)v; }
inline Dprint& operator<<(Dprint& d, unsigned int v) { return d << (unsigned long long)v; }
inline Dprint& operator<<(Dprint& d, int v) { return signed_integer(d, v, 0xffffffffull); }
inline Dprint& operator<<(Dprint& d, unsigned short v) { return d << (unsigned long long)v; }
inline Dprint& operator<<(Dprint& d, short v) { return signed_integer(d, v, 0xffffull); }
inline Dprint& operator<<(Dprint& d, unsigned char v) { return d << (unsigned long long)v; }
inline Dprint& operator<<(Dprint& d, bool v) { return d << (v ? "true" : "false"); }
inline Dprint& operator<<(Dprint& d, double v) {
  if (d.enabled) d.fmt(d.fixed ? "%*.*f" : "%*.*g", d.width, d.precision, v);
  return d;
}
inline Dprint& operator<<(Dprint& d, float v) { return d << double(v); }
inline Dprint& operator<<(Dprint& d, const void* p) {
  if (d.enabled) d.fmt("%p", p);
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintBf16 v) {
  uint32_t bits = uint32_t(v.bits) << 16;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return d << f;
}
inline Dprint& operator<<(Dprint& d, DprintSetPrecision p) {
  d.precision = p.p;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintSetW w) {
  d.width = w.w;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintFixed) {
  d.fixed = true;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintDefaultFloat) {
  d.fixed = false;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintHex) {
  d.base = 16;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintDec) {
  d.base = 10;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintOct) {
  d.base = 8;
  return d;
}
inline Dprint& operator<<(Dprint& d, DprintEndl) {
  if (d.enabled) {
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->dprint(k, k->dprint_buffer, k->dprint_length);
    k->dprint_length = 0;
  }
  return d;
}
// Rvalue start of a statement: `DPRINT << x` binds the temporary.
template <typename T>
inline Dprint& operator<<(Dprint&& d, T v) {
  return d << v;
}

} // namespace tessel_detail

#define DPRINT tessel_detail::dprint_begin()
#define ENDL()                                                                                                         \
  tessel_detail::DprintEndl {}
#define SETPRECISION(n)                                                                                                \
  tessel_detail::DprintSetPrecision { int(n) }
#define SETW(n, ...)                                                                                                   \
  tessel_detail::DprintSetW { int(n) }
#define FIXED()                                                                                                        \
  tessel_detail::DprintFixed {}
#define DEFAULTFLOAT()                                                                                                 \
  tessel_detail::DprintDefaultFloat {}
#define HEX()                                                                                                          \
  tessel_detail::DprintHex {}
#define DEC()                                                                                                          \
  tessel_detail::DprintDec {}
#define OCT()                                                                                                          \
  tessel_detail::DprintOct {}
#define BF16(v)                                                                                                        \
  tessel_detail::DprintBf16 { uint16_t(v) }

#define DPRINT_DATA0(x)                                                                                                \
  do {                                                                                                                 \
    if (tessel_ctx()->risc == TESSEL_RISC_BRISC) {                                                                     \
      x;                                                                                                               \
    }                                                                                                                  \
  } while (0)
#define DPRINT_DATA1(x)                                                                                                \
  do {                                                                                                                 \
    if (tessel_ctx()->risc == TESSEL_RISC_NCRISC) {                                                                    \
      x;                                                                                                               \
    }                                                                                                                  \
  } while (0)
#define DPRINT_UNPACK(x)                                                                                               \
  do {                                                                                                                 \
    if (tessel_ctx()->risc == TESSEL_RISC_COMPUTE) {                                                                   \
      x;                                                                                                               \
    }                                                                                                                  \
  } while (0)
#define DPRINT_MATH(x) DPRINT_UNPACK(x)
#define DPRINT_PACK(x) DPRINT_UNPACK(x)

#endif // TESSEL_DPRINT_H
