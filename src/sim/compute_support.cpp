// The compute engine's messages (compute_support.hpp): how a call is named
// and the failing paths the checks share. All cold: nothing here runs unless
// a kernel misuses the engine.
#include "sim/compute_support.hpp"

#include <string>

#include "sim/sfpu.hpp"

namespace tessel::sim {

std::string dst_mode(const tessel_kernel_ctx* k) {
  return std::string(k->dst_full_sync_en ? "full-sync" : "half-sync") +
         (k->fp32_dest_acc_en ? " with fp32_dest_acc_en" : " with 16-bit DST");
}

namespace detail {

namespace {

const char* pool_name(uint32_t pool) {
  return pool == TESSEL_POOL_SUM ? "SUM" : pool == TESSEL_POOL_AVG ? "AVG" : "MAX";
}
const char* dim_name(uint32_t dim) {
  return dim == TESSEL_REDUCE_ROW ? "REDUCE_ROW" : dim == TESSEL_REDUCE_COL ? "REDUCE_COL" : "REDUCE_SCALAR";
}

} // namespace

const char* binary_name(uint32_t op) {
  return op == TESSEL_BINARY_ADD ? "add_tiles" : op == TESSEL_BINARY_SUB ? "sub_tiles" : "mul_tiles";
}

std::string reduce_text(uint32_t pool_dim) {
  return std::string("<") + pool_name(pool_dim >> 4) + ", " + dim_name(pool_dim & 15u) + ">";
}
const char* bcast_name(uint32_t b) {
  return b == TESSEL_BCAST_ROW ? "rows" : b == TESSEL_BCAST_COL ? "cols" : "scalar";
}
std::string bcast_call(uint32_t op_bcast) {
  const uint32_t op = op_bcast >> 4;
  return std::string(op == TESSEL_BINARY_ADD   ? "add"
                     : op == TESSEL_BINARY_SUB ? "sub"
                                               : "mul") +
         "_tiles_bcast_" + bcast_name(op_bcast & 15u);
}

TESSEL_COLD std::string text(const CallText& c) {
  const uint32_t* v = c.v;
  switch (c.kind) {
  case CallText::Copy: return "copy_tile(cb=" + num(v[0]) + ", itile=" + num(v[1]) + ", idst=" + num(v[2]) + ")";
  case CallText::Binary:
    return std::string(binary_name(c.op)) + "(cb0=" + num(v[0]) + ", cb1=" + num(v[1]) + ", itile0=" + num(v[2]) +
           ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Matmul:
    if (v[6] == 1 && v[7] == 1 && v[8] == 1)
      return "matmul_tiles(in0=" + num(v[0]) + ", in1=" + num(v[1]) + ", itile0=" + num(v[2]) +
             ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + (v[5] ? ", transpose=1)" : ")");
    return "matmul_block(in0=" + num(v[0]) + ", in1=" + num(v[1]) + ", itile0=" + num(v[2]) + ", itile1=" + num(v[3]) +
           ", idst=" + num(v[4]) + ", transpose=" + num(v[5]) + ", ct_dim=" + num(v[6]) + ", rt_dim=" + num(v[7]) +
           ", kt_dim=" + num(v[8]) + ")";
  case CallText::Reduce:
    return "reduce_tile" + reduce_text(c.op) + "(cb=" + num(v[0]) + ", cb_scaler=" + num(v[1]) +
           ", itile=" + num(v[2]) + ", itile_scaler=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Transpose:
    return "transpose_wh_tile(cb=" + num(v[0]) + ", itile=" + num(v[1]) + ", idst=" + num(v[2]) + ")";
  case CallText::Bcast:
    return bcast_call(c.op) + "(cb0=" + num(v[0]) + ", cb1=" + num(v[1]) + ", itile0=" + num(v[2]) +
           ", itile1=" + num(v[3]) + ", idst=" + num(v[4]) + ")";
  case CallText::Sfpu: return std::string(sfpu_name(c.op)) + "(idst=" + num(v[0]) + ")";
  case CallText::SfpuBinary:
    return std::string(sfpu_binary_name(c.op)) + "(idst0=" + num(v[0]) + ", idst1=" + num(v[1]) +
           ", odst=" + num(v[2]) + ")";
  case CallText::SfpuTernary:
    return std::string(sfpu_ternary_name(c.op)) + "(idst0=" + num(v[0]) + ", idst1=" + num(v[1]) +
           ", idst2=" + num(v[2]) + ", odst=" + num(v[3]) + ")";
  case CallText::SfpuState: return std::string(sfpu_state_name(c.op)) + "(idst=" + num(v[0]) + ")";
  case CallText::DestTiles: {
    const uint32_t arg = c.op & 0xFFu;
    const std::string tail = "(cb=" + num(v[0]) + ", itile=" + num(v[1]) + ", idst=" + num(v[2]) + ")";
    if ((c.op >> 8) == TESSEL_UNARY_BCAST) return std::string("unary_bcast<") + bcast_name(arg) + ">" + tail;
    return std::string("binary_dest_reuse_tiles<") + binary_name(arg >> 4) +
           ((arg & 15u) == TESSEL_REUSE_DEST_TO_SRCA ? ", DEST_TO_SRCA>" : ", DEST_TO_SRCB>") + tail;
  }
  case CallText::Welford: return welford_text(c.op, v);
  case CallText::CopyBlock:
    return "copy_block_matmul_partials(cb=" + num(v[0]) + ", start_itile=" + num(v[1]) + ", start_idst=" + num(v[2]) +
           ", ntiles=" + num(v[3]) + ")";
  default: return "pack_tile(idst=" + num(v[0]) + ", cb=" + num(v[1]) + ")";
  }
}

TESSEL_COLD void not_compute(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  {
    std::string msg = std::string(call) + " is a compute kernel call, but this kernel runs on " +
                      Chip::risc_name(k->risc) + " (create it with a ComputeConfig)";
    fail(k, std::move(msg), file, line);
  }
}

[[noreturn]] TESSEL_COLD void dst_index_error(tessel_kernel_ctx* k, const CallText& what, uint32_t idst,
                                              const char* file, uint32_t line) {
  const uint32_t cap = dst_capacity(k);
  {
    std::string msg = text(what) + ": DST index " + num(idst) + " is out of range: one acquire holds " + num(cap) +
                      " tiles in " + dst_mode(k) + " mode (indices 0.." + num(cap - 1) +
                      "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
    fail(k, std::move(msg), file, line);
  }
}

[[noreturn]] TESSEL_COLD void math_not_holding(tessel_kernel_ctx* k, const CallText& what, const char* file,
                                               uint32_t line) {
  const ComputeState& s = state_of(k);
  {
    std::string msg = text(what) +
                      ": MATH does not hold DST: call tile_regs_acquire (or acquire_dst) before writing DST" +
                      (s.committed ? " (the last section was already handed to PACK with tile_regs_commit)" : "");
    fail(k, std::move(msg), file, line);
  }
}

std::string last_init_note(const ComputeState& s) {
  if (!s.op_init_call) return " (no op init was called in this kernel)";
  return std::string(" (the last op init was ") + s.op_init_call + " at " + site(s.op_init_file, s.op_init_line) + ")";
}

[[noreturn]] TESSEL_COLD void missing_init(tessel_kernel_ctx* k, const CallText& what, const char* need,
                                           const char* file, uint32_t line) {
  {
    std::string msg = text(what) + ": " + need + last_init_note(state_of(k));
    fail(k, std::move(msg), file, line);
  }
}

// A binary op whose own *_tiles_init is not the most recent op init. The
// message is built here, not by the caller: a failing kernel's frame is
// abandoned, never unwound, so the caller must hold no strings.
[[noreturn]] TESSEL_COLD void missing_op_init(tessel_kernel_ctx* k, const CallText& what, const char* name,
                                              const char* file, uint32_t line) {
  std::string msg = text(what) + ": the FPU is not configured for " + name + ": call " + name +
                    "_init(cb0, cb1) first" + last_init_note(state_of(k));
  fail(k, std::move(msg), file, line); // msg is left empty: nothing leaks from this abandoned frame
}

// ---- Data-format configuration ----

std::string site_note(const InitSite& at) {
  return at.call ? std::string(" (by ") + at.call + " at " + site(at.file, at.line) + ")" : std::string();
}

// An operand CB whose format is not the one the unpacker's SrcA (which = 0)
// or SrcB (1) is configured for. Unset configuration (no full init yet) is
// reported by the init checks, not here.
[[noreturn]] TESSEL_COLD void unpack_format_error(tessel_kernel_ctx* k, const CallText& what, uint32_t cb,
                                                  uint32_t which, const char* file, uint32_t line) {
  const ComputeState& s = state_of(k);
  const DataFormat want = which ? s.fmt_b : s.fmt_a;
  const char* reg = which ? "SrcB" : "SrcA";
  std::string msg = text(what) + ": CB " + num(cb) + " holds " + to_string(DataFormat(k->cbs[cb].data_format)) +
                    ", but the unpacker's " + reg + " is configured for " + to_string(want) +
                    site_note(which ? s.fmt_b_site : s.fmt_a_site) + ": call reconfig_data_format_" +
                    (which ? "srcb(" : "srca(") + num(cb) + ") (or reconfig_data_format) first";
  fail(k, std::move(msg), file, line);
}

} // namespace detail

} // namespace tessel::sim
