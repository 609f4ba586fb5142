// DPRINT for kernels, in both of TT-Metalium's forms:
//   DPRINT << "x=" << x << ENDL();          (stream)
//   DPRINT("x = {} y = {}\n", x, y);        (function-style, as DEVICE_PRINT)
// and the per-RISC forms DPRINT_DATA0/DATA1/UNPACK/MATH/PACK(...), which take
// a statement, a block, a stream expression or a format string with values.
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
inline void dprint_line(Dprint& d) {
  if (!d.enabled) return;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->dprint(k, k->dprint_buffer, k->dprint_length);
  k->dprint_length = 0;
}
// Text of a format string up to its next value placeholder ({} or {:spec},
// the spec ignored), with {{ and }} as braces and a newline ending the line.
// Returns the rest after the placeholder, or null at the end.
inline const char* dprint_text(Dprint& d, const char* f) {
  for (; *f; ++f) {
    if ((f[0] == '{' && f[1] == '{') || (f[0] == '}' && f[1] == '}')) {
      if (d.enabled) d.put(f, 1);
      ++f;
    } else if (f[0] == '{') {
      while (*f && *f != '}')
        ++f;
      return *f ? f + 1 : f;
    } else if (f[0] == '\n') {
      dprint_line(d);
    } else if (d.enabled) {
      d.put(f, 1);
    }
  }
  return nullptr;
}

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
  dprint_line(d);
  return d;
}
// The function-style form: each placeholder takes the next value, formatted
// as the stream form formats it.
template <typename... A>
inline void dprint_format(Dprint&& d, const char* f, const A&... a) {
  ((f = f ? dprint_text(d, f) : nullptr, f ? (void)(d << a) : (void)0), ...);
  if (f) dprint_text(d, f);
}
// A format string with no values, given as its spelling (#x of a macro
// argument, see TESSEL_DPRINT_BODY_1): the literals' text with escapes.
inline constexpr bool dprint_quoted(const char* spelling) { return spelling[0] == '"'; }
inline void dprint_spelled(const char* s) {
  Dprint d = dprint_begin();
  char text[256];
  unsigned n = 0;
  for (bool in = false; *s && n + 1 < sizeof text; ++s) {
    if (*s == '"') {
      in = !in;
    } else if (in && *s == '\\' && s[1]) {
      ++s;
      text[n++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == '0' ? '\0' : *s;
    } else if (in) {
      text[n++] = *s;
    }
  }
  text[n] = 0;
  dprint_text(d, text);
}
// Runs a DPRINT_* body on `risc` only, as compute thread `thread`.
struct DprintThread {
  tessel_kernel_ctx* k;
  uint32_t saved;
  DprintThread(tessel_kernel_ctx* ctx, uint32_t thread) : k(ctx), saved(ctx->dprint_thread) {
    k->dprint_thread = thread;
  }
  // A line the body left unfinished is printed as this thread's.
  ~DprintThread() {
    if (k->dprint_length && k->dprint_enabled) {
      k->api->dprint(k, k->dprint_buffer, k->dprint_length);
      k->dprint_length = 0;
    }
    k->dprint_thread = saved;
  }
};
// Rvalue start of a statement: `DPRINT << x` binds the temporary.
template <typename T>
inline Dprint& operator<<(Dprint&& d, T v) {
  return d << v;
}

// `DPRINT << ...` and `DPRINT(format, values...)` both start here.
struct DprintStart {
  template <typename... A>
  void operator()(const char* f, const A&... a) const {
    dprint_format(dprint_begin(), f, a...);
  }
};
template <typename T>
inline Dprint operator<<(DprintStart, const T& v) {
  Dprint d = dprint_begin();
  d << v;
  return d;
}

} // namespace tessel_detail

#define DPRINT (tessel_detail::DprintStart{})
#define DEVICE_PRINT(...) tessel_detail::dprint_format(tessel_detail::dprint_begin(), __VA_ARGS__)
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

// DPRINT_DATA0/DATA1/UNPACK/MATH/PACK(...): the body runs on the RISC (and,
// for compute, as the thread) the macro names. One argument is a statement,
// a block, a stream expression, or a format string alone (recognised by its
// spelling, so a block never has to parse as an expression); several are a
// format string and its values.
#define TESSEL_DPRINT_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, n, ...) n
#define TESSEL_DPRINT_NARGS(...) TESSEL_DPRINT_NARGS_(__VA_ARGS__, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, 1, 0)
#define TESSEL_DPRINT_CAT_(a, b) a##b
#define TESSEL_DPRINT_CAT(a, b) TESSEL_DPRINT_CAT_(a, b)
#define TESSEL_DPRINT_BODY_1(x)                                                                                        \
  if constexpr (tessel_detail::dprint_quoted(#x)) {                                                                    \
    tessel_detail::dprint_spelled(#x);                                                                                 \
  } else {                                                                                                             \
    x;                                                                                                                 \
  }
#define TESSEL_DPRINT_BODY_N(...) tessel_detail::dprint_format(tessel_detail::dprint_begin(), __VA_ARGS__);
#define TESSEL_DPRINT_ON(risc_id, thread, ...)                                                                         \
  do {                                                                                                                 \
    tessel_kernel_ctx* tessel_dprint_k = tessel_ctx();                                                                 \
    if (tessel_dprint_k->risc == (risc_id)) {                                                                          \
      tessel_detail::DprintThread tessel_dprint_as(tessel_dprint_k, thread);                                           \
      TESSEL_DPRINT_CAT(TESSEL_DPRINT_BODY_, TESSEL_DPRINT_NARGS(__VA_ARGS__))(__VA_ARGS__)                            \
    }                                                                                                                  \
  } while (0)
#define DPRINT_DATA0(...) TESSEL_DPRINT_ON(TESSEL_RISC_BRISC, TESSEL_DPRINT_THREAD_ALL, __VA_ARGS__)
#define DPRINT_DATA1(...) TESSEL_DPRINT_ON(TESSEL_RISC_NCRISC, TESSEL_DPRINT_THREAD_ALL, __VA_ARGS__)
#define DPRINT_UNPACK(...) TESSEL_DPRINT_ON(TESSEL_RISC_COMPUTE, TESSEL_DPRINT_THREAD_UNPACK, __VA_ARGS__)
#define DPRINT_MATH(...) TESSEL_DPRINT_ON(TESSEL_RISC_COMPUTE, TESSEL_DPRINT_THREAD_MATH, __VA_ARGS__)
#define DPRINT_PACK(...) TESSEL_DPRINT_ON(TESSEL_RISC_COMPUTE, TESSEL_DPRINT_THREAD_PACK, __VA_ARGS__)

#endif // TESSEL_DPRINT_H
