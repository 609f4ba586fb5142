// The packer's edits of what it packs (kernel/include/tessel/pack_config.h):
// ReLU and the reduce edge masks, set from the PACK thread and applied by
// every pack_tile until changed. Both are packer configuration, so a full
// init (compute_kernel_hw_startup, ...) turns them off (compute_init.cpp).
//
// Edge masks (tt-llk's _llk_pack_reduce_mask_config_). Packer i packs face
// i; each face row is 16 datums, and a per-packer row mapping picks, for
// each of its 16 rows, a mask of the datums to keep (the rest are packed as
// zero):
//   ROW     every row of every face keeps datum 0 (tile columns 0 and 16);
//   COL     row 0 of faces 0 and 1 keeps all 16 (tile row 0), the rest none;
//   SCALAR  row 0 of face 0 keeps datum 0 (tile [0][0]), the rest none.
//
// ReLU (STACC_RELU, mode ZERO_RELU): a negative value is packed as 0. The
// threshold modes are refused when the kernel is compiled.
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "tessel/tile.hpp"

namespace tessel::sim {

using namespace detail;

bool is_pack_config_init(uint32_t init) {
  return init == TESSEL_INIT_PACK_RELU || init == TESSEL_INIT_PACK_REDUCE_MASK;
}

void pack_config_init(tessel_kernel_ctx* k, uint32_t init, const char* call, uint32_t a, const char* file,
                      uint32_t line) {
  ComputeState::PackEdits& e = state_of(k).pack_edits;
  if (init == TESSEL_INIT_PACK_RELU) {
    if (a != TESSEL_PACK_RELU_NONE && a != TESSEL_PACK_RELU_ZERO) {
      std::string msg = std::string(call) + ": ReLU mode " + num(a) +
                        " is not supported by tessel (expected ReluConfig::none() or ReluConfig::zero())";
      fail(k, std::move(msg), file, line);
    }
    e.relu = uint8_t(a);
    e.relu_site = {call, file, line};
    return;
  }
  if (a > 1u + TESSEL_REDUCE_SCALAR) {
    std::string msg = std::string(call) + ": unknown reduce dim " + num(a - 1u) +
                      " (expected REDUCE_ROW, REDUCE_COL or REDUCE_SCALAR)";
    fail(k, std::move(msg), file, line);
  }
  e.reduce_mask = uint8_t(a);
  e.mask_site = {call, file, line};
}

const float* apply_pack_edits(const ComputeState& s, const float* src, float* scratch) {
  const ComputeState::PackEdits& e = s.pack_edits;
  if (!e.active()) return src;
  const bool relu = e.relu == TESSEL_PACK_RELU_ZERO;
  const uint32_t dim = e.reduce_mask - 1u; // meaningful when reduce_mask != 0
  for (uint32_t i = 0; i < kTileHW; ++i) {
    const uint32_t face = i / 256, row = (i % 256) / 16, datum = i % 16;
    bool keep = true;
    if (e.reduce_mask != 0) {
      if (dim == TESSEL_REDUCE_ROW)
        keep = datum == 0;
      else if (dim == TESSEL_REDUCE_COL)
        keep = face < 2 && row == 0;
      else
        keep = face == 0 && row == 0 && datum == 0;
    }
    const float v = keep ? src[i] : 0.0f;
    scratch[i] = relu && v < 0.0f ? 0.0f : v;
  }
  return scratch;
}

void check_no_pack_edits(tessel_kernel_ctx* k, const char* call, const char* file, uint32_t line) {
  const ComputeState::PackEdits& e = state_of(k).pack_edits;
  if (__builtin_expect(!e.active(), 1)) return;
  const InitSite& at = e.relu != TESSEL_PACK_RELU_NONE ? e.relu_site : e.mask_site;
  std::string msg = std::string(call) + " while the packer's " +
                    (e.relu != TESSEL_PACK_RELU_NONE ? "ReLU" : "reduce edge mask") + " is on (set by " + at.call +
                    " at " + site(at.file, at.line) +
                    ") is not supported by tessel: the packer's edits are modelled for pack_tile only; turn it off "
                    "first (llk_pack_relu_config(ReluConfig::none()), reduce_uninit() or llk_pack_reduce_mask_clear())";
  fail(k, std::move(msg), file, line);
}

} // namespace tessel::sim
