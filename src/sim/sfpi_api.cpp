// SFPI windows onto DST (sfpi_api.hpp).
//
// Contract. While MATH holds a section, an SFPU LLK call opens a window:
// `section` points at the section's first float and `ready_mask` has a bit
// for every tile kernel code may touch directly. A tile is ready once it has
// been written since the acquire (its zero bit in ComputeState::zero_mask is
// clear); a tile still logically zero is zeroed in memory and its bit
// cleared the first time the window reaches it (named by the call, or by a
// dst_reg row through sfpi_reach), exactly as an FPU op's Update access does.
// So dst_reg never sees stale data and never makes an untouched tile count
// as written. The window closes (section = NULL, ready_mask = 0) when the
// call returns; a dst_reg use outside a window reaches sfpi_reach and fails.
#include "sim/sfpi_api.hpp"

#include <cstring>
#include <string>

#include "sim/compute.hpp"
#include "sim/kernel_api_support.hpp"

namespace tessel::sim {

namespace {

constexpr uint32_t kRowsPerTile = 64; // DST rows of 16 floats per 32x32 tile

std::string num(uint64_t v) { return std::to_string(v); }

// Zeroes tile `t` of the held section if it is still logically zero, and
// marks it ready in the window.
void make_ready(tessel_kernel_ctx* k, ComputeState& s, uint32_t t) {
  const uint32_t tile = section_base(k, s.acquires - 1) + t;
  const uint32_t bit = 1u << tile;
  if (s.zero_mask & bit) {
    std::memset(s.dst[tile], 0, sizeof s.dst[tile]);
    s.zero_mask &= ~bit;
  }
  k->sfpi.ready_mask |= 1u << t;
}

[[noreturn]] TESSEL_COLD void fail_at_pc(tessel_kernel_ctx* k, std::string msg, uintptr_t caller_pc) {
  Chip& chip = *core_of(k).chip;
  std::string report = chip.where_at(fiber_of(k), caller_pc) + msg;
  std::string().swap(msg);
  chip.fail_report(fiber_of(k), std::move(report), false);
}

} // namespace

void api_sfpi_open(tessel_kernel_ctx* k, const char* call, uint32_t tile_mask, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  if (__builtin_expect(k->risc != TESSEL_RISC_COMPUTE, 0)) {
    std::string msg = std::string(call) + " is an SFPU call, but this kernel runs on " + Chip::risc_name(k->risc) +
                      " (SFPI runs in compute kernels: create the kernel with a ComputeConfig)";
    fail(k, std::move(msg), file, line);
  }
  ComputeState& s = *core_of(k).compute;
  if (__builtin_expect(!s.math_holds, 0)) {
    std::string msg = std::string(call) +
                      ": MATH does not hold DST: call tile_regs_acquire (or acquire_dst) before an SFPU call reads or "
                      "writes DST through dst_reg" +
                      (s.committed ? " (the last section was already handed to PACK with tile_regs_commit)" : "");
    fail(k, std::move(msg), file, line);
  }
  const uint32_t capacity = dst_capacity(k);
  if (__builtin_expect((tile_mask >> capacity) != 0, 0)) {
    const uint32_t bad = 31u - uint32_t(__builtin_clz(tile_mask));
    std::string msg = std::string(call) + ": DST index " + num(bad) + " is out of range: one acquire holds " +
                      num(capacity) + " tiles in " + dst_mode(k) + " mode (indices 0.." + num(capacity - 1) +
                      "; half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
    fail(k, std::move(msg), file, line);
  }
  tessel_sfpi_window& w = k->sfpi;
  const uint32_t base = section_base(k, s.acquires - 1);
  w.section = s.dst[base];
  // Tiles written since the acquire are ready as they are.
  const uint32_t written = ~(s.zero_mask >> base) & ((1u << capacity) - 1u);
  w.ready_mask = written;
  for (uint32_t m = tile_mask; m != 0; m &= m - 1)
    make_ready(k, s, uint32_t(__builtin_ctz(m)));
  w.row = w.face_row = 0;
  w.lanes = ~0u;
  w.dst_32bit = k->fp32_dest_acc_en ? 1u : 0u;
  w.call = call;
  w.file = file;
  w.line = line;
}

void api_sfpi_reach(tessel_kernel_ctx* k, int32_t row, uintptr_t caller_pc) {
  tessel_sfpi_window& w = k->sfpi;
  if (__builtin_expect(w.section == nullptr, 0)) {
    std::string msg =
        "dst_reg used outside an SFPU LLK call: SFPI code reaches DST only inside "
        "_llk_math_eltwise_unary_sfpu_params_, _llk_math_eltwise_binary_sfpu_params_ (or the SFPU_*_CALL macros), "
        "or between _llk_math_eltwise_*_sfpu_start_ and _done_, while MATH holds DST (after tile_regs_acquire)";
    fail_at_pc(k, std::move(msg), caller_pc);
  }
  const uint32_t capacity = dst_capacity(k);
  if (__builtin_expect(row < 0 || uint32_t(row) >= capacity * kRowsPerTile, 0)) {
    std::string msg = std::string("dst_reg in ") + w.call + " reaches DST row " + std::to_string(row) +
                      " of the section (tile " + std::to_string(row < 0 ? -1 : row / int32_t(kRowsPerTile)) +
                      "), outside the " + num(capacity) + " tiles one acquire holds in " + dst_mode(k) +
                      " mode (rows 0.." + num(capacity * kRowsPerTile - 1) + ", 64 per tile; dst_reg[i] is row 2*i " +
                      "from the call's tile, and each face adds 16)";
    fail(k, std::move(msg), w.file, w.line);
  }
  make_ready(k, *core_of(k).compute, uint32_t(row) / kRowsPerTile);
}

} // namespace tessel::sim
