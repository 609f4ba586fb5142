// matmul_tiles / matmul_block: the checks, the unpack of the operands into
// source registers as the multiplier sees them, and the hand-off of the whole
// output block to the float kernel (matmul_kernel.hpp).
//
// Per call: rt in0 tiles (rows of the output block) and ct in1 tiles
// (columns) are unpacked once each, in1 transposed within the tile when the
// init asked for it, then cut to what the fidelity's passes see (tile_math.hpp);
// the kernel then adds in0[r] x in1[j] to every DST tile of the block in one
// pass over it. No allocation: the unpacked operands live in per-thread
// scratch.
#include <memory>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "sim/matmul_kernel.hpp"
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
};
MatmulScratch& matmul_scratch() {
  thread_local std::unique_ptr<MatmulScratch> s = std::make_unique<MatmulScratch>();
  return *s;
}

// The pages the next call will probably read, for the kernel to fetch into
// L2 while this call computes. A kernel's k loop steps its tile indices by
// the same amounts on every call (in0 by 1, in1 by the block's width), and
// restarts them for the next sub-block; so the guess is these indices plus
// the step last seen on two calls in a row (a restart's one-off step is not
// learned). A wrong guess costs only the prefetches; pages outside the
// waited window are skipped.
void plan_prefetch(tessel_kernel_ctx* k, ComputeState& s, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                   uint32_t rt, uint32_t ct, uint32_t kt, MatmulBlock& m) {
  ComputeState::MatmulStride& st = s.matmul_stride;
  const uint32_t seen0 = i0 - st.last0, seen1 = i1 - st.last1;
  if (seen0 == st.seen0 && seen1 == st.seen1) st.step0 = seen0, st.step1 = seen1;
  st.seen0 = seen0;
  st.seen1 = seen1;
  st.last0 = i0;
  st.last1 = i1;
  const uint32_t next0 = i0 + st.step0, next1 = i1 + st.step1;
  auto add = [&m](const tessel_cb_iface& q, uint32_t page) {
    if (page >= q.waited_pages) return;
    m.prefetch[m.prefetch_count] = static_cast<const char*>(front_page(q, page));
    m.prefetch_lines[m.prefetch_count++] = (q.tile_size + 63) / 64;
  };
  m.prefetch_count = 0;
  for (uint32_t r = 0; r < rt; ++r)
    add(k->cbs[cb0], next0 + r * kt);
  for (uint32_t c = 0; c < ct; ++c)
    add(k->cbs[cb1], next1 + c);
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
  const DataFormat f0 = DataFormat(k->cbs[cb0].data_format), f1 = DataFormat(k->cbs[cb1].data_format);
  if (s.fmt_a != DataFormat::Invalid) {
    if (!(f1 == s.fmt_a && f0 == s.fmt_b) && !(f0 == s.fmt_a && f1 == s.fmt_b))
      unpack_format_error(k, what, f1 != s.fmt_a && f1 != s.fmt_b ? cb1 : cb0, f1 != s.fmt_a ? 0 : 1, file, line);
  }
  // Every operand page is checked before any is read.
  const uint8_t* in0[kDstTiles];
  const uint8_t* in1[kDstTiles];
  for (uint32_t r = 0; r < rt; ++r)
    in0[r] = front_tile(k, name, what, cb0, i0 + r * kt, file, line);
  for (uint32_t c = 0; c < ct; ++c)
    in1[c] = front_tile(k, name, what, cb1, i1 + c, file, line);
  MatmulBlock m;

  // The pages are often not in the host's caches (other cores ran since
  // they were written): ask for all of them at once, so their misses overlap
  // instead of stalling one tile at a time.
  for (uint32_t r = 0; r < rt; ++r)
    prefetch(in0[r], k->cbs[cb0].tile_size);
  for (uint32_t c = 0; c < ct; ++c)
    prefetch(in1[c], k->cbs[cb1].tile_size);
  for (uint32_t t = 0; t < rt * ct; ++t)
    m.c[t] = math_dst(k, what, idst + t, file, line, Access::Update);

  MatmulScratch& w = matmul_scratch();
  const uint32_t fid = k->math_fidelity;
  const bool prep = fidelity_needs_prep(fid);
  m.rt = rt;
  m.ct = ct;
  m.two_pass = prep && fidelity_passes(fid) == 2;
  m.round = !k->fp32_dest_acc_en;
  for (uint32_t r = 0; r < rt; ++r) {
    unpack_src(f0, in0[r], w.a[r]);
    if (prep) prepare_srcb(fid, w.a[r], w.a2[r]);
    m.a[r] = w.a[r];
    m.a2[r] = w.a2[r];
  }
  for (uint32_t c = 0; c < ct; ++c) {
    if (transpose) {
      unpack_src(f1, in1[c], w.t);
      transpose_tile(w.t, w.b[c]);
    } else {
      unpack_src(f1, in1[c], w.b[c]);
    }
    if (prep) prepare_srca(fid, w.b[c], w.b2[c]);
    m.b[c] = w.b[c];
    m.b2[c] = w.b2[c];
  }
  plan_prefetch(k, s, cb0, cb1, i0, i1, rt, ct, kt, m);
  matmul_block_acc(m);
}

} // namespace tessel::sim
