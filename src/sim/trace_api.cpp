// The kernel API's traced function table: while a chip is traced, every
// RISC's context points here instead of at kernel_api_table(). Each traced
// call runs the plain one (or, timed, the timed one: timing.hpp), then
// records what it did (trace.hpp); a call that
// fails does not return, so it records nothing. Untraced, kernels call the
// plain table directly: the trace costs nothing when it is off.
#include <bit>

#include "sim/chip.hpp"
#include "sim/compute.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/sfpu.hpp"
#include "sim/sfpu_state.hpp"
#include "sim/timing.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

namespace {

// The calls a traced call runs: the timed ones while the chip is timed.
const tessel_sim_api& inner(tessel_kernel_ctx* k) { return untraced_api(*core_of(k).chip); }
Tracer& tracer_of(tessel_kernel_ctx* k) { return *core_of(k).chip->tracer(); }

// ---------------------------------------------------------------------------
// Circular buffers: counted (a command's start is its token's pop)

void cb_push_back(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  inner(k).cb_push_back(k, cb, pages, file, line);
  tracer_of(k).cb_pages(*k, cb, pages, true);
}

void cb_pop_front(tessel_kernel_ctx* k, uint32_t cb, uint32_t pages, const char* file, uint32_t line) {
  inner(k).cb_pop_front(k, cb, pages, file, line);
  tracer_of(k).cb_pages(*k, cb, pages, false);
}

// ---------------------------------------------------------------------------
// NoC

void noc_read(tessel_kernel_ctx* k, uint64_t src, uint32_t dst_l1, uint32_t size, uint32_t noc, const char* file,
              uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).noc_read(k, src, dst_l1, size, noc, file, line);
  tracer_of(k).noc_unicast(*k, "noc_async_read", begin, src, size, true);
}

void noc_write(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t dst, uint32_t size, uint32_t noc, const char* file,
               uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).noc_write(k, src_l1, dst, size, noc, file, line);
  tracer_of(k).noc_unicast(*k, "noc_async_write", begin, dst, size, false);
}

void noc_write_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t size, uint32_t num_dests,
                         uint32_t loopback, uint32_t noc, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).noc_write_multicast(k, src_l1, mcast, size, num_dests, loopback, noc, file, line);
  tracer_of(k).noc_multicast(*k, "noc_async_write_multicast", begin, mcast, size, loopback != 0);
}

void noc_inline_write(tessel_kernel_ctx* k, uint64_t dst, uint32_t value, uint32_t be, uint32_t noc, const char* file,
                      uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).noc_inline_write(k, dst, value, be, noc, file, line);
  tracer_of(k).noc_unicast(*k, "noc_inline_dw_write", begin, dst, 4, false);
}

void sem_inc(tessel_kernel_ctx* k, uint64_t dst, uint32_t incr, uint32_t noc, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sem_inc(k, dst, incr, noc, file, line);
  tracer_of(k).noc_unicast(*k, "noc_semaphore_inc", begin, dst, 4, false);
}

void sem_set_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t num_dests, uint32_t loopback,
                       uint32_t noc, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sem_set_multicast(k, src_l1, mcast, num_dests, loopback, noc, file, line);
  tracer_of(k).noc_multicast(*k, "noc_semaphore_set_multicast", begin, mcast, 4, loopback != 0);
}

// ---------------------------------------------------------------------------
// Compute: a call's tiles by kind (matmul counts tile products)

void copy_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).copy_tile(k, cb, itile, idst, file, line);
  tracer_of(k).compute_call(*k, "copy_tile", ComputeKind::Unpack, 1, begin);
}

void copy_block(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, uint32_t n, const char* file,
                uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).copy_block(k, cb, itile, idst, n, file, line);
  tracer_of(k).compute_call(*k, "copy_block_matmul_partials", ComputeKind::Unpack, n, begin);
}

void binary_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                  uint32_t idst, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).binary_tiles(k, op, cb0, cb1, i0, i1, idst, file, line);
  const char* name = op == TESSEL_BINARY_ADD ? "add_tiles" : op == TESSEL_BINARY_SUB ? "sub_tiles" : "mul_tiles";
  tracer_of(k).compute_call(*k, name, ComputeKind::Eltwise, 1, begin);
}

void bcast_tiles(tessel_kernel_ctx* k, uint32_t op, uint32_t bcast, uint32_t cb0, uint32_t cb1, uint32_t i0,
                 uint32_t i1, uint32_t idst, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).bcast_tiles(k, op, bcast, cb0, cb1, i0, i1, idst, file, line);
  const char* name = op == TESSEL_BINARY_ADD   ? "add_tiles_bcast"
                     : op == TESSEL_BINARY_SUB ? "sub_tiles_bcast"
                                               : "mul_tiles_bcast";
  tracer_of(k).compute_call(*k, name, ComputeKind::Eltwise, 1, begin);
}

void dest_tiles(tessel_kernel_ctx* k, uint32_t kind, uint32_t arg, uint32_t cb, uint32_t itile, uint32_t idst,
                const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).dest_tiles(k, kind, arg, cb, itile, idst, file, line);
  tracer_of(k).compute_call(*k, kind == TESSEL_UNARY_BCAST ? "unary_bcast" : "binary_dest_reuse_tiles",
                            kind == TESSEL_UNARY_BCAST ? ComputeKind::Unpack : ComputeKind::Eltwise, 1, begin);
}

void reduce_tile(tessel_kernel_ctx* k, uint32_t pool_dim, uint32_t cb, uint32_t cb_scaler, uint32_t itile,
                 uint32_t itile_scaler, uint32_t idst, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).reduce_tile(k, pool_dim, cb, cb_scaler, itile, itile_scaler, idst, file, line);
  tracer_of(k).compute_call(*k, "reduce_tile", ComputeKind::Eltwise, 1, begin);
}

void transpose_wh_tile(tessel_kernel_ctx* k, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                       uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).transpose_wh_tile(k, cb, itile, idst, file, line);
  tracer_of(k).compute_call(*k, "transpose_wh_tile", ComputeKind::Eltwise, 1, begin);
}

void matmul(tessel_kernel_ctx* k, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
            uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).matmul(k, cb0, cb1, i0, i1, idst, transpose, ct, rt, kt, file, line);
  const bool single = ct == 1 && rt == 1 && kt == 1;
  tracer_of(k).compute_call(*k, single ? "matmul_tiles" : "matmul_block", ComputeKind::Matmul, uint64_t(ct) * rt * kt,
                            begin);
}

void sfpu_unary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sfpu_unary(k, op, idst, p0, p1, approx, file, line);
  tracer_of(k).compute_call(*k, sfpu_name(op), ComputeKind::Sfpu, 1, begin);
}

void sfpu_state(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file,
                uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sfpu_state(k, op, idst, p0, p1, file, line);
  tracer_of(k).compute_call(*k, sfpu_state_name(op), ComputeKind::Sfpu, 1, begin);
}

void sfpu_binary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file,
                 uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sfpu_binary(k, op, idst0, idst1, odst, file, line);
  tracer_of(k).compute_call(*k, sfpu_binary_name(op), ComputeKind::Sfpu, 1, begin);
}

void sfpu_ternary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst,
                  uint32_t p0, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sfpu_ternary(k, op, idst0, idst1, idst2, odst, p0, file, line);
  tracer_of(k).compute_call(*k, sfpu_ternary_name(op), ComputeKind::Sfpu, 1, begin);
}

void sfpi_open(tessel_kernel_ctx* k, const char* call, uint32_t tile_mask, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).sfpi_open(k, call, tile_mask, file, line);
  tracer_of(k).compute_call(*k, call ? call : "sfpi", ComputeKind::Sfpu, uint64_t(std::popcount(tile_mask)), begin);
}

void pack_tile(tessel_kernel_ctx* k, uint32_t idst, uint32_t cb, int32_t index, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).pack_tile(k, idst, cb, index, file, line);
  tracer_of(k).compute_call(*k, "pack_tile", ComputeKind::Pack, 1, begin);
}

void tilize_block(tessel_kernel_ctx* k, uint32_t fast, uint32_t icb, uint32_t block, uint32_t ocb, uint32_t in_index,
                  uint32_t out_index, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).tilize_block(k, fast, icb, block, ocb, in_index, out_index, file, line);
  tracer_of(k).compute_call(*k, fast ? "fast_tilize_block" : "tilize_block", ComputeKind::Unpack, block, begin);
}

void untilize_block(tessel_kernel_ctx* k, uint32_t icb, uint32_t block_ct_dim, uint32_t full_ct_dim, uint32_t ocb,
                    const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).untilize_block(k, icb, block_ct_dim, full_ct_dim, ocb, file, line);
  tracer_of(k).compute_call(*k, "untilize_block", ComputeKind::Unpack, full_ct_dim, begin);
}

void pack_untilize(tessel_kernel_ctx* k, uint32_t icb, uint32_t ocb, uint32_t block_ct_dim, uint32_t full_ct_dim,
                   uint32_t block_rt_dim, uint32_t block_c_index, uint32_t dst_offset, const char* file,
                   uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).pack_untilize(k, icb, ocb, block_ct_dim, full_ct_dim, block_rt_dim, block_c_index, dst_offset, file, line);
  const bool dest = icb == TESSEL_NO_CB;
  tracer_of(k).compute_call(*k, dest ? "pack_untilize_dest" : "pack_untilize_block",
                            dest ? ComputeKind::Pack : ComputeKind::Unpack, uint64_t(block_rt_dim) * block_ct_dim,
                            begin);
}

void welford(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c, const uint32_t* lut,
             uint32_t lut_size, const char* file, uint32_t line) {
  const uint64_t begin = trace_clock(*k);
  inner(k).welford(k, op, idst, a, b, c, lut, lut_size, file, line);
  tracer_of(k).compute_call(*k, welford_op_name(op), ComputeKind::Sfpu, 1, begin);
}

tessel_sim_api make_table(const tessel_sim_api& base) {
  tessel_sim_api t = base;
  t.cb_push_back = cb_push_back;
  t.cb_pop_front = cb_pop_front;
  t.noc_read = noc_read;
  t.noc_write = noc_write;
  t.noc_write_multicast = noc_write_multicast;
  t.noc_inline_write = noc_inline_write;
  t.sem_inc = sem_inc;
  t.sem_set_multicast = sem_set_multicast;
  t.copy_tile = copy_tile;
  t.copy_block = copy_block;
  t.dest_tiles = dest_tiles;
  t.binary_tiles = binary_tiles;
  t.bcast_tiles = bcast_tiles;
  t.reduce_tile = reduce_tile;
  t.transpose_wh_tile = transpose_wh_tile;
  t.matmul = matmul;
  t.sfpu_unary = sfpu_unary;
  t.sfpu_binary = sfpu_binary;
  t.sfpu_ternary = sfpu_ternary;
  t.sfpu_state = sfpu_state;
  t.sfpi_open = sfpi_open;
  t.pack_tile = pack_tile;
  t.tilize_block = tilize_block;
  t.untilize_block = untilize_block;
  t.pack_untilize = pack_untilize;
  t.welford = welford;
  return t;
}

} // namespace

const tessel_sim_api* traced_api_table() {
  static const tessel_sim_api table = make_table(*kernel_api_table());
  return &table;
}

const tessel_sim_api* traced_timed_api_table() {
  static const tessel_sim_api table = make_table(*timed_api_table());
  return &table;
}

} // namespace tessel::sim
