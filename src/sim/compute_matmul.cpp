// matmul_tiles / matmul_block: the checks, the unpack of the operands into
// source registers as the multiplier sees them, and the tile products
// (tile_math.hpp), each DST tile accumulating in place.
#include <memory>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "sim/tile_math.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

// The unpacked operands of one call (up to 16 in0 and 16 in1 tiles, and the
// second pass's for HiFi3). Ops never yield mid-call, so one per host thread
// is enough.
struct MatmulScratch {
  alignas(64) float a[kDstTiles][kTileHW];  // in0 (SrcB)
  alignas(64) float b[kDstTiles][kTileHW];  // in1 (SrcA)
  alignas(64) float a2[kDstTiles][kTileHW]; // HiFi3: lo(in0)
  alignas(64) float b2[kDstTiles][kTileHW]; // HiFi3: hi(in1)
  alignas(64) float t[kTileHW];             // in1 before its transpose
  alignas(64) float rows[kTileHW];
};
MatmulScratch& matmul_scratch() {
  thread_local std::unique_ptr<MatmulScratch> s = std::make_unique<MatmulScratch>();
  return *s;
}

// Unpacks tile `itile` of cb (checked) into `out`, as a source register holds it.
inline void unpack_src_tile(tessel_kernel_ctx* k, const char* call, const CallText& what, uint32_t cb, uint32_t itile,
                            float* out, const char* file, uint32_t line) {
  const uint8_t* tile = front_tile(k, call, what, cb, itile, file, line);
  unpack_src(DataFormat(k->cbs[cb].data_format), tile, out);
}

} // namespace

void api_matmul(tessel_kernel_ctx* k, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
                uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "matmul_tiles", file, line);
  const bool block = !(ct == 1 && rt == 1 && kt == 1);
  const char* name = block ? "matmul_block" : "matmul_tiles";
  check_compute(k, name, file, line);
  ComputeState& s = state_of(k);
  const CallText what{CallText::Matmul, 0, {cb0, cb1, i0, i1, idst, transpose, ct, rt, kt}};
  need_hw(k, what, file, line);
  if (__builtin_expect(s.op != ComputeOp::Matmul, 0))
    missing_init(k, what,
                 "the FPU is not configured for matmul: call mm_init(in0, in1, out) (or matmul_init, mm_init_short, "
                 "mm_block_init) first",
                 file, line);
  if (__builtin_expect(transpose != s.op_arg, 0)) {
    std::string msg = text(what) + ": transpose=" + num(transpose) + " but " + s.op_init_call + " at " +
                      site(s.op_init_file, s.op_init_line) + " configured transpose=" + num(s.op_arg) +
                      " (the unpacker transposes in1 only as its init says)";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(ct == 0 || rt == 0 || ct * rt > dst_capacity(k), 0)) {
    std::string msg = text(what) + ": a " + num(rt) + " x " + num(ct) +
                      " output block must have at least 1 and at most " + num(dst_capacity(k)) +
                      " tiles (the capacity of one DST acquire, " + dst_mode(k) + ")";
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(idst + ct * rt > dst_capacity(k), 0)) dst_index_error(k, what, idst + ct * rt - 1, file, line);
  math_dst(k, what, idst, file, line, Access::Update); // MATH holds DST
  check_float_operand(k, what, cb0, file, line);
  check_float_operand(k, what, cb1, file, line);
  // in1 goes to SrcA and in0 to SrcB; kernels configure them in either order.
  if (s.fmt_a != DataFormat::Invalid) {
    const DataFormat f0 = DataFormat(k->cbs[cb0].data_format), f1 = DataFormat(k->cbs[cb1].data_format);
    if (!(f1 == s.fmt_a && f0 == s.fmt_b) && !(f0 == s.fmt_a && f1 == s.fmt_b))
      unpack_format_error(k, what, f1 != s.fmt_a && f1 != s.fmt_b ? cb1 : cb0, f1 != s.fmt_a ? 0 : 1, file, line);
  }

  MatmulScratch& w = matmul_scratch();
  const uint32_t fid = k->math_fidelity;
  const bool prep = fidelity_needs_prep(fid);
  for (uint32_t r = 0; r < rt; ++r) {
    unpack_src_tile(k, name, what, cb0, i0 + r * kt, w.a[r], file, line);
    if (prep) prepare_srcb(fid, w.a[r], w.a2[r]);
  }
  for (uint32_t c = 0; c < ct; ++c) {
    if (transpose) {
      unpack_src_tile(k, name, what, cb1, i1 + c, w.t, file, line);
      to_rows(w.t, w.rows);
      transpose_rows(w.rows, w.t);
      from_rows(w.t, w.b[c]);
    } else {
      unpack_src_tile(k, name, what, cb1, i1 + c, w.b[c], file, line);
    }
    if (prep) prepare_srca(fid, w.b[c], w.b2[c]);
  }
  const bool two = prep && fidelity_passes(fid) == 2;
  const bool round = !k->fp32_dest_acc_en;
  // Each DST tile accumulates in place (face order), rounded once at the end.
  for (uint32_t r = 0; r < rt; ++r)
    for (uint32_t c = 0; c < ct; ++c) {
      float* d = math_dst(k, what, idst + r * ct + c, file, line, Access::Update);
      matmul_tile_acc(w.a[r], w.b[c], d, round && !two);
      if (two) matmul_tile_acc(w.a2[r], w.b2[c], d, round);
    }
}

} // namespace tessel::sim
