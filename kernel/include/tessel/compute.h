// Compute kernel API: inits, the DST register protocol, FPU tile ops and
// pack_tile, with TT-Metalium's names and argument orders. Included through
// compute_kernel_api.h, compute_kernel_api/*.h and api/compute/*.h.
//
// One compute context plays the three TRISCs in program order, so
// UNPACK((...)), MATH((...)) and PACK((...)) just run their argument. The
// names are declared in namespace ckernel and made global, so kernels work
// with or without `using namespace ckernel;`. Every call passes its call
// site; the simulator checks the protocol and the inits (sim/compute.hpp).
#ifndef TESSEL_COMPUTE_H
#define TESSEL_COMPUTE_H

#include "tessel/ckernel_memory.h" // ckernel::ThreadId, mailbox_read: names the compute API brings
#include "tessel/kernel_common.h"
#include "tessel/noc_alignment.h"  // L1_ALIGNMENT, DRAM_ALIGNMENT for the arch built for

// The RISC-V size estimate (TESSEL_CROSS_ESTIMATE) builds one TRISC thread
// at a time: each macro keeps its argument on its own thread only.
#if !defined(TESSEL_CROSS_ESTIMATE) || defined(TRISC_UNPACK)
#define UNPACK(x) x
#else
#define UNPACK(x)
#endif
#if !defined(TESSEL_CROSS_ESTIMATE) || defined(TRISC_MATH)
#define MATH(x) x
#else
#define MATH(x)
#endif
#if !defined(TESSEL_CROSS_ESTIMATE) || defined(TRISC_PACK)
#define PACK(x) x
#else
#define PACK(x)
#endif
#ifndef ALWI
#define ALWI inline __attribute__((always_inline))
#endif

// The kernel's ComputeConfig as compile-time constants, as Metalium's
// generated headers give them (the JIT defines TESSEL_* for compute kernels).
#ifndef TESSEL_MATH_APPROX
#define TESSEL_MATH_APPROX 0
#endif
#ifndef TESSEL_FP32_DEST_ACC
#define TESSEL_FP32_DEST_ACC 0
#endif
#ifndef TESSEL_DST_FULL_SYNC
#define TESSEL_DST_FULL_SYNC 0
#endif
#ifndef TESSEL_MATH_FIDELITY
#define TESSEL_MATH_FIDELITY 4
#endif
constexpr bool APPROX = TESSEL_MATH_APPROX;
constexpr bool DST_ACCUM_MODE = TESSEL_FP32_DEST_ACC;
constexpr uint32_t MATH_FIDELITY = TESSEL_MATH_FIDELITY;
// Metalium's generated headers make DST_ACCUM_MODE and DST_SYNC_MODE macros,
// which kernel libraries test with #if defined(...): each is defined as its
// own name, so it expands to the constant.
#define DST_ACCUM_MODE DST_ACCUM_MODE
#define DST_SYNC_MODE DST_SYNC_MODE
// A program may pass DST_SYNC_FULL as a define of its own (Metalium's
// factories pass -DDST_SYNC_FULL=0 or 1); it then keeps the program's value.
// tessel's headers read the ComputeConfig's setting (TESSEL_DST_FULL_SYNC).
#ifndef DST_SYNC_FULL
constexpr bool DST_SYNC_FULL = TESSEL_DST_FULL_SYNC;
#endif

#include "tessel/llk_defs.h"
#include "tessel/pack_config.h" // ReluConfig and the packer's ReLU and reduce masks

// The DST sync mode of the kernel's ComputeConfig (dst_full_sync_en).
constexpr ckernel::DstSync DST_SYNC_MODE = TESSEL_DST_FULL_SYNC ? ckernel::SyncFull : ckernel::SyncHalf;

namespace ckernel {

namespace tessel_compute {
inline void init(uint32_t which, const char* call, uint32_t a, uint32_t b, uint32_t c, const char* file,
                 uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->compute_init(k, which, call, a, b, c, file, line);
}
inline void dst(uint32_t step, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->dst_step(k, step, file, line);
}
inline void binary(uint32_t op, uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, const char* file,
                   uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->binary_tiles(k, op, icb0, icb1, i0, i1, idst, file, line);
}
} // namespace tessel_compute

// ---------------------------------------------------------------------------
// Hardware and op inits

enum class EltwiseBinaryType { ELWMUL = TESSEL_BINARY_MUL, ELWADD = TESSEL_BINARY_ADD, ELWSUB = TESSEL_BINARY_SUB };

// How compute_kernel_hw_startup's (icb0, icb1) map onto the unpacker's
// sources: Regular icb0 -> SrcA, icb1 -> SrcB; Reverse (matmul, which takes
// in1 on SrcA) icb0 -> SrcB, icb1 -> SrcA.
enum class SrcOrder : uint8_t { Regular = 0, Reverse = 1 };

template <SrcOrder src_order = SrcOrder::Regular>
ALWI void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb, TESSEL_SITE_PARAMS) {
  if constexpr (src_order == SrcOrder::Reverse)
    tessel_compute::init(TESSEL_INIT_HW_STARTUP, "compute_kernel_hw_startup<SrcOrder::Reverse>", icb1, icb0, ocb,
                         TESSEL_SITE);
  else
    tessel_compute::init(TESSEL_INIT_HW_STARTUP, "compute_kernel_hw_startup", icb0, icb1, ocb, TESSEL_SITE);
}
ALWI void compute_kernel_hw_startup(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_HW_STARTUP, "compute_kernel_hw_startup", icb, icb, ocb, TESSEL_SITE);
}
ALWI void binary_op_init_common(uint32_t icb0, uint32_t icb1, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_BINARY_COMMON, "binary_op_init_common", icb0, icb1, ocb, TESSEL_SITE);
}
ALWI void unary_op_init_common(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNARY_COMMON, "unary_op_init_common", icb, 0, ocb, TESSEL_SITE);
}
ALWI void init_sfpu(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_UNARY_COMMON, "init_sfpu", icb, 0, ocb, TESSEL_SITE);
}
// binary_tiles_init<full_init, op>: the eltwise binary init of `op`;
// full_init = false configures MATH only and needs the unpacker already set
// up for eltwise binary (by binary_op_init_common or a full binary init).
template <bool full_init, EltwiseBinaryType eltwise_binary_type>
ALWI void binary_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  constexpr uint32_t init = eltwise_binary_type == EltwiseBinaryType::ELWADD   ? TESSEL_INIT_ADD
                            : eltwise_binary_type == EltwiseBinaryType::ELWSUB ? TESSEL_INIT_SUB
                                                                               : TESSEL_INIT_MUL;
  const char* call = full_init ? "binary_tiles_init<true, ...>" : "binary_tiles_init<false, ...>";
  tessel_compute::init(init, call, icb0, icb1,
                       (acc_to_dest ? 1u : 0u) | (full_init ? 0u : TESSEL_BINARY_INIT_MATH_ONLY), TESSEL_SITE);
}
ALWI void add_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_ADD, "add_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void sub_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_SUB, "sub_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void mul_tiles_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MUL, "mul_tiles_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
// Metalium's forms that also pass the caller's line (call_line, for its
// state checks): tessel takes the call site itself.
ALWI void add_tiles_init(uint32_t icb0, uint32_t icb1, uint32_t acc_to_dest, uint32_t call_line, TESSEL_SITE_PARAMS) {
  (void)call_line;
  tessel_compute::init(TESSEL_INIT_ADD, "add_tiles_init", icb0, icb1, acc_to_dest != 0, TESSEL_SITE);
}
ALWI void sub_tiles_init(uint32_t icb0, uint32_t icb1, uint32_t acc_to_dest, uint32_t call_line, TESSEL_SITE_PARAMS) {
  (void)call_line;
  tessel_compute::init(TESSEL_INIT_SUB, "sub_tiles_init", icb0, icb1, acc_to_dest != 0, TESSEL_SITE);
}
ALWI void mul_tiles_init(uint32_t icb0, uint32_t icb1, uint32_t acc_to_dest, uint32_t call_line, TESSEL_SITE_PARAMS) {
  (void)call_line;
  tessel_compute::init(TESSEL_INIT_MUL, "mul_tiles_init", icb0, icb1, acc_to_dest != 0, TESSEL_SITE);
}
// The paired inits of today's Metalium: add_init / sub_init / mul_init are
// the full inits of add_tiles / sub_tiles / mul_tiles.
ALWI void add_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_ADD, "add_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void sub_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_SUB, "sub_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void mul_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MUL, "mul_init", icb0, icb1, acc_to_dest, TESSEL_SITE);
}
ALWI void copy_tile_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_COPY, "copy_tile_init", icb, 0, 0, TESSEL_SITE);
}
ALWI void copy_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_COPY, "copy_init", icb, 0, 0, TESSEL_SITE);
}
namespace tessel_compute {
// Copies that transpose on the way (the unpacker's transpose flag) are not
// modelled: transpose_wh_init / transpose_wh_tile do that.
inline void check_copy_transpose(uint32_t transpose, const char* file, uint32_t line) {
  if (transpose == 0) return;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->fail(k,
               "copy with transpose (transpose=1) is not supported by tessel: use transpose_wh_init_short(cb) and "
               "transpose_wh_tile(cb, itile, idst) to transpose a tile into DST",
               file, line);
}
} // namespace tessel_compute
// transpose_within_16x16_face (current Metalium's third argument) is a
// transpose too, refused alike.
ALWI void copy_tile_to_dst_init_short(uint32_t icb, uint32_t transpose = 0, uint32_t transpose_within_16x16_face = 0,
                                      TESSEL_SITE_PARAMS) {
  tessel_compute::check_copy_transpose(transpose | transpose_within_16x16_face, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_COPY, "copy_tile_to_dst_init_short", icb, 0, 0, TESSEL_SITE);
}

// cb_api.h: the L1 byte address of page `tile_index` at the CB's read
// pointer, and the uint32 `element_offset` words into it.
ALWI uint32_t get_tile_address(uint32_t cb_id, uint32_t tile_index, TESSEL_SITE_PARAMS) {
  const tessel_cb_iface& q = tessel_detail::cb(cb_id, "get_tile_address", TESSEL_SITE);
  return q.rd_ptr + tile_index * q.page_size;
}
ALWI uint32_t read_tile_value(uint32_t cb_id, uint32_t tile_index, uint32_t element_offset, TESSEL_SITE_PARAMS) {
  const tessel_cb_iface& q = tessel_detail::cb(cb_id, "read_tile_value", TESSEL_SITE);
  return reinterpret_cast<const volatile uint32_t*>(uintptr_t(q.rd_ptr + tile_index * q.page_size))[element_offset];
}

// ---------------------------------------------------------------------------
// DST register protocol

ALWI void tile_regs_acquire(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_ACQUIRE, TESSEL_SITE); }
ALWI void tile_regs_commit(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_COMMIT, TESSEL_SITE); }
ALWI void tile_regs_wait(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_WAIT, TESSEL_SITE); }
ALWI void tile_regs_release(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_RELEASE, TESSEL_SITE); }
ALWI void acquire_dst(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_ACQUIRE_LEGACY, TESSEL_SITE); }
ALWI void release_dst(TESSEL_SITE_PARAMS) { tessel_compute::dst(TESSEL_DST_RELEASE_LEGACY, TESSEL_SITE); }

// ---------------------------------------------------------------------------
// Tile ops

ALWI void copy_tile(uint32_t icb, uint32_t itile, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->copy_tile(k, icb, itile, idst, TESSEL_SITE);
}
// ntiles consecutive tiles from start_in_tile_index into DST from start_dst_tile_index, after copy_init.
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void copy_block(uint32_t in_cb_id, uint32_t start_in_tile_index, uint32_t start_dst_tile_index, uint32_t ntiles,
                     TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  for (uint32_t i = 0; i < ntiles; ++i)
    k->api->copy_tile(k, in_cb_id, start_in_tile_index + i, start_dst_tile_index + i, TESSEL_SITE);
}
ALWI void add_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_ADD, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
ALWI void sub_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_SUB, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
ALWI void mul_tiles(uint32_t icb0, uint32_t icb1, uint32_t itile0, uint32_t itile1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::binary(TESSEL_BINARY_MUL, icb0, icb1, itile0, itile1, idst, TESSEL_SITE);
}
// pack_tile<true>(idst, ocb, i) writes page i of the reservation and leaves
// the in-order cursor alone.
template <bool out_of_order_output = false>
ALWI void pack_tile(uint32_t idst, uint32_t ocb, uint32_t output_tile_index = 0, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->pack_tile(k, idst, ocb, out_of_order_output ? int32_t(output_tile_index) : -1, TESSEL_SITE);
}
ALWI void pack_tile_block(uint32_t idst, uint32_t ocb, uint32_t ntiles, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  for (uint32_t i = 0; i < ntiles; ++i)
    k->api->pack_tile(k, idst + i, ocb, -1, TESSEL_SITE);
}
ALWI void matmul_pack_tile(uint32_t idst, uint32_t ocb, uint32_t ntiles, TESSEL_SITE_PARAMS) {
  pack_tile_block(idst, ocb, ntiles, TESSEL_SITE);
}
// Metalium's newer name: ntiles DST tiles from ifrom_dst, in order into icb's reserved pages.
template <bool is_fp32_dest_acc_en = DST_ACCUM_MODE>
ALWI void pack_block(uint32_t ifrom_dst, uint32_t icb, uint32_t ntiles, TESSEL_SITE_PARAMS) {
  pack_tile_block(ifrom_dst, icb, ntiles, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Matmul (matmul.h). in0 is the left operand (M x K tiles), in1 the right
// (K x N); the FPU takes in1 on SrcA and in0 on SrcB.

ALWI void mm_init(uint32_t in0, uint32_t in1, uint32_t out, uint32_t transpose = 0, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MATMUL_FULL, "mm_init", in0, in1, (out << 8) | (transpose & 1u), TESSEL_SITE);
}
ALWI void mm_init_short(uint32_t in0, uint32_t in1, uint32_t transpose = 0, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MATMUL, "mm_init_short", in0, in1, transpose & 1u, TESSEL_SITE);
}
ALWI void mm_init_short_with_dt(uint32_t in0, uint32_t in1, uint32_t old_in1, uint32_t transpose = 0,
                                TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "mm_init_short_with_dt", in1, old_in1 + 1, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_MATMUL, "mm_init_short_with_dt", in0, in1, transpose & 1u, TESSEL_SITE);
}
ALWI void matmul_init(uint32_t in0, uint32_t in1, uint32_t transpose = 0, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_MATMUL, "matmul_init", in0, in1, transpose & 1u, TESSEL_SITE);
}
ALWI void mm_block_init(uint32_t in0, uint32_t in1, uint32_t out, uint32_t transpose = 0, uint32_t ct_dim = 1,
                        uint32_t rt_dim = 1, uint32_t kt_dim = 1, TESSEL_SITE_PARAMS) {
  (void)ct_dim, (void)rt_dim, (void)kt_dim;
  tessel_compute::init(TESSEL_INIT_MATMUL_FULL, "mm_block_init", in0, in1, (out << 8) | (transpose & 1u), TESSEL_SITE);
}
ALWI void mm_block_init_short(uint32_t in0, uint32_t in1, uint32_t transpose = 0, uint32_t ct_dim = 1,
                              uint32_t rt_dim = 1, uint32_t kt_dim = 1, TESSEL_SITE_PARAMS) {
  (void)ct_dim, (void)rt_dim, (void)kt_dim;
  tessel_compute::init(TESSEL_INIT_MATMUL, "mm_block_init_short", in0, in1, transpose & 1u, TESSEL_SITE);
}
ALWI void matmul_block_init(uint32_t in0, uint32_t in1, uint32_t transpose = 0, uint32_t ct_dim = 1,
                            uint32_t rt_dim = 1, uint32_t kt_dim = 1, TESSEL_SITE_PARAMS) {
  (void)ct_dim, (void)rt_dim, (void)kt_dim;
  tessel_compute::init(TESSEL_INIT_MATMUL, "matmul_block_init", in0, in1, transpose & 1u, TESSEL_SITE);
}
ALWI void mm_block_init_short_with_dt(uint32_t in0, uint32_t in1, uint32_t old_in1, uint32_t transpose = 0,
                                      uint32_t ct_dim = 1, uint32_t rt_dim = 1, uint32_t kt_dim = 1,
                                      TESSEL_SITE_PARAMS) {
  (void)ct_dim, (void)rt_dim, (void)kt_dim;
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "mm_block_init_short_with_dt", in1, old_in1 + 1, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_MATMUL, "mm_block_init_short_with_dt", in0, in1, transpose & 1u, TESSEL_SITE);
}

// DST[idst] += in0[i0] x in1[i1] (in1 transposed within the tile if transpose).
ALWI void matmul_tiles(uint32_t in0, uint32_t in1, uint32_t i0, uint32_t i1, uint32_t idst, uint32_t transpose = 0,
                       TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->matmul(k, in0, in1, i0, i1, idst, transpose & 1u, 1, 1, 1, TESSEL_SITE);
}
ALWI void matmul_tile(uint32_t in0, uint32_t in1, uint32_t i0, uint32_t i1, uint32_t idst, uint32_t transpose = 0,
                      TESSEL_SITE_PARAMS) {
  matmul_tiles(in0, in1, i0, i1, idst, transpose, TESSEL_SITE);
}
// For r < rt_dim, c < ct_dim: DST[idst + r * ct_dim + c] += in0[i0 + r * kt_dim] x in1[i1 + c].
ALWI void matmul_block(uint32_t in0, uint32_t in1, uint32_t i0, uint32_t i1, uint32_t idst, uint32_t transpose,
                       uint32_t ct_dim, uint32_t rt_dim, uint32_t kt_dim, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->matmul(k, in0, in1, i0, i1, idst, transpose & 1u, ct_dim, rt_dim, kt_dim, TESSEL_SITE);
}

// Reloads matmul partials: DST[start_idst + i] = icb[start_itile + i] for i < ntiles.
ALWI void copy_block_matmul_partials(uint32_t icb, uint32_t start_itile, uint32_t start_idst, uint32_t ntiles,
                                     TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->copy_block(k, icb, start_itile, start_idst, ntiles, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Reduce (reduce.h). The scaler is element [0][0] of the scaler tile.

// MIN names the SFPU reduce's min fold (sfpu_reduce.h); the FPU has no min
// pool, so the FPU reduce calls refuse it at compile time.
enum class PoolType { SUM = TESSEL_POOL_SUM, AVG = TESSEL_POOL_AVG, MAX = TESSEL_POOL_MAX, MIN = TESSEL_POOL_MAX + 1 };
enum ReduceDim { REDUCE_ROW = TESSEL_REDUCE_ROW, REDUCE_COL = TESSEL_REDUCE_COL, REDUCE_SCALAR = TESSEL_REDUCE_SCALAR };
#ifndef REDUCE_OP
#define REDUCE_OP PoolType::SUM
#endif
#ifndef REDUCE_DIM
#define REDUCE_DIM ReduceDim::REDUCE_ROW
#endif

// enforce_fp32_accumulation (reduce in full FP32) needs fp32_dest_acc_en;
// the reduce computes in float either way.
#define TESSEL_REDUCE_FP32_CHECK                                                                                       \
  static_assert(!enforce_fp32_accumulation || DST_ACCUM_MODE,                                                          \
                "enforce_fp32_accumulation needs fp32_dest_acc_en = true in the kernel's ComputeConfig");              \
  static_assert(reduce_type != PoolType::MIN,                                                                          \
                "the FPU reduce has no min pool: reduce a negated input with PoolType::MAX, or use the SFPU reduce")
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM, bool enforce_fp32_accumulation = false>
ALWI void reduce_init(uint32_t icb, uint32_t icb_scaler, uint32_t ocb, TESSEL_SITE_PARAMS) {
  TESSEL_REDUCE_FP32_CHECK;
  (void)ocb;
  tessel_compute::init(TESSEL_INIT_REDUCE, "reduce_init", icb, icb_scaler,
                       (uint32_t(reduce_type) << 4) | uint32_t(reduce_dim), TESSEL_SITE);
  // The packer zeroes what is not the reduce's result (pack_config.h).
  tessel_compute::init(TESSEL_INIT_PACK_REDUCE_MASK, "reduce_init", 1u + uint32_t(reduce_dim), 0, 0, TESSEL_SITE);
}
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM, bool enforce_fp32_accumulation = false>
ALWI void reduce_init_short(uint32_t icb, uint32_t icb_scaler, uint32_t ocb = 0, TESSEL_SITE_PARAMS) {
  reduce_init<reduce_type, reduce_dim, enforce_fp32_accumulation>(icb, icb_scaler, ocb, TESSEL_SITE);
}
// icb: the reduce's input CB (Metalium needs it with enforce_fp32_accumulation).
template <bool enforce_fp32_accumulation = false>
ALWI void reduce_uninit(uint32_t icb = 0, TESSEL_SITE_PARAMS) {
  (void)icb;
  tessel_compute::init(TESSEL_INIT_REDUCE_UNINIT, "reduce_uninit", 0, 0, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_PACK_REDUCE_MASK, "reduce_uninit", 0, 0, 0, TESSEL_SITE);
}
template <PoolType reduce_type = REDUCE_OP, ReduceDim reduce_dim = REDUCE_DIM, bool enforce_fp32_accumulation = false>
ALWI void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler, uint32_t idst,
                      TESSEL_SITE_PARAMS) {
  TESSEL_REDUCE_FP32_CHECK;
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->reduce_tile(k, (uint32_t(reduce_type) << 4) | uint32_t(reduce_dim), icb, icb_scaler, itile, itile_scaler,
                      idst, TESSEL_SITE);
}

#undef TESSEL_REDUCE_FP32_CHECK

// ---------------------------------------------------------------------------
// Transpose (transpose_wh.h): DST[idst] = the tile with rows and columns swapped.

ALWI void transpose_wh_init(uint32_t icb, uint32_t ocb, TESSEL_SITE_PARAMS) {
  (void)ocb;
  tessel_compute::init(TESSEL_INIT_TRANSPOSE, "transpose_wh_init", icb, 0, 0, TESSEL_SITE);
}
ALWI void transpose_wh_init_short(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TRANSPOSE, "transpose_wh_init_short", icb, 0, 0, TESSEL_SITE);
}
ALWI void transpose_wh_tile(uint32_t icb, uint32_t itile, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->transpose_wh_tile(k, icb, itile, idst, TESSEL_SITE);
}
// transpose.h, today's names of the same op: transpose_init(icb) is the
// short init, transpose_block transposes ntiles consecutive tiles.
ALWI void transpose_init(uint32_t icb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_TRANSPOSE, "transpose_init", icb, 0, 0, TESSEL_SITE);
}
ALWI void transpose_tile(uint32_t icb, uint32_t itile, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->transpose_wh_tile(k, icb, itile, idst, TESSEL_SITE);
}
ALWI void transpose_block(uint32_t icb, uint32_t start_itile, uint32_t start_idst, uint32_t ntiles,
                          TESSEL_SITE_PARAMS) {
  tessel_kernel_ctx* k = tessel_ctx();
  for (uint32_t i = 0; i < ntiles; ++i)
    k->api->transpose_wh_tile(k, icb, start_itile + i, start_idst + i, TESSEL_SITE);
}

// ---------------------------------------------------------------------------
// Broadcast binary ops (bcast.h): in1 broadcast as a row (row 0 of the tile to
// every row), a column (column 0 to every column) or a scalar ([0][0]).

enum class BroadcastType {
  NONE = TESSEL_BCAST_NONE,
  COL = TESSEL_BCAST_COL,
  ROW = TESSEL_BCAST_ROW,
  SCALAR = TESSEL_BCAST_SCALAR
};

namespace tessel_compute {
inline void bcast_init(const char* call, EltwiseBinaryType op, BroadcastType dim, uint32_t icb0, uint32_t icb1,
                       const char* file, uint32_t line) {
  init(TESSEL_INIT_BCAST, call, icb0, icb1, (uint32_t(op) << 4) | uint32_t(dim), file, line);
}
inline void bcast(EltwiseBinaryType op, BroadcastType dim, uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1,
                  uint32_t idst, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->bcast_tiles(k, uint32_t(op), uint32_t(dim), icb0, icb1, i0, i1, idst, file, line);
}
} // namespace tessel_compute

template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void init_bcast(uint32_t icb0, uint32_t icb1, uint32_t ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_BINARY_COMMON, "init_bcast", icb0, icb1, ocb, TESSEL_SITE);
  tessel_compute::bcast_init("init_bcast", tBcastOp, tBcastDim, icb0, icb1, TESSEL_SITE);
}
template <EltwiseBinaryType tBcastOp, BroadcastType tBcastDim>
ALWI void any_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::bcast(tBcastOp, tBcastDim, icb0, icb1, i0, i1, idst, TESSEL_SITE);
}
template <BroadcastType tBcastDim>
ALWI void add_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::bcast(EltwiseBinaryType::ELWADD, tBcastDim, icb0, icb1, i0, i1, idst, TESSEL_SITE);
}
template <BroadcastType tBcastDim>
ALWI void sub_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::bcast(EltwiseBinaryType::ELWSUB, tBcastDim, icb0, icb1, i0, i1, idst, TESSEL_SITE);
}
template <BroadcastType tBcastDim>
ALWI void mul_tiles_bcast(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst, TESSEL_SITE_PARAMS) {
  tessel_compute::bcast(EltwiseBinaryType::ELWMUL, tBcastDim, icb0, icb1, i0, i1, idst, TESSEL_SITE);
}

#define TESSEL_BCAST_FORMS(op, OP)                                                                                     \
  ALWI void op##_tiles_bcast_rows(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst,               \
                                  TESSEL_SITE_PARAMS) {                                                                \
    tessel_compute::bcast(EltwiseBinaryType::OP, BroadcastType::ROW, icb0, icb1, i0, i1, idst, TESSEL_SITE);           \
  }                                                                                                                    \
  ALWI void op##_tiles_bcast_cols(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst,               \
                                  TESSEL_SITE_PARAMS) {                                                                \
    tessel_compute::bcast(EltwiseBinaryType::OP, BroadcastType::COL, icb0, icb1, i0, i1, idst, TESSEL_SITE);           \
  }                                                                                                                    \
  ALWI void op##_tiles_bcast_scalar(uint32_t icb0, uint32_t icb1, uint32_t i0, uint32_t i1, uint32_t idst,             \
                                    TESSEL_SITE_PARAMS) {                                                              \
    tessel_compute::bcast(EltwiseBinaryType::OP, BroadcastType::SCALAR, icb0, icb1, i0, i1, idst, TESSEL_SITE);        \
  }                                                                                                                    \
  ALWI void op##_bcast_rows_init_short(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                             \
    tessel_compute::bcast_init(#op "_bcast_rows_init_short", EltwiseBinaryType::OP, BroadcastType::ROW, icb0, icb1,    \
                               TESSEL_SITE);                                                                           \
  }                                                                                                                    \
  ALWI void op##_bcast_cols_init_short(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                             \
    tessel_compute::bcast_init(#op "_bcast_cols_init_short", EltwiseBinaryType::OP, BroadcastType::COL, icb0, icb1,    \
                               TESSEL_SITE);                                                                           \
  }                                                                                                                    \
  ALWI void op##_bcast_scalar_init_short(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                           \
    tessel_compute::bcast_init(#op "_bcast_scalar_init_short", EltwiseBinaryType::OP, BroadcastType::SCALAR, icb0,     \
                               icb1, TESSEL_SITE);                                                                     \
  }                                                                                                                    \
  ALWI void op##_tiles_bcast_scalar_init_short(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                     \
    tessel_compute::bcast_init(#op "_tiles_bcast_scalar_init_short", EltwiseBinaryType::OP, BroadcastType::SCALAR,     \
                               icb0, icb1, TESSEL_SITE);                                                               \
  }                                                                                                                    \
  /* Metalium's newer names of the three _init_short forms (no data-format reconfiguration either). */                 \
  ALWI void op##_bcast_rows_init(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                                   \
    tessel_compute::bcast_init(#op "_bcast_rows_init", EltwiseBinaryType::OP, BroadcastType::ROW, icb0, icb1,          \
                               TESSEL_SITE);                                                                           \
  }                                                                                                                    \
  ALWI void op##_bcast_cols_init(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                                   \
    tessel_compute::bcast_init(#op "_bcast_cols_init", EltwiseBinaryType::OP, BroadcastType::COL, icb0, icb1,          \
                               TESSEL_SITE);                                                                           \
  }                                                                                                                    \
  ALWI void op##_bcast_scalar_init(uint32_t icb0, uint32_t icb1, TESSEL_SITE_PARAMS) {                                 \
    tessel_compute::bcast_init(#op "_bcast_scalar_init", EltwiseBinaryType::OP, BroadcastType::SCALAR, icb0, icb1,     \
                               TESSEL_SITE);                                                                           \
  }
TESSEL_BCAST_FORMS(add, ELWADD)
TESSEL_BCAST_FORMS(sub, ELWSUB)
TESSEL_BCAST_FORMS(mul, ELWMUL)
#undef TESSEL_BCAST_FORMS

// ---------------------------------------------------------------------------
// Data-format reconfiguration (reconfig_data_format.h, pack.h): point the
// unpacker's SrcA/SrcB or the packer at another CB's format. The template
// flags accept both values: to_from_int8 selects hardware settings for Int8
// that tessel does not model, and tiles are always 32x32 here, so a
// tile-dimension reconfiguration (is_tile_dim_reconfig_en) changes nothing.
#define TESSEL_RECONFIG_TEMPLATE template <bool to_from_int8 = false, bool is_tile_dim_reconfig_en = false>

TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format_srca(uint32_t srca_new, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "reconfig_data_format_srca", srca_new, 0, 0, TESSEL_SITE);
}
TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format_srca(uint32_t srca_old, uint32_t srca_new, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "reconfig_data_format_srca", srca_new, srca_old + 1, 0, TESSEL_SITE);
}
TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format_srcb(uint32_t srcb_new, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCB, "reconfig_data_format_srcb", srcb_new, 0, 0, TESSEL_SITE);
}
TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format_srcb(uint32_t srcb_old, uint32_t srcb_new, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCB, "reconfig_data_format_srcb", srcb_new, srcb_old + 1, 0, TESSEL_SITE);
}
TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format(uint32_t srca_new, uint32_t srcb_new, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "reconfig_data_format", srca_new, 0, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCB, "reconfig_data_format", srcb_new, 0, 0, TESSEL_SITE);
}
TESSEL_RECONFIG_TEMPLATE
ALWI void reconfig_data_format(uint32_t srca_old, uint32_t srca_new, uint32_t srcb_old, uint32_t srcb_new,
                               TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "reconfig_data_format", srca_new, srca_old + 1, 0, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCB, "reconfig_data_format", srcb_new, srcb_old + 1, 0, TESSEL_SITE);
}
// Packer L1 accumulation: while enabled, pack_tile adds the DST tile to the
// values already in the page it writes (in the CB's format) instead of
// overwriting them.
ALWI void pack_reconfig_l1_acc(uint32_t l1_acc_en, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_PACK_L1_ACC, "pack_reconfig_l1_acc", l1_acc_en ? 1u : 0u, 0, 0, TESSEL_SITE);
}
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(uint32_t new_ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_PACK, "pack_reconfig_data_format", new_ocb, 0, 0, TESSEL_SITE);
}
template <bool is_tile_dim_reconfig_en = false>
ALWI void pack_reconfig_data_format(uint32_t old_ocb, uint32_t new_ocb, TESSEL_SITE_PARAMS) {
  tessel_compute::init(TESSEL_INIT_RECONFIG_PACK, "pack_reconfig_data_format", new_ocb, old_ocb + 1, 0, TESSEL_SITE);
}
ALWI void copy_tile_to_dst_init_short_with_dt(uint32_t old_cb, uint32_t new_cb, uint32_t transpose = 0,
                                              TESSEL_SITE_PARAMS) {
  tessel_compute::check_copy_transpose(transpose, TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_RECONFIG_SRCA, "copy_tile_to_dst_init_short_with_dt", new_cb, old_cb + 1, 0,
                       TESSEL_SITE);
  tessel_compute::init(TESSEL_INIT_COPY, "copy_tile_to_dst_init_short_with_dt", new_cb, 0, 0, TESSEL_SITE);
}

#undef TESSEL_RECONFIG_TEMPLATE

} // namespace ckernel

// Tilize, untilize and pack untilize (their own header; every compute header
// gives the whole compute API).
#include "tessel/tilize.h"
#include "tessel/dest_tiles.h"

using namespace ckernel;

#endif // TESSEL_COMPUTE_H
