// The layout inits (kernel/include/tessel/tilize.h): tilize_init,
// untilize_init, pack_untilize_init / pack_untilize_dest_init and their
// uninits, called by api_compute_init. What each leaves set up is
// LayoutState (compute.hpp): the unpacker in tilize or untilize mode until
// its uninit, the packer in untilize mode until pack_untilize_uninit. The
// ops that read it are in compute_tilize.cpp.
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

void cb_of_init(tessel_kernel_ctx* k, const char* call, uint32_t cb, const char* file, uint32_t line) {
  if (__builtin_expect(cb >= k->num_cb_indices || !k->cbs[cb].configured, 0)) {
    k->api->fail_cb(k, call, cb, file, line);
    __builtin_unreachable();
  }
}

const char* unpack_mode_name(LayoutState::Unpack m) { return m == LayoutState::Unpack::Tilize ? "tilize" : "untilize"; }

} // namespace

bool is_layout_init(uint32_t init) { return init >= TESSEL_INIT_TILIZE && init <= TESSEL_INIT_PACK_UNTILIZE_UNINIT; }

void note_unpacker_init(tessel_kernel_ctx* k, bool full, const char* call, const char* file, uint32_t line) {
  LayoutState& L = state_of(k).layout;
  if (full) {
    // A full init configures the unpacker and the packer afresh.
    L.unpack = LayoutState::Unpack::Tiles;
    L.pack_untilize = false;
    return;
  }
  if (L.unpack == LayoutState::Unpack::Tiles) return;
  const bool tilize = L.unpack == LayoutState::Unpack::Tilize;
  std::string msg =
      std::string(call) + ": the unpacker is still in " + unpack_mode_name(L.unpack) + " mode (set by " +
      L.unpack_site.call + " at " + site(L.unpack_site.file, L.unpack_site.line) +
      "), which this init does not undo on silicon: call " +
      (tilize ? (L.fast ? "fast_tilize_uninit(icb, ocb)" : "tilize_uninit(icb, ocb)") : "untilize_uninit(icb)") +
      " first";
  core_of(k).chip->warn(fiber_of(k), std::move(msg), file, line);
}

void layout_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                 const char* file, uint32_t line) {
  ComputeState& s = state_of(k);
  LayoutState& L = s.layout;
  auto set_op = [&](ComputeOp op, uint32_t arg) {
    s.op = op;
    s.acc_to_dest = false;
    s.op_arg = arg;
    s.op_init_call = call;
    s.op_init_file = file;
    s.op_init_line = line;
    s.unpack_binary_site = {};
  };
  switch (init) {
  case TESSEL_INIT_TILIZE:
  case TESSEL_INIT_UNTILIZE: {
    cb_of_init(k, call, a, file, line);
    const bool tilize = init == TESSEL_INIT_TILIZE;
    if (tilize) cb_of_init(k, call, c & ~TESSEL_TILIZE_FAST, file, line);
    const LayoutState::Unpack mode = tilize ? LayoutState::Unpack::Tilize : LayoutState::Unpack::Untilize;
    if (L.unpack != mode) note_unpacker_init(k, false, call, file, line);
    set_op(tilize ? ComputeOp::Tilize : ComputeOp::Untilize, tilize ? b : 0);
    L.unpack = mode;
    L.fast = tilize && (c & TESSEL_TILIZE_FAST) != 0;
    L.tilize_block = tilize ? b : 0;
    L.unpack_site = {call, file, line};
    return;
  }
  case TESSEL_INIT_TILIZE_UNINIT:
  case TESSEL_INIT_UNTILIZE_UNINIT: {
    cb_of_init(k, call, a, file, line);
    const bool tilize = init == TESSEL_INIT_TILIZE_UNINIT;
    const bool fast = tilize && (c & TESSEL_TILIZE_FAST) != 0;
    const LayoutState::Unpack mode = tilize ? LayoutState::Unpack::Tilize : LayoutState::Unpack::Untilize;
    if (L.unpack != mode || L.fast != fast) {
      // The uninit restores unpacker settings its init saved: without that init it writes stale ones.
      std::string msg =
          std::string(call) + ": no " +
          (tilize ? (fast ? "fast_tilize_init" : "tilize_init (or tilize_init_short_with_dt)") : "untilize_init") +
          " is in effect" +
          (L.unpack != LayoutState::Unpack::Tiles ? std::string(" (the unpacker was set up by ") + L.unpack_site.call +
                                                        " at " + site(L.unpack_site.file, L.unpack_site.line) + ")"
                                                  : std::string(" (the unpacker is not in tilize or untilize mode)"));
      fail(k, std::move(msg), file, line);
    }
    L.unpack = LayoutState::Unpack::Tiles;
    L.fast = false;
    set_op(ComputeOp::None, 0);
    return;
  }
  case TESSEL_INIT_PACK_UNTILIZE: {
    if (a != TESSEL_NO_CB) {
      // pack_untilize_init also sets the unpacker and math up to copy tiles.
      cb_of_init(k, call, a, file, line);
      note_unpacker_init(k, false, call, file, line);
      set_op(ComputeOp::Copy, 0);
    }
    cb_of_init(k, call, b, file, line);
    // The packer is reconfigured for the output CB's format (not by the LLK's own init).
    if ((c & TESSEL_PACK_UNTILIZE_KEEP_FORMAT) == 0) {
      s.fmt_pack = DataFormat(k->cbs[b].data_format);
      s.fmt_pack_site = {call, file, line};
    }
    L.pack_untilize = true;
    L.block_ct_dim = c & 0xFFFFu;
    L.full_ct_dim = (c & ~TESSEL_PACK_UNTILIZE_KEEP_FORMAT) >> 16;
    L.pack_site = {call, file, line};
    return;
  }
  default: // TESSEL_INIT_PACK_UNTILIZE_UNINIT: back to packing tiles, for ocb's format
    cb_of_init(k, call, a, file, line);
    s.fmt_pack = DataFormat(k->cbs[a].data_format);
    s.fmt_pack_site = {call, file, line};
    L.pack_untilize = false;
    return;
  }
}

void warn_pack_in_untilize_mode(tessel_kernel_ctx* k, uint32_t idst, uint32_t cb, const char* file, uint32_t line) {
  const LayoutState& L = state_of(k).layout;
  std::string msg = "pack_tile(idst=" + num(idst) + ", cb=" + num(cb) +
                    "): the packer is still in untilize mode (set by " + L.pack_site.call + " at " +
                    site(L.pack_site.file, L.pack_site.line) +
                    "), so silicon would not write a tile: call pack_untilize_uninit(ocb) first";
  core_of(k).chip->warn(fiber_of(k), std::move(msg), file, line);
}

} // namespace tessel::sim
