// The LLK layer under custom SFPI kernels: the face loops that run an SFPI
// function over DST tiles (_llk_math_eltwise_{unary,binary}_sfpu_params_,
// the SFPU_*_CALL macros, _start_ / _done_), their inits, and the names they
// use (DstSync, DST_SYNC_MODE, get_dest_max_tiles, SfpuType, LLK_ASSERT).
// Included by the SFPU API headers of compute kernels (tessel/sfpu.h, with
// TRISC_MATH) and by the Metalium-path headers ckernel.h, sfpi.h,
// llk_math_eltwise_*_sfpu_*.h.
//
// A params call opens the SFPI window (tessel/sfpi.h) on the DST section
// MATH holds, naming the tiles it was given: the unary form starts the row
// cursor at tile dst_index, the binary form at tile 0 (its function indexes
// tiles itself, 32 dst_reg slots apart). Then, per VectorMode:
//   RC: faces 0, 1, 2, 3;  R: faces 0, 1;  C: faces 0, 2;
//   any other mode (None, RC_custom): the function once, at face 0;
// each face starts 16 rows after the previous one's start (dst_reg++ within
// a face moves only the cursor, as on silicon). The window closes when it
// returns.
// The call's site (file:line in messages) is where the vector-mode argument
// is written, or the call itself when it is defaulted.
//
// SFPU inits only configure address modifiers on silicon: here they run
// their callback, if any, and nothing else is required before a params call.
#ifndef TESSEL_LLK_SFPU_H
#define TESSEL_LLK_SFPU_H

#include "tessel/sfpi.h"
#include "tessel/sfpu.h"

// SFPU op names for the inits' template argument (Metalium's SfpuType,
// global there too); the inits configure nothing per op here.
enum class SfpuType {
  unused = 0,
  exponential,
  exp_with_base,
  log,
  log_with_base,
  reciprocal,
  sqrt,
  rsqrt,
  gelu,
  gelu_derivative,
  sigmoid,
  tanh,
  tanh_derivative,
  silu,
  relu_max,
  relu_min,
  lrelu,
  elu,
  abs,
  sign,
  square,
  power,
  sine,
  cosine,
  tan,
  floor,
  ceil,
  round,
  typecast,
  fill,
  add1,
  add_fp32,
  sub_fp32,
  mul_fp32,
  div_fp32,
  max,
  min,
  add_int32,
  mul_int32,
  topk_local_sort,
  dropout,
  negative,
  clamp,
};

namespace ckernel {

enum class DstTileShape { Tile32x32 = 0, Tile32x16 = 1, Tile16x16 = 2 };

// Tiles of a DST section in the given mode (32x32: 8 half-sync, 16
// full-sync, halved with a 32-bit DST; smaller tiles fit more).
template <DstSync SYNC_MODE, bool ACCUM_MODE, DstTileShape TILE_SHAPE>
constexpr uint32_t get_dest_max_tiles() {
  const uint32_t tiles32 = (SYNC_MODE == SyncHalf ? 8u : 16u) >> (ACCUM_MODE ? 1 : 0);
  return TILE_SHAPE == DstTileShape::Tile32x32   ? tiles32
         : TILE_SHAPE == DstTileShape::Tile32x16 ? 2 * tiles32
                                                 : 4 * tiles32;
}

namespace tessel_llk {

// A vector-mode argument with the site of the call it is passed to.
struct ModeAt {
  int mode;
  const char* file;
  uint32_t line;
  sfpi_inline ModeAt(int m, const char* f = __builtin_FILE(), uint32_t l = __builtin_LINE())
      : mode(m), file(f), line(l) {}
};

sfpi_inline uint32_t tile_bit(uint32_t idst) { return idst < 31 ? 1u << idst : 1u << 31; }

// Opens the window for `call` on the tiles in `tile_mask`, the cursor at
// tile `first_tile`.
sfpi_inline void open(const char* call, uint32_t tile_mask, uint32_t first_tile, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->sfpi_open(k, call, tile_mask, file, line);
  k->sfpi.row = k->sfpi.face_row = first_tile * 64u;
}
sfpi_inline void close() {
  tessel_sfpi_window& w = tessel_ctx()->sfpi;
  w.section = nullptr;
  w.ready_mask = 0;
  w.lanes = ~0u;
}
// The next face starts 16 rows after this one's start, whatever dst_reg++
// did within it (SETRWC from Dst_Cr, as tt-llk's face loops advance).
sfpi_inline void next_face() {
  tessel_sfpi_window& w = tessel_ctx()->sfpi;
  w.row = w.face_row += 16u;
}

// Runs face(), the per-face SFPI function, over the faces `mode` selects.
template <class Face>
sfpi_inline void faces(int mode, Face&& face) {
  if (mode == VectorMode::RC) {
    for (int f = 0; f < 4; ++f) {
      face();
      next_face();
    }
  } else if (mode == VectorMode::R) {
    for (int f = 0; f < 2; ++f) {
      face();
      next_face();
    }
  } else if (mode == VectorMode::C) {
    for (int f = 0; f < 2; ++f) {
      face();
      next_face();
      next_face();
    }
  } else {
    face();
  }
}

} // namespace tessel_llk

// ---------------------------------------------------------------------------
// Inits

template <SfpuType OP = SfpuType::unused, bool APPROXIMATE = false>
sfpi_inline void llk_math_eltwise_unary_sfpu_init() {}
template <SfpuType OP, bool APPROXIMATE = false, class F, class... Args>
sfpi_inline void llk_math_eltwise_unary_sfpu_init(F&& init_func, Args&&... args) {
  init_func(static_cast<Args&&>(args)...);
}
template <SfpuType OP = SfpuType::unused, bool APPROXIMATE = false>
sfpi_inline void llk_math_eltwise_binary_sfpu_init() {}
template <SfpuType OP, bool APPROXIMATE = false, class F, class... Args>
sfpi_inline void llk_math_eltwise_binary_sfpu_init(F&& init_func, Args&&... args) {
  init_func(static_cast<Args&&>(args)...);
}

// The macros' precondition checks: the params call checks the same (and
// the DST protocol), with the call's site.
template <DstSync DST_SYNC = SyncHalf, bool DST_ACCUM = false>
sfpi_inline void _sfpu_check_(uint32_t, int = VectorMode::RC) {}
template <DstSync DST_SYNC = SyncHalf, bool DST_ACCUM = false>
sfpi_inline void _sfpu_binary_check_(uint32_t, uint32_t, uint32_t, int = VectorMode::RC) {}

} // namespace ckernel


// ---------------------------------------------------------------------------
// Face loops (tt-llk's names, global as there).

template <bool APPROXIMATE = false>
sfpi_inline void _llk_math_eltwise_unary_sfpu_init_() {}
template <bool APPROXIMATE = false>
sfpi_inline void _llk_math_eltwise_binary_sfpu_init_() {}

template <bool APPROXIMATE = false, class Callable, class... Args>
inline void _llk_math_eltwise_unary_sfpu_params_(Callable&& sfpu_func, uint32_t dst_index,
                                                 ckernel::tessel_llk::ModeAt vector_mode = ckernel::VectorMode::RC,
                                                 Args&&... args) {
  ckernel::tessel_llk::open("_llk_math_eltwise_unary_sfpu_params_", ckernel::tessel_llk::tile_bit(dst_index), dst_index,
                            vector_mode.file, vector_mode.line);
  ckernel::tessel_llk::faces(vector_mode.mode, [&] { sfpu_func(args...); });
  ckernel::tessel_llk::close();
}

template <bool APPROXIMATE = false, class Callable, class... Args>
inline void _llk_math_eltwise_binary_sfpu_params_(Callable&& sfpu_func, uint32_t dst_index_in0, uint32_t dst_index_in1,
                                                  uint32_t dst_index_out,
                                                  ckernel::tessel_llk::ModeAt vector_mode = ckernel::VectorMode::RC,
                                                  Args&&... args) {
  using ckernel::tessel_llk::tile_bit;
  ckernel::tessel_llk::open("_llk_math_eltwise_binary_sfpu_params_",
                            tile_bit(dst_index_in0) | tile_bit(dst_index_in1) | tile_bit(dst_index_out), 0,
                            vector_mode.file, vector_mode.line);
  ckernel::tessel_llk::faces(vector_mode.mode,
                             [&] { sfpu_func(dst_index_in0, dst_index_in1, dst_index_out, args...); });
  ckernel::tessel_llk::close();
}

// Hand-written face loops: _start_ opens the window at tile dst_index,
// inc_dst_face_addr moves to the next face, _done_ closes it.
template <ckernel::DstSync DST_SYNC = ckernel::SyncHalf>
sfpi_inline void _llk_math_eltwise_unary_sfpu_start_(uint32_t dst_index, TESSEL_SITE_PARAMS) {
  ckernel::tessel_llk::open("_llk_math_eltwise_unary_sfpu_start_", ckernel::tessel_llk::tile_bit(dst_index), dst_index,
                            TESSEL_SITE);
}
template <ckernel::DstSync DST_SYNC = ckernel::SyncHalf>
sfpi_inline void _llk_math_eltwise_binary_sfpu_start_(uint32_t dst_index, TESSEL_SITE_PARAMS) {
  ckernel::tessel_llk::open("_llk_math_eltwise_binary_sfpu_start_", ckernel::tessel_llk::tile_bit(dst_index), dst_index,
                            TESSEL_SITE);
}
sfpi_inline void _llk_math_eltwise_unary_sfpu_inc_dst_face_addr_() { ckernel::tessel_llk::next_face(); }
sfpi_inline void _llk_math_eltwise_binary_sfpu_inc_dst_face_addr_() { ckernel::tessel_llk::next_face(); }
sfpi_inline void _llk_math_eltwise_unary_sfpu_done_() { ckernel::tessel_llk::close(); }
sfpi_inline void _llk_math_eltwise_binary_sfpu_done_() { ckernel::tessel_llk::close(); }

// tt-metal's macro forms (llk_math_eltwise_{unary,binary}_sfpu_macros.h).
#define _SFPU_EXPAND(...) __VA_ARGS__
#define _SFPU_BIN_EXPAND(...) __VA_ARGS__
#define SFPU_UNARY_CALL(DST_SYNC, DST_ACCUM, FN, TEMPLATES, DST_IDX, VECTOR_MODE, ...)                                 \
  _llk_math_eltwise_unary_sfpu_params_(::ckernel::sfpu::FN<_SFPU_EXPAND TEMPLATES>, DST_IDX, VECTOR_MODE, ##__VA_ARGS__)
#define SFPU_UNARY_CALL_NO_TEMPLATE_ARGS(DST_SYNC, DST_ACCUM, FN, DST_IDX, VECTOR_MODE, ...)                           \
  _llk_math_eltwise_unary_sfpu_params_(::ckernel::sfpu::FN, DST_IDX, VECTOR_MODE, ##__VA_ARGS__)
#define SFPU_BINARY_CALL(DST_SYNC, DST_ACCUM, FN, TEMPLATES, DST_IN0, DST_IN1, DST_OUT, VECTOR_MODE, ...)              \
  _llk_math_eltwise_binary_sfpu_params_(::ckernel::sfpu::FN<_SFPU_BIN_EXPAND TEMPLATES>, DST_IN0, DST_IN1, DST_OUT,    \
                                        VECTOR_MODE, ##__VA_ARGS__)
#define SFPU_BINARY_CALL_NO_TEMPLATE_ARGS(DST_SYNC, DST_ACCUM, FN, DST_IN0, DST_IN1, DST_OUT, VECTOR_MODE, ...)        \
  _llk_math_eltwise_binary_sfpu_params_(::ckernel::sfpu::FN, DST_IN0, DST_IN1, DST_OUT, VECTOR_MODE, ##__VA_ARGS__)
#define SFPU_UNARY_INIT(OP) ::ckernel::llk_math_eltwise_unary_sfpu_init<::SfpuType::OP>()
#define SFPU_UNARY_INIT_FN(OP, INIT_FN, TEMPLATES)                                                                     \
  ::ckernel::llk_math_eltwise_unary_sfpu_init<::SfpuType::OP>(INIT_FN<_SFPU_EXPAND TEMPLATES>)
#define SFPU_UNARY_INIT_FN_ARGS(OP, INIT_FN, TEMPLATES, ...)                                                           \
  ::ckernel::llk_math_eltwise_unary_sfpu_init<::SfpuType::OP>(INIT_FN<_SFPU_EXPAND TEMPLATES>, ##__VA_ARGS__)
#define SFPU_BINARY_INIT(OP) ::ckernel::llk_math_eltwise_binary_sfpu_init<::SfpuType::OP>()
#define SFPU_BINARY_INIT_FN_NO_ARGS(OP, INIT_FN) ::ckernel::llk_math_eltwise_binary_sfpu_init<::SfpuType::OP>(INIT_FN)
#define SFPU_BINARY_INIT_FN(OP, INIT_FN, TEMPLATES)                                                                    \
  ::ckernel::llk_math_eltwise_binary_sfpu_init<::SfpuType::OP>(INIT_FN<_SFPU_BIN_EXPAND TEMPLATES>)
#define SFPU_BINARY_INIT_FN_ARGS(OP, INIT_FN, TEMPLATES, ...)                                                          \
  ::ckernel::llk_math_eltwise_binary_sfpu_init<::SfpuType::OP>(INIT_FN<_SFPU_BIN_EXPAND TEMPLATES>, ##__VA_ARGS__)

// LLK_ASSERT(condition, message): a failed condition fails the kernel here.
#ifndef LLK_ASSERT
#define LLK_ASSERT(condition, message)                                                                                 \
  do {                                                                                                                 \
    if (!(condition)) {                                                                                                \
      tessel_kernel_ctx* tessel_k = tessel_ctx();                                                                      \
      tessel_k->api->fail(tessel_k, "LLK_ASSERT failed: " message, __FILE__, __LINE__);                                \
    }                                                                                                                  \
  } while (0)
#endif

// The SFPI names are global in Metalium's compute kernels, and ckernel::sfpu
// is where custom SFPU functions live.
namespace ckernel::sfpu {
using namespace sfpi;
// Resets the SFPU's lane configuration register, which kernels call after an
// LLK that reprogrammed it. tessel models no lane configuration (every lane is
// enabled outside v_if), so there is nothing to reset.
inline void _init_sfpu_config_reg() {}
} // namespace ckernel::sfpu
using namespace sfpi;

#endif // TESSEL_LLK_SFPU_H
