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
struct DprintF32 {
  float val;
};
struct DprintU32 {
  uint32_t val;
};

} // namespace tessel_detail

// A bfloat16 value given by its bits, printed as the float it holds.
struct bf16_t {
  uint16_t bits;
  constexpr bf16_t(uint16_t raw_bits) : bits(raw_bits) {}
};

// A numpy-style slice [h0:h1:hs, w0:w1:ws] of a 32x32 tile, for TileSlice.
struct SliceRange {
  uint16_t h0, h1, hs, w0, w1, ws;
  // [0:32:16, 0:32:16], [0:32:8, 0:32:8], [0:32:4, 0:32:4]
  static constexpr SliceRange hw0_32_16() { return SliceRange{0, 32, 16, 0, 32, 16}; }
  static constexpr SliceRange hw0_32_8() { return SliceRange{0, 32, 8, 0, 32, 8}; }
  static constexpr SliceRange hw0_32_4() { return SliceRange{0, 32, 4, 0, 32, 4}; }
  // Row r, every column: [r, 0:32].
  static constexpr SliceRange row(uint16_t r) { return SliceRange{r, uint16_t(r + 1), 1, 0, 32, 1}; }
#define TESSEL_SLICE_ROW(r)                                                                                            \
  static constexpr SliceRange h##r##_w0_32() { return row(r); }
  TESSEL_SLICE_ROW(0)
  TESSEL_SLICE_ROW(1) TESSEL_SLICE_ROW(2) TESSEL_SLICE_ROW(3) TESSEL_SLICE_ROW(4) TESSEL_SLICE_ROW(5)
      TESSEL_SLICE_ROW(6) TESSEL_SLICE_ROW(7) TESSEL_SLICE_ROW(8) TESSEL_SLICE_ROW(9) TESSEL_SLICE_ROW(10)
          TESSEL_SLICE_ROW(11) TESSEL_SLICE_ROW(12) TESSEL_SLICE_ROW(13) TESSEL_SLICE_ROW(14) TESSEL_SLICE_ROW(15)
              TESSEL_SLICE_ROW(16) TESSEL_SLICE_ROW(17) TESSEL_SLICE_ROW(18) TESSEL_SLICE_ROW(19) TESSEL_SLICE_ROW(20)
                  TESSEL_SLICE_ROW(21) TESSEL_SLICE_ROW(22) TESSEL_SLICE_ROW(23) TESSEL_SLICE_ROW(24)
                      TESSEL_SLICE_ROW(25) TESSEL_SLICE_ROW(26) TESSEL_SLICE_ROW(27) TESSEL_SLICE_ROW(28)
                          TESSEL_SLICE_ROW(29) TESSEL_SLICE_ROW(30) TESSEL_SLICE_ROW(31)
#undef TESSEL_SLICE_ROW
      // Column 0 and column 1 of every row: [0:32, 0], [0:32, 1].
      static constexpr SliceRange h0_32_w0() {
    return SliceRange{0, 32, 1, 0, 1, 1};
  }
  static constexpr SliceRange h0_32_w1() { return SliceRange{0, 32, 1, 1, 2, 1}; }
  // The top-left 4x4: [0:4, 0:4].
  static constexpr SliceRange hw041() { return SliceRange{0, 4, 1, 0, 4, 1}; }
};

#define TSLICE_RD_PTR true
#define TSLICE_WR_PTR false
#define TSLICE_INPUT_CB true
#define TSLICE_OUTPUT_CB false

// DPRINT << TileSlice(...): the values of a slice of tile `tile_index` of a
// CB, counted from its read pointer (after cb_wait_front) or write pointer
// (after cb_reserve_back), in the CB's data format. Compute kernels sample
// from the thread printing (UNPACK: read pointer, PACK: write pointer; MATH
// has no CB access and prints a warning); data-movement kernels name the CB's
// role and pointer (default: BRISC the read, NCRISC the write pointer). At
// most kMaxBytes bytes of values are kept (two per Bfp value), as Metalium
// keeps them; a longer slice prints truncated. The call site is the
// constructor's.
template <int kMaxBytes = 64>
struct TileSlice {
  SliceRange range;
  uint32_t cb;
  int32_t tile_index;
  uint32_t flags;
  const char* file;
  uint32_t line;
#ifdef TESSEL_KERNEL_COMPUTE
  TileSlice(uint8_t cb_id, int tile_idx, const SliceRange& slice_range, bool endl_rows = true,
            bool print_untilized = true, const char* tessel_file = __builtin_FILE(),
            uint32_t tessel_line = __builtin_LINE())
      : range(slice_range), cb(cb_id), tile_index(tile_idx),
        flags(make_flags(0, endl_rows, print_untilized) | uint32_t(kMaxBytes) << 16), file(tessel_file),
        line(tessel_line) {}
#else
  // cb_type (TSLICE_INPUT_CB / TSLICE_OUTPUT_CB) names a role only: a CB has
  // one data format here. ptr_type < 0: the RISC's own pointer.
  TileSlice(uint8_t cb_id, int tile_idx, const SliceRange& slice_range, bool cb_type, int ptr_type = -1,
            bool endl_rows = true, bool print_untilized = true, const char* tessel_file = __builtin_FILE(),
            uint32_t tessel_line = __builtin_LINE())
      : range(slice_range), cb(cb_id), tile_index(tile_idx),
        flags(make_flags(ptr_type < 0 ? 0u : TESSEL_TSLICE_PTR_GIVEN | (ptr_type ? TESSEL_TSLICE_RD_PTR : 0u),
                         endl_rows, print_untilized) |
              uint32_t(kMaxBytes) << 16),
        file(tessel_file), line(tessel_line) {
    (void)cb_type;
  }
#endif
  static constexpr uint32_t make_flags(uint32_t ptr, bool endl_rows, bool untilize) {
    return ptr | (endl_rows ? TESSEL_TSLICE_ENDL_ROWS : 0u) | (untilize ? TESSEL_TSLICE_UNTILIZE : 0u);
  }
};
using TSLICE = TileSlice<64>;

namespace tessel_detail {

struct Dprint {
  bool enabled;
  // Sticky formatting state lives for one statement.
  int precision = 6;
  int width = 0;
  bool fixed = false;
  int base = 10;
  // A TileSlice ended the line it printed: the next line end is its own.
  bool slice_ended_line = false;

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
  // As Metalium's host printer does, ENDL() right after a tile slice that
  // ended with a row break adds no empty line.
  const bool absorbed = d.slice_ended_line && k->dprint_length == 0;
  d.slice_ended_line = false;
  if (absorbed) return;
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
inline Dprint& operator<<(Dprint& d, const DprintF32& v) { return d << v.val; }
inline Dprint& operator<<(Dprint& d, const DprintU32& v) { return d << v.val; }
inline Dprint& operator<<(Dprint& d, const bf16_t& v) { return d << DprintBf16{v.bits}; }
template <int kMaxBytes>
inline Dprint& operator<<(Dprint& d, const TileSlice<kMaxBytes>& s) {
  if (!d.enabled) return d;
  tessel_kernel_ctx* k = tessel_ctx();
  const uint16_t range[6] = {s.range.h0, s.range.h1, s.range.hs, s.range.w0, s.range.w1, s.range.ws};
  const uint32_t flags = s.flags | (d.fixed ? TESSEL_TSLICE_FIXED : 0u) | (d.base == 16 ? TESSEL_TSLICE_HEX : 0u) |
                         (d.base == 8 ? TESSEL_TSLICE_OCT : 0u);
  k->api->dprint_tile_slice(k, s.cb, s.tile_index, range, flags, uint32_t(d.precision), s.file, s.line);
  d.slice_ended_line = true;
  return d;
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
#define F32(v)                                                                                                         \
  tessel_detail::DprintF32 { float(v) }
#define U32(v)                                                                                                         \
  tessel_detail::DprintU32 { uint32_t(v) }

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
