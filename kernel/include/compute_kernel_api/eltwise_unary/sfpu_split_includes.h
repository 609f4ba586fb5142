// TT-Metalium spelling of the compute kernel API. Metalium's unary kernels
// include this file and their program factory defines SFPU_OP_<OP>_INCLUDE
// for the op it pastes into SFPU_OP_CHAIN_0; most SFPU ops are always
// declared here (tessel/sfpu.h), the rest come in with their define.
#pragma once
#include "tessel/sfpu.h"
#if SFPU_OP_ACTIVATIONS_INCLUDE || SFPU_OP_CBRT_INCLUDE || SFPU_OP_HARDMISH_INCLUDE || SFPU_OP_SOFTCAP_INCLUDE ||      \
    SFPU_OP_LGAMMA_INCLUDE || SFPU_OP_LOGSIGMOID_INCLUDE || SFPU_OP_RSUB_INCLUDE || SFPU_OP_LOG1P_INCLUDE ||           \
    SFPU_OP_RPOW_INCLUDE
#include "tessel/sfpu_special.h"
#endif
