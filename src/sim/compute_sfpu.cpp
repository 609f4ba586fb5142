// SFPU ops on DST tiles (sfpu_unary, sfpu_binary, sfpu_ternary; the math is
// in sfpu.cpp and its family files):
// the op must be configured by its init, its DST tiles held by MATH; the
// result is rounded to bfloat16 precision unless fp32_dest_acc_en.
#include <string>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"
#include "sim/sfpu.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

// An SFPU op whose init was not called.
// `init` is the init that configures it.
[[noreturn]] TESSEL_COLD void sfpu_not_configured(tessel_kernel_ctx* k, const CallText& what, const char* name,
                                                  const char* init, const ComputeState& s, const char* file,
                                                  uint32_t line) {
  std::string msg = text(what) + ": the SFPU is not configured for " + name + ": call " + init + "() first" +
                    (s.sfpu_site.call ? std::string(" (the last SFPU init was ") + s.sfpu_site.call + " at " +
                                            site(s.sfpu_site.file, s.sfpu_site.line) + ")"
                                      : std::string(" (no SFPU init was called in this kernel)"));
  fail(k, std::move(msg), file, line);
}

} // namespace

void api_sfpu_unary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst, uint32_t p0, uint32_t p1, uint32_t approx,
                    const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU op", file, line);
  const CallText what{CallText::Sfpu, op, {idst}};
  check_compute(k, op < TESSEL_SFPU_OP_COUNT ? sfpu_name(op) : "SFPU op", file, line);
  ComputeState& s = state_of(k);
  if (__builtin_expect(op >= TESSEL_SFPU_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!s.sfpu_ops.test(op), 0))
    sfpu_not_configured(k, what, sfpu_name(op), sfpu_init_name(op), s, file, line);
  float* d = math_dst(k, what, idst, file, line, Access::Update);
  sfpu_unary(op, d, SfpuParams{p0, p1, approx != 0});
  if (!k->fp32_dest_acc_en) round_in_place(d);
}

void api_sfpu_binary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t odst, const char* file,
                     uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU binary op", file, line);
  const CallText what{CallText::SfpuBinary, op, {idst0, idst1, odst}};
  check_compute(k, op < TESSEL_SFPU_BINARY_OP_COUNT ? sfpu_binary_name(op) : "SFPU op", file, line);
  ComputeState& s = state_of(k);
  if (__builtin_expect(op >= TESSEL_SFPU_BINARY_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU binary op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!s.sfpu_binary_ops.test(op), 0))
    sfpu_not_configured(k, what, sfpu_binary_name(op), sfpu_binary_init_name(op), s, file, line);
  const float* a = math_dst(k, what, idst0, file, line, Access::Update);
  const float* b = math_dst(k, what, idst1, file, line, Access::Update);
  float* out = math_dst(k, what, odst, file, line, Access::Update);
  sfpu_binary(op, a, b, out);
  if (!k->fp32_dest_acc_en) round_in_place(out);
}

void api_sfpu_ternary(tessel_kernel_ctx* k, uint32_t op, uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst,
                      uint32_t p0, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "an SFPU ternary op", file, line);
  const CallText what{CallText::SfpuTernary, op, {idst0, idst1, idst2, odst}};
  check_compute(k, op < TESSEL_SFPU_TERNARY_OP_COUNT ? sfpu_ternary_name(op) : "SFPU op", file, line);
  ComputeState& s = state_of(k);
  if (__builtin_expect(op >= TESSEL_SFPU_TERNARY_OP_COUNT, 0)) {
    std::string msg = "unknown SFPU ternary op " + num(op);
    fail(k, std::move(msg), file, line);
  }
  if (__builtin_expect(!s.sfpu_ternary_ops.test(op), 0))
    sfpu_not_configured(k, what, sfpu_ternary_name(op), sfpu_ternary_init_name(op), s, file, line);
  // mac_tile's init records its SFPU program with the tiles fixed: silicon
  // reads DST tiles 0, 1, 2 and writes tile 0 whatever the call names.
  if (op == TESSEL_SFPU_TERNARY_MAC && (idst0 != 0 || idst1 != 1 || idst2 != 2 || odst != 0)) {
    core_of(k).chip->warn(fiber_of(k),
                          text(what) +
                              ": silicon's mac_tile reads DST tiles 0, 1, 2 and writes tile 0 whatever the indices "
                              "say (its init records them fixed); pass (0, 1, 2, 0)",
                          file, line);
    idst0 = 0, idst1 = 1, idst2 = 2, odst = 0;
  }
  const float* a = math_dst(k, what, idst0, file, line, Access::Update);
  const float* b = math_dst(k, what, idst1, file, line, Access::Update);
  const float* c = math_dst(k, what, idst2, file, line, Access::Update);
  float* out = math_dst(k, what, odst, file, line, Access::Update);
  sfpu_ternary(op, a, b, c, out, p0);
  if (!k->fp32_dest_acc_en) round_in_place(out);
}

} // namespace tessel::sim
