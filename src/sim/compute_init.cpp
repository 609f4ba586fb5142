// The compute inits (compute_kernel_hw_startup, the op inits, the reconfig
// calls): what each leaves configured in ComputeState for the ops to check
// (which op the FPU is set up for, the unpacker's and packer's formats, the
// SFPU ops), and where it was called, for messages.
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

// A CB named by an init: it must exist on this core.
inline DataFormat init_cb_format(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  if (__builtin_expect(cb >= k->num_cb_indices || !k->cbs[cb].configured, 0)) {
    k->api->fail_cb(k, call, cb, file, line);
    __builtin_unreachable();
  }
  return DataFormat(k->cbs[cb].data_format);
}

// reconfig_data_format*(old, new): the hardware reconfigures only when the
// two CBs' formats differ, so a wrong `old` leaves the previous format in
// place (and a later op on `new` reports it). old1 = 1 + old, or 0 if absent.
void reconfig(tessel_kernel_ctx* k, DataFormat& fmt, InitSite& at, const char* call, uint32_t cb, uint32_t old1,
              const char* file, uint32_t line) {
  const DataFormat f = init_cb_format(k, call, cb, file, line);
  if (old1 != 0 && init_cb_format(k, call, old1 - 1, file, line) == f) return;
  fmt = f;
  at = {call, file, line};
}

// One op of an SFPU init (kernel_abi.h, TESSEL_SFPU_INIT_MORE): the init's
// first op replaces the configured ops, the others add to them.
void configure_sfpu(tessel_kernel_ctx* k, ComputeState& s, uint32_t init, const char* call, uint32_t op, uint32_t more,
                    const char* file, uint32_t line) {
  const uint32_t count = init == TESSEL_INIT_SFPU          ? uint32_t(TESSEL_SFPU_OP_COUNT)
                         : init == TESSEL_INIT_SFPU_BINARY ? uint32_t(TESSEL_SFPU_BINARY_OP_COUNT)
                                                           : uint32_t(TESSEL_SFPU_TERNARY_OP_COUNT);
  if (__builtin_expect(op >= count, 0)) {
    std::string msg = std::string(call) + ": unknown SFPU op " + num(op) + " (the kernel API has " + num(count) +
                      (init == TESSEL_INIT_SFPU          ? " unary"
                       : init == TESSEL_INIT_SFPU_BINARY ? " binary"
                                                         : " ternary") +
                      " ops)";
    fail(k, std::move(msg), file, line);
  }
  if (more == 0) {
    s.sfpu_ops.reset();
    s.sfpu_binary_ops.reset();
    s.sfpu_ternary_ops.reset();
    s.sfpu_state_ops.reset();
    s.sfpu_site = {call, file, line};
  }
  if (init == TESSEL_INIT_SFPU)
    s.sfpu_ops.set(op);
  else if (init == TESSEL_INIT_SFPU_BINARY)
    s.sfpu_binary_ops.set(op);
  else
    s.sfpu_ternary_ops.set(op);
}

} // namespace

void api_compute_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                      const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  check_compute(k, call, file, line);
  if (is_layout_init(init)) return layout_init(k, init, call, a, b, c, file, line);
  if (is_pack_config_init(init)) return pack_config_init(k, init, call, a, file, line);
  ComputeState& s = state_of(k);
  auto set_op = [&](ComputeOp op, bool acc, uint32_t arg = 0) {
    s.op = op;
    s.acc_to_dest = acc;
    s.op_arg = arg;
    s.op_init_call = call;
    s.op_init_file = file;
    s.op_init_line = line;
  };
  // The full inits configure the unpacker's two sources and the packer.
  auto configure = [&](uint32_t srca_cb, uint32_t srcb_cb, uint32_t pack_cb) {
    const DataFormat fa = init_cb_format(k, call, srca_cb, file, line);
    const DataFormat fb = init_cb_format(k, call, srcb_cb, file, line);
    const DataFormat fp = init_cb_format(k, call, pack_cb, file, line);
    s.hw_started = true;
    s.fmt_a = fa;
    s.fmt_b = fb;
    s.fmt_pack = fp;
    s.fmt_a_site = s.fmt_b_site = s.fmt_pack_site = {call, file, line};
    s.pack_edits = {}; // configuring the packer turns its ReLU and edge masks off
  };
  // Every init but the SFPU ones, the reconfigs and reduce_uninit sets the
  // unpacker up for its own op.
  const bool binary_math_only = (init == TESSEL_INIT_ADD || init == TESSEL_INIT_SUB || init == TESSEL_INIT_MUL) &&
                                (c & TESSEL_BINARY_INIT_MATH_ONLY) != 0;
  if (binary_math_only && !s.unpack_binary_site.call) {
    std::string msg = std::string(call) +
                      " configures MATH only, but the unpacker is not set up for eltwise binary ops" +
                      last_init_note(s) + ": call binary_op_init_common(cb0, cb1, ocb) first or use the full init";
    fail(k, std::move(msg), file, line);
  }
  const bool sfpu_init =
      init == TESSEL_INIT_SFPU || init == TESSEL_INIT_SFPU_BINARY || init == TESSEL_INIT_SFPU_TERNARY;
  const bool unpacker_init = !sfpu_init && init != TESSEL_INIT_REDUCE_UNINIT && init != TESSEL_INIT_RECONFIG_SRCA &&
                             init != TESSEL_INIT_RECONFIG_SRCB && init != TESSEL_INIT_RECONFIG_PACK;
  if (unpacker_init && (s.layout.unpack != LayoutState::Unpack::Tiles || s.layout.pack_untilize))
    note_unpacker_init(k,
                       init == TESSEL_INIT_HW_STARTUP || init == TESSEL_INIT_BINARY_COMMON ||
                           init == TESSEL_INIT_UNARY_COMMON || init == TESSEL_INIT_MATMUL_FULL,
                       call, file, line);
  if (unpacker_init && !binary_math_only) {
    const bool binary = init == TESSEL_INIT_BINARY_COMMON || init == TESSEL_INIT_ADD || init == TESSEL_INIT_SUB ||
                        init == TESSEL_INIT_MUL;
    s.unpack_binary_site = binary ? InitSite{call, file, line} : InitSite{};
  }
  switch (init) {
  case TESSEL_INIT_HW_STARTUP:
  case TESSEL_INIT_BINARY_COMMON: configure(a, b, c); break;
  case TESSEL_INIT_UNARY_COMMON:
    configure(a, a, c);
    set_op(ComputeOp::Copy, false);
    break;
  case TESSEL_INIT_COPY: set_op(ComputeOp::Copy, false); break;
  case TESSEL_INIT_ADD: set_op(ComputeOp::Add, (c & 1u) != 0); break;
  case TESSEL_INIT_SUB: set_op(ComputeOp::Sub, (c & 1u) != 0); break;
  case TESSEL_INIT_MUL: set_op(ComputeOp::Mul, (c & 1u) != 0); break;
  case TESSEL_INIT_MATMUL_FULL:
    configure(b, a, c >> 8); // in1 -> SrcA, in0 -> SrcB
    set_op(ComputeOp::Matmul, false, c & 1u);
    break;
  case TESSEL_INIT_MATMUL:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Matmul, false, c & 1u);
    break;
  case TESSEL_INIT_REDUCE:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Reduce, false, c);
    break;
  case TESSEL_INIT_REDUCE_UNINIT:
    if (s.op != ComputeOp::Reduce) {
      std::string msg = std::string(call) + ": no reduce_init is in effect" + last_init_note(s);
      fail(k, std::move(msg), file, line);
    }
    set_op(ComputeOp::None, false);
    break;
  case TESSEL_INIT_TRANSPOSE:
    init_cb_format(k, call, a, file, line);
    set_op(ComputeOp::Transpose, false);
    break;
  case TESSEL_INIT_BCAST:
    init_cb_format(k, call, a, file, line);
    init_cb_format(k, call, b, file, line);
    set_op(ComputeOp::Bcast, false, c);
    break;
  case TESSEL_INIT_DEST_REUSE:
    init_cb_format(k, call, a, file, line);
    set_op(ComputeOp::DestReuse, false, c);
    break;
  case TESSEL_INIT_UNARY_BCAST:
    init_cb_format(k, call, a, file, line);
    set_op(ComputeOp::UnaryBcast, false, c);
    break;
  case TESSEL_INIT_UNARY_BCAST_UNINIT:
    if (s.op != ComputeOp::UnaryBcast) {
      std::string msg = std::string(call) + ": no unary_bcast_init is in effect" + last_init_note(s);
      fail(k, std::move(msg), file, line);
    }
    set_op(ComputeOp::None, false);
    break;
  case TESSEL_INIT_SFPU:
  case TESSEL_INIT_SFPU_BINARY:
  case TESSEL_INIT_SFPU_TERNARY: configure_sfpu(k, s, init, call, a, b, file, line); break;
  case TESSEL_INIT_RECONFIG_SRCA: reconfig(k, s.fmt_a, s.fmt_a_site, call, a, b, file, line); break;
  case TESSEL_INIT_RECONFIG_SRCB: reconfig(k, s.fmt_b, s.fmt_b_site, call, a, b, file, line); break;
  case TESSEL_INIT_RECONFIG_PACK: reconfig(k, s.fmt_pack, s.fmt_pack_site, call, a, b, file, line); break;
  case TESSEL_INIT_PACK_L1_ACC: s.l1_acc = a != 0; break;
  default: {
    std::string msg = std::string(call) + ": unknown init " + num(init);
    fail(k, std::move(msg), file, line);
  }
  }
}

} // namespace tessel::sim
