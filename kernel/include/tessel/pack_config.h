// The packer's own edits of the tiles it packs, as tt-llk configures them
// from the PACK thread: ReLU (llk_pack_relu_config, pack_relu_config, here)
// and the reduce edge masks (llk_pack_reduce_mask_config / _clear in
// tessel/llk_reduce.h, which reduce_init and reduce_uninit also set). Each
// is state of the packer: it applies to every pack_tile until changed
// (src/sim/compute_pack_config.cpp).
//
//   ReluConfig::none()   pack values as they are
//   ReluConfig::zero()   pack negative values as 0
//   reduce mask ROW      keep the first datum of every face row (tile columns 0 and 16), zero the rest
//   reduce mask COL      keep row 0 of faces 0 and 1 (tile row 0), zero the rest
//   reduce mask SCALAR   keep datum [0][0], zero the rest
//
// The threshold ReLUs (ReluConfig::min_threshold / max_threshold) are not
// modelled: naming one fails to compile.
#ifndef TESSEL_PACK_CONFIG_H
#define TESSEL_PACK_CONFIG_H

#include "tessel/kernel_common.h"
#include "tessel/llk_defs.h"

#ifndef ALWI
#define ALWI inline __attribute__((always_inline))
#endif

namespace ckernel {

namespace tessel_pack {
template <typename T>
inline constexpr bool never = false;
inline void init(uint32_t which, const char* call, uint32_t a, const char* file, uint32_t line) {
  tessel_kernel_ctx* k = tessel_ctx();
  k->api->compute_init(k, which, call, a, 0, 0, file, line);
}
} // namespace tessel_pack

// The packer's ReLU: a mode and a 16-bit threshold (tt-llk's ReluConfig).
struct ReluConfig {
  static constexpr ReluConfig none() { return ReluConfig(NO_RELU); }
  static constexpr ReluConfig zero() { return ReluConfig(ZERO_RELU); }
  template <typename Unmodelled = void>
  static constexpr ReluConfig min_threshold(uint32_t threshold) {
    static_assert(tessel_pack::never<Unmodelled>,
                  "ReluConfig::min_threshold is not supported by tessel: the packer's threshold ReLU is not modelled");
    return ReluConfig(MIN_THRESHOLD_RELU, threshold);
  }
  template <typename Unmodelled = void>
  static constexpr ReluConfig max_threshold(uint32_t threshold) {
    static_assert(tessel_pack::never<Unmodelled>,
                  "ReluConfig::max_threshold is not supported by tessel: the packer's threshold ReLU is not modelled");
    return ReluConfig(MAX_THRESHOLD_RELU, threshold);
  }
  constexpr ReluType get_mode() const { return mode; }
  constexpr uint32_t get_threshold() const { return threshold; }

private:
  constexpr explicit ReluConfig(ReluType m, uint32_t t = 0) : mode(m), threshold(t) {}
  ReluType mode = NO_RELU;
  uint32_t threshold = 0;
};

ALWI void llk_pack_relu_config(const ReluConfig& config, TESSEL_SITE_PARAMS) {
  tessel_pack::init(TESSEL_INIT_PACK_RELU, "llk_pack_relu_config", uint32_t(config.get_mode()), TESSEL_SITE);
}
ALWI void pack_relu_config(const ReluConfig& config, TESSEL_SITE_PARAMS) {
  tessel_pack::init(TESSEL_INIT_PACK_RELU, "pack_relu_config", uint32_t(config.get_mode()), TESSEL_SITE);
}

} // namespace ckernel

using ckernel::llk_pack_relu_config;
using ckernel::pack_relu_config;
using ckernel::ReluConfig;

#endif // TESSEL_PACK_CONFIG_H
