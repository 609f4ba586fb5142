// The compute engine of one core: the DST register file and the state the
// unpack/math/pack inits leave behind (design §1.5, tt-metal.md §2.6).
//
// DST layout. 16 tiles of kTileHW floats. One acquire owns a section:
//   half-sync (dst_full_sync_en = 0): two sections, tiles 0..7 and 8..15,
//     used alternately by successive acquires (MATH may fill one while PACK
//     drains the other), 8 tiles each;
//   full-sync: one section of 16 tiles.
// fp32_dest_acc_en halves the tiles one acquire may use (4 / 8); the values
// are floats either way, rounded to bfloat16 precision on every write when
// fp32_dest_acc_en is off.
//
// Protocol invariants (one compute context plays MATH and PACK in program
// order, so both sides are tracked here):
//  - MATH holds at most one section (acquired, not yet committed);
//  - committed sections not yet released <= the number of sections;
//  - PACK holds at most one (waited, not yet released), the oldest committed;
//  - acquire_dst/release_dst take and free one section for both sides.
// Ops write only the section MATH holds; pack_tile reads only the one PACK
// holds. Everything is reset when a compute kernel is launched.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>

#include "sim/sfpu_state.hpp"
#include "sim/welford.hpp"
#include "tessel/data_format.hpp"
#include "tessel/kernel_abi.h"

namespace tessel::sim {

inline constexpr uint32_t kDstTiles = 16;

enum class ComputeOp : uint8_t {
  None,
  Copy,
  Add,
  Sub,
  Mul,
  Matmul,
  Reduce,
  Transpose,
  Bcast,
  Tilize,
  Untilize,
  DestReuse,
  UnaryBcast
};

// Where a piece of configuration was set, for messages.
struct InitSite {
  const char* call = nullptr;
  const char* file = nullptr;
  uint32_t line = 0;
};

// What the layout inits leave set up (compute_tilize.cpp): the unpacker in
// tilize or untilize mode until its uninit, and the packer in untilize mode
// (pack_untilize_init / pack_untilize_dest_init) until pack_untilize_uninit.
// A full init (compute_kernel_hw_startup, ...) configures both afresh.
struct LayoutState {
  enum class Unpack : uint8_t { Tiles, Tilize, Untilize } unpack = Unpack::Tiles;
  bool fast = false;          // tilize mode set by fast_tilize_init
  uint32_t tilize_block = 0;  // tilize_init's block (fast: its full_dim)
  InitSite unpack_site;       // the init that set the unpacker's mode
  bool pack_untilize = false; // the packer is in untilize mode
  uint32_t block_ct_dim = 0, full_ct_dim = 0;
  InitSite pack_site;
};

struct ComputeState {
  alignas(64) float dst[kDstTiles][kTileHW];
  // DST tiles that are logically zero: an acquire marks its section's tiles
  // (no memset); an op that overwrites a whole tile just clears the bit, one
  // that reads or accumulates zeroes the tile first. A set bit also means
  // "not written since the acquire" (reduce MAX starts from the first value).
  uint32_t zero_mask = 0;

  // Inits, with where they were called (for messages).
  bool hw_started = false;
  ComputeOp op = ComputeOp::None; // what the last op init configured
  bool acc_to_dest = false;
  uint32_t op_arg = 0; // Matmul: transpose; Reduce: (pool << 4) | dim; Bcast: (binary op << 4) | bcast
  // The init that last set the unpacker up for eltwise binary (AB, no
  // broadcast); call = nullptr once another op's init reconfigured it.
  InitSite unpack_binary_site;
  const char* op_init_call = nullptr;
  const char* op_init_file = nullptr;
  uint32_t op_init_line = 0;

  // The data formats the unpacker (SrcA, SrcB) and the packer are configured
  // for, by the full inits and the reconfig calls (Invalid: never set).
  DataFormat fmt_a = DataFormat::Invalid, fmt_b = DataFormat::Invalid, fmt_pack = DataFormat::Invalid;
  InitSite fmt_a_site, fmt_b_site, fmt_pack_site;

  // SFPU: the ops the most recent SFPU init configured (one set per arity;
  // an init configures ops of one arity, so two of the sets are empty).
  std::bitset<TESSEL_SFPU_OP_COUNT> sfpu_ops;
  std::bitset<TESSEL_SFPU_BINARY_OP_COUNT> sfpu_binary_ops;
  std::bitset<TESSEL_SFPU_TERNARY_OP_COUNT> sfpu_ternary_ops;
  std::bitset<TESSEL_SFPU_STATE_OP_COUNT> sfpu_state_ops; // the state ops' inits (compute_sfpu_state.cpp)
  InitSite sfpu_site;
  // The EMA's SFPU registers (ema_init, ema_tile), fresh at each launch.
  SfpuEma ema;
  // cumsum_tile's carry registers, fresh at each launch.
  SfpuCumsum cumsum;
  // The SFPU's PRNG. Not reset at a launch: like silicon's, it keeps its
  // state on the core from one program to the next (ttnn's manual_seed seeds
  // it in one program for the next ones).
  SfpuPrng prng;

  // DST protocol.
  bool math_holds = false;
  bool pack_holds = false;
  bool legacy = false;    // the held section came from acquire_dst
  uint32_t committed = 0; // sections committed and not released
  uint32_t acquires = 0;  // sections acquired so far: MATH's is (acquires - 1) % sections
  uint32_t releases = 0;  // sections released so far: PACK's is releases % sections
  const char* acquire_file = nullptr;
  uint32_t acquire_line = 0;

  // pack_reconfig_l1_acc: pack_tile adds to the page it writes.
  bool l1_acc = false;

  // The packer's edits of what it packs (compute_pack_config.cpp): ReLU
  // (enum tessel_pack_relu) and the reduce edge mask (0: none, else 1 +
  // enum tessel_reduce_dim), with the calls that set them.
  struct PackEdits {
    uint8_t relu = TESSEL_PACK_RELU_NONE;
    uint8_t reduce_mask = 0;
    InitSite relu_site, mask_site;
    bool active() const { return relu != TESSEL_PACK_RELU_NONE || reduce_mask != 0; }
  } pack_edits;

  LayoutState layout;

  // Pages packed into each CB since its last cb_push_back.
  uint32_t pack_cursor[TESSEL_MAX_CBS] = {};

  // What guesses the next matmul call's in0 and in1 tile indices
  // (compute_matmul.cpp): the last call's, the step between the last two
  // calls, and the step learned (seen on two calls in a row).
  struct MatmulStride {
    uint32_t last0 = 0, last1 = 0;
    uint32_t seen0 = 0, seen1 = 0;
    uint32_t step0 = 0, step1 = 0;
  } matmul_stride;

  // Welford's running mean and M2 (the SFPU's LREG4/5; compute_welford.cpp).
  WelfordState welford;

  void reset();
};

// Tiles one acquire holds, how many sections DST has, and the first DST
// tile of section number `section` (counted from the launch), for the
// kernel's ComputeConfig (see the layout above).
inline uint32_t dst_capacity(const tessel_kernel_ctx* k) {
  return (k->dst_full_sync_en ? 16u : 8u) >> (k->fp32_dest_acc_en ? 1 : 0);
}
inline uint32_t dst_sections(const tessel_kernel_ctx* k) { return k->dst_full_sync_en ? 1u : 2u; }
inline uint32_t section_base(const tessel_kernel_ctx* k, uint32_t section) {
  return (section % dst_sections(k)) * (kDstTiles / dst_sections(k));
}
// "half-sync with 16-bit DST" and the like, for messages.
std::string dst_mode(const tessel_kernel_ctx* k);

struct Core;
// Called when a compute kernel is launched on `core`: fresh state (the
// compute context's SFPI window included).
void reset_compute(Core& core);

// When a compute kernel returns with DST still held (acquired and not
// released), the message to report and where the section was acquired;
// otherwise an empty string.
std::string dst_left_held(const ComputeState& s, const char** file, uint32_t* line);

// The compute entries of the kernel function table (compute.cpp).
void api_compute_init(tessel_kernel_ctx*, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                      const char* file, uint32_t line);
void api_dst_step(tessel_kernel_ctx*, uint32_t step, const char* file, uint32_t line);
void api_copy_tile(tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, const char* file, uint32_t line);
void api_binary_tiles(tessel_kernel_ctx*, uint32_t op, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1,
                      uint32_t idst, const char* file, uint32_t line);
void api_pack_tile(tessel_kernel_ctx*, uint32_t idst, uint32_t cb, int32_t index, const char* file, uint32_t line);
void api_matmul(tessel_kernel_ctx*, uint32_t cb0, uint32_t cb1, uint32_t i0, uint32_t i1, uint32_t idst,
                uint32_t transpose, uint32_t ct, uint32_t rt, uint32_t kt, const char* file, uint32_t line);
void api_reduce_tile(tessel_kernel_ctx*, uint32_t pool_dim, uint32_t cb, uint32_t cb_scaler, uint32_t itile,
                     uint32_t itile_scaler, uint32_t idst, const char* file, uint32_t line);
void api_transpose_wh_tile(tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, const char* file,
                           uint32_t line);
void api_bcast_tiles(tessel_kernel_ctx*, uint32_t op, uint32_t bcast, uint32_t cb0, uint32_t cb1, uint32_t i0,
                     uint32_t i1, uint32_t idst, const char* file, uint32_t line);
void api_sfpu_unary(tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                    const char* file, uint32_t line);
void api_sfpu_binary(tessel_kernel_ctx*, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file,
                     uint32_t line);
void api_sfpu_ternary(tessel_kernel_ctx*, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst,
                      uint32_t p0, const char* file, uint32_t line);
void api_copy_block(tessel_kernel_ctx*, uint32_t cb, uint32_t itile, uint32_t idst, uint32_t n, const char* file,
                    uint32_t line);
// compute_sfpu_state.cpp: the SFPU ops with state (rand, ema, integer sums).
void api_sfpu_state(tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, const char* file,
                    uint32_t line);
// compute_welford.cpp: Welford's mean and M2 (enum tessel_welford_op).
void api_welford(tessel_kernel_ctx*, uint32_t op, uint32_t idst, uint32_t a, uint32_t b, uint32_t c,
                 const uint32_t* lut, uint32_t lut_size, const char* file, uint32_t line);
const char* welford_op_name(uint32_t op); // welford_update, ... (for traces)
// compute_dest_tiles.cpp: binary_dest_reuse_tiles and unary_bcast.
void api_dest_tiles(tessel_kernel_ctx*, uint32_t kind, uint32_t arg, uint32_t cb, uint32_t itile, uint32_t idst,
                    const char* file, uint32_t line);
// compute_tilize_init.cpp: the layout inits (api_compute_init hands
// TESSEL_INIT_TILIZE..TESSEL_INIT_PACK_UNTILIZE_UNINIT to layout_init);
// compute_tilize.cpp: the layout ops.
bool is_layout_init(uint32_t init);
void layout_init(tessel_kernel_ctx*, uint32_t init, const char* call, uint32_t a, uint32_t b, uint32_t c,
                 const char* file, uint32_t line);
// An init that reconfigures the unpacker (full: and the packer) while a
// layout mode is still set: warns (or, full, just clears the modes).
void note_unpacker_init(tessel_kernel_ctx*, bool full, const char* call, const char* file, uint32_t line);
// pack_tile while the packer is in untilize mode: a warning.
void warn_pack_in_untilize_mode(tessel_kernel_ctx*, uint32_t idst, uint32_t cb, const char* file, uint32_t line);
void api_tilize_block(tessel_kernel_ctx*, uint32_t fast, uint32_t icb, uint32_t block, uint32_t ocb,
                      uint32_t input_tile_index, uint32_t output_tile_index, const char* file, uint32_t line);
void api_untilize_block(tessel_kernel_ctx*, uint32_t icb, uint32_t block_ct_dim, uint32_t full_ct_dim, uint32_t ocb,
                        const char* file, uint32_t line);
void api_pack_untilize(tessel_kernel_ctx*, uint32_t icb, uint32_t ocb, uint32_t block_ct_dim, uint32_t full_ct_dim,
                       uint32_t block_rt_dim, uint32_t block_c_index, uint32_t dst_offset, const char* file,
                       uint32_t line);
// compute_pack_config.cpp: TESSEL_INIT_PACK_RELU and TESSEL_INIT_PACK_REDUCE_MASK;
// the packer's edits applied to a tile about to be packed (src, or `scratch`
// holding the edited copy); and the layout ops' check that none is on.
bool is_pack_config_init(uint32_t init);
void pack_config_init(tessel_kernel_ctx*, uint32_t init, const char* call, uint32_t a, const char* file, uint32_t line);
const float* apply_pack_edits(const ComputeState& s, const float* src, float* scratch);
void check_no_pack_edits(tessel_kernel_ctx*, const char* call, const char* file, uint32_t line);

} // namespace tessel::sim
