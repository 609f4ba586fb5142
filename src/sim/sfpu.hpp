// SFPU math: the element-wise functions the SFPU applies in place to DST
// tiles (enum tessel_sfpu_op / tessel_sfpu_binary_op / tessel_sfpu_ternary_op
// in kernel_abi.h), in sfpu.cpp and its family files sfpu_compare.cpp,
// sfpu_functions.cpp, sfpu_special.cpp, sfpu_bitwise.cpp and
// sfpu_integer.cpp. The
// compute engine (compute.cpp) checks the call (compute RISC, MATH holds DST,
// the op's init, index in range) and then calls these on the tile's floats;
// it rounds the result to bfloat16 precision afterwards unless
// fp32_dest_acc_en. The functions here only compute.
//
// Tiles are kTileHW floats; element-wise ops do not care about the element
// order. Each function handles one whole tile in a loop the compiler can
// vectorise where the math allows; nothing allocates.
//
// Parameters (p0, p1) per op are listed with the enum in kernel_abi.h: float
// parameters arrive as their IEEE bits. `approx` is the call's approximation
// mode (template argument or math_approx_mode): ops for which Metalium
// documents a faster approximation use one when it is set, with the error
// bound stated in docs/numerics.md.
#pragma once

#include <cstdint>

namespace tessel::sim {

struct SfpuParams {
  uint32_t p0 = 0;
  uint32_t p1 = 0;
  bool approx = false;
};

// The Metalium call name of an op ("exp_tile"), for messages; "?" if unknown
// (sfpu_names.cpp).
const char* sfpu_name(uint32_t op);
const char* sfpu_binary_name(uint32_t op);
const char* sfpu_ternary_name(uint32_t op);
// The init that configures an op ("exp_tile_init", "rounding_op_tile_init").
const char* sfpu_init_name(uint32_t op);
const char* sfpu_binary_init_name(uint32_t op);
const char* sfpu_ternary_init_name(uint32_t op);

// tile[i] = op(tile[i]) for every element. op < TESSEL_SFPU_OP_COUNT (the
// caller checks).
void sfpu_unary(uint32_t op, float* tile, const SfpuParams& params);

// out[i] = a[i] op b[i]. out may alias a or b. op < TESSEL_SFPU_BINARY_OP_COUNT.
void sfpu_binary(uint32_t op, const float* a, const float* b, float* out);

// out[i] = op(a[i], b[i], c[i]). out may alias any operand. p0: the op's
// parameter (kernel_abi.h). op < TESSEL_SFPU_TERNARY_OP_COUNT.
void sfpu_ternary(uint32_t op, const float* a, const float* b, const float* c, float* out, uint32_t p0 = 0);

} // namespace tessel::sim
