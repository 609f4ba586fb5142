// The enumerations of the LLK layer under Metalium's compute API
// (llk_defs.h) that kernels name beside the compute calls: DST sync modes,
// math fidelity, datacopy sources, dest reuse, ReLU kinds, stochastic
// rounding. PoolType, ReduceDim, BroadcastType and EltwiseBinaryType are
// declared with the calls that take them (tessel/compute.h).
#ifndef TESSEL_LLK_DEFS_H
#define TESSEL_LLK_DEFS_H

#include <stdint.h>

namespace ckernel {

enum DstSync { SyncHalf = 0, SyncFull = 1 };
enum class MathFidelity : uint8_t { LoFi = 0, HiFi2 = 2, HiFi3 = 3, HiFi4 = 4, Invalid = 0xff };
enum TileDim { R_IDX = 0, C_IDX = 1 };
enum DataCopyType { A2D, B2D };
enum class EltwiseBinaryReuseDestType { NONE = 0, DEST_TO_SRCA = 1, DEST_TO_SRCB = 2 };
enum ReluType { NO_RELU, ZERO_RELU, MIN_THRESHOLD_RELU, MAX_THRESHOLD_RELU };
enum struct StochRndType { None = 0, Fpu = 1, Pack = 2, All = 0xf };
constexpr bool UnpackToDestEn = true;
constexpr bool UnpackToDestDis = false;

} // namespace ckernel

#endif // TESSEL_LLK_DEFS_H
