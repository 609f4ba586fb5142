// Kernel-side spellings of today's TT-Metalium that kernels use without a
// second thought: tt_l1_ptr, hostdevcommon/common_values.hpp (VALID,
// INVALID), hostdevcommon/kernel_structs.h and the older tt::CB names, the
// free get_noc_addr(page, accessor), and the headers examples include:
// api/debug/device_print.h, api/debug/dprint_tile.h,
// hostdevcommon/dprint_common.h, the host's tt-metalium/constants.hpp, VALID
// from the dataflow API alone.
#include <gtest/gtest.h>

#include <tuple>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

constexpr const char* kSpellings = R"(#include "api/dataflow/dataflow_api.h"
#include "api/numeric/bfloat16.h"
#include "hostdevcommon/common_values.hpp"
#include "hostdevcommon/kernel_structs.h"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  volatile tt_l1_ptr uint32_t* flag = reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(0));
  *flag = VALID;
  const uint32_t packed = (uint32_t(tt::CB::c_in0) << 0) | (uint32_t(tt::CB::c_out0) << 8) |
                          (uint32_t(tt::CB::c_intermed7) << 16) | (uint32_t(tt::CBIndex::c_63) << 24);
  noc_inline_dw_write(get_noc_addr(x, y, at), packed);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), *flag + INVALID);
  // The free get_noc_addr of a TensorAccessor and of an address generator.
  constexpr auto args = TensorAccessorArgs<0>();
  const auto accessor = TensorAccessor(args, get_arg_val<uint32_t>(3), 1024);
  const InterleavedAddrGen<true> gen = {get_arg_val<uint32_t>(3), 1024};
  const uint64_t a = get_noc_addr(5, accessor, 16), b = get_noc_addr(5, gen, 16), c = accessor.get_noc_addr(5, 16);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), uint32_t(a == c) + 2 * uint32_t(b == c));
  // bfloat16_greater on 2 > 1, -1 > -2, 1 > -1, +inf > 3e38, -inf > -1, -1 > 1.
  const uint32_t greater = uint32_t(bfloat16_greater(0x4000, 0x3F80)) | uint32_t(bfloat16_greater(0xBF80, 0xC000)) << 1 |
                           uint32_t(bfloat16_greater(0x3F80, 0xBF80)) << 2 |
                           uint32_t(bfloat16_greater(POS_INF_BFLOAT16, 0x7F61)) << 3 |
                           uint32_t(bfloat16_greater(NEG_INF_BFLOAT16, 0xBF80)) << 4 |
                           uint32_t(bfloat16_greater(0xBF80, 0x3F80)) << 5;
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), greater);
}
)";

// Runs `source` (named `name`) on BRISC of core (0,0), its arguments the
// recorder's NoC coordinates and address.
void run_recorded(const std::shared_ptr<Device>& device, Recorder& rec, const char* source, const char* name) {
  Program p;
  KernelHandle k = p.add_kernel_from_source(source, name, CoreCoord{0, 0},
                                            DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(p);
}

TEST(KernelSpellingsTest, MetaliumKernelSpellingsCompileAndMeanWhatTheyMeanThere) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  p.add_semaphore(CoreCoord{0, 0}, 0);
  auto dram = Buffer::create(device, {8 * 1024, 1024, BufferType::DRAM});
  std::vector<uint32_t> cta;
  TensorAccessorArgs(*dram).append_to(cta);
  KernelHandle k =
      p.add_kernel_from_source(kSpellings, "spellings.cpp", CoreCoord{0, 0},
                               DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default, cta});
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address(), dram->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), (0u << 0) | (16u << 8) | (31u << 16) | (63u << 24));
  EXPECT_EQ(rec.at(1), 1u);
  EXPECT_EQ(rec.at(2), 3u) << "the free get_noc_addr forms give the member's address";
  EXPECT_EQ(rec.at(3), 0b001111u) << "bfloat16_greater orders the values the bits encode";
}

// Headers Metalium's examples reach for: DEVICE_PRINT's own header, the host
// tt-metalium/constants.hpp, and VALID / INVALID from the dataflow API alone.
constexpr const char* kExampleHeaders = R"(#include "api/debug/device_print.h"
#include "api/debug/dprint_tile.h"
#include "api/dataflow/dataflow_api.h"
#include "hostdevcommon/dprint_common.h"
#include "tt-metalium/constants.hpp"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  DEVICE_PRINT("tile of {} values\n", tt::constants::TILE_HW);
  constexpr SliceRange column = SliceRange::h0_32_w0();
  static_assert(column.h1 == 32 && column.w1 == 1);
  noc_inline_dw_write(get_noc_addr(x, y, at), VALID * 100 + INVALID);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4),
                      tt::constants::TILE_HW + tt::constants::FACE_HW + tt::constants::BFLOAT8_B_TILE_HW);
}
)";

TEST(KernelSpellingsTest, HeadersMetaliumExamplesIncludeInKernelsCompile) {
  auto device = open_device();
  Recorder rec(device);
  run_recorded(device, rec, kExampleHeaders, "example_headers.cpp");
  EXPECT_EQ(rec.at(0), 100u);
  EXPECT_EQ(rec.at(1), 1024u + 256u + 1088u);
}

// ckernel.h from a data-movement kernel, as ttnn's data-movement helpers
// include it for ckernel::load_blocking (the SFPI layer stays compute-only);
// with the host's tt-metalium/buffer_types.hpp enums and api/debug/assert.h,
// which ttnn's kernels include too.
constexpr const char* kLoadBlocking = R"(#include "api/dataflow/dataflow_api.h"
#include "api/debug/assert.h"
#include "ckernel.h"
#include "tt-metalium/buffer_types.hpp"

void kernel_main() {
  static_assert(uint32_t(tt::tt_metal::TensorMemoryLayout::BLOCK_SHARDED) == 4);
  // The address generator with Metalium's tile_hw argument, as ccl's sharding helpers name it.
  const InterleavedAddrGenFast<true, 1024> tiles = {.bank_base_address = 0, .page_size = 2048,
                                                    .data_format = DataFormat::Float16_b};
  static_assert(sizeof(tiles) > 0);
  static_assert(has_page_size_v<decltype(tiles)> && !has_log_base_2_of_page_size_v<decltype(tiles)>);
  static_assert(!has_get_aligned_page_size_v<decltype(tiles)>);
  ASSERT(get_arg_val<uint32_t>(0) != 0xFFFFFFFFu);
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  volatile uint32_t word = 0x5A5Au;
  volatile uint16_t half = 0x1234u;
  noc_inline_dw_write(get_noc_addr(x, y, at), ckernel::load_blocking(&word) + ckernel::load_blocking(&half));
}
)";

TEST(KernelSpellingsTest, DataMovementKernelsIncludeCkernelForLoadBlocking) {
  auto device = open_device();
  Recorder rec(device);
  run_recorded(device, rec, kLoadBlocking, "load_blocking.cpp");
  EXPECT_EQ(rec.at(0), 0x5A5Au + 0x1234u);
}

// A kernel that names ARCH_* or the NoC alignment macros is built for the
// device's arch, as Metalium builds one per arch: ARCH_BLACKHOLE or
// ARCH_WORMHOLE, and that arch's alignments as plain numbers (usable in #if).
constexpr const char* kArch = R"(#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
#if defined(ARCH_BLACKHOLE) && !defined(ARCH_WORMHOLE)
  constexpr uint32_t arch = 1;
#elif defined(ARCH_WORMHOLE)
  constexpr uint32_t arch = 2;
#else
  constexpr uint32_t arch = 0;
#endif
#if DRAM_ALIGNMENT > NOC_L1_READ_ALIGNMENT_BYTES
  static_assert(DRAM_ALIGNMENT % L1_ALIGNMENT == 0);
#endif
  noc_inline_dw_write(get_noc_addr(x, y, at), arch);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), DRAM_ALIGNMENT);
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), NOC_DRAM_WRITE_ALIGNMENT_BYTES);
}
)";

TEST(KernelSpellingsTest, KernelsNamingTheArchAreBuiltForTheDevicesArch) {
  for (const auto& [arch, code, dram] : {std::tuple{"blackhole", 1u, 64u}, std::tuple{"wormhole_b0", 2u, 32u}}) {
    SCOPED_TRACE(arch);
    auto device = open_device(arch);
    Recorder rec(device);
    run_recorded(device, rec, kArch, "arch.cpp");
    EXPECT_EQ(rec.at(0), code);
    EXPECT_EQ(rec.at(1), dram) << "DRAM_ALIGNMENT";
    EXPECT_EQ(rec.at(2), 16u) << "NOC_DRAM_WRITE_ALIGNMENT_BYTES";
  }
}

// api/numeric/bfloat16.h's conversions: bf16_to_fp32 is exact,
// fp32_to_bf16 rounds to nearest with ties to even (as the packer does),
// fp32_to_bf16_truncate drops the low half.
constexpr const char* kBf16 = R"(#include "api/dataflow/dataflow_api.h"
#include "api/numeric/bfloat16.h"

void kernel_main() {
  const uint32_t x = get_arg_val<uint32_t>(0), y = get_arg_val<uint32_t>(1), at = get_arg_val<uint32_t>(2);
  float widened = bf16_to_fp32(0xC0A0); // -5
  uint32_t bits;
  __builtin_memcpy(&bits, &widened, 4);
  noc_inline_dw_write(get_noc_addr(x, y, at), bits);
  noc_inline_dw_write(get_noc_addr(x, y, at + 4), fp32_to_bf16(1.0f + 0x1p-8f));            // a tie: to even, 0x3F80
  noc_inline_dw_write(get_noc_addr(x, y, at + 8), fp32_to_bf16(1.0f + 3 * 0x1p-9f));        // above half: 0x3F81
  noc_inline_dw_write(get_noc_addr(x, y, at + 12), fp32_to_bf16_truncate(1.0f + 3 * 0x1p-9f)); // 0x3F80
}
)";

TEST(KernelSpellingsTest, Bfloat16ConversionsRoundAsThePackerDoes) {
  auto device = open_device();
  Recorder rec(device);
  run_recorded(device, rec, kBf16, "bf16.cpp");
  EXPECT_EQ(rec.at(0), 0xC0A00000u);
  EXPECT_EQ(rec.at(1), 0x3F80u);
  EXPECT_EQ(rec.at(2), 0x3F81u);
  EXPECT_EQ(rec.at(3), 0x3F80u);
}

// get_tile_size(cb) in a constant expression, as Metalium kernels write it.
constexpr const char* kConstantTileSize = R"(#include <cstdint>
void kernel_main() {
  constexpr uint32_t in_size = get_tile_size(tt::CBIndex::c_0);
  constexpr uint32_t out_size = get_tile_size(tt::CBIndex::c_16);
  static_assert(in_size > 0 && out_size > 0);
  noc_inline_dw_write(get_noc_addr(get_arg_val<uint32_t>(0), get_arg_val<uint32_t>(1), get_arg_val<uint32_t>(2)),
                      in_size * 10000 + out_size);
}
)";

TEST(KernelSpellingsTest, GetTileSizeIsAConstantExpressionForCbsConfiguredAlikeOnTheKernelsCores) {
  auto device = open_device();
  Recorder rec(device);
  Program p;
  CircularBufferConfig in(2 * 2048, {{0, DataFormat::Float16_b}}), out(2 * 4096, {{16, DataFormat::Float32}});
  in.set_page_size(0, 2048);
  out.set_page_size(16, 4096);
  p.add_circular_buffer(CoreRange({0, 0}, {1, 0}), in);
  p.add_circular_buffer(CoreCoord{0, 0}, out);
  KernelHandle k = p.add_kernel_from_source(kConstantTileSize, "constant_tile_size.cpp", CoreCoord{0, 0},
                                            DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
  p.set_runtime_args(k, CoreCoord{0, 0}, {rec.noc.x, rec.noc.y, rec.buffer->address()});
  device->command_queue().enqueue_program(p);
  EXPECT_EQ(rec.at(0), 2048u * 10000 + 4096u);

  // On two cores where CB 16 exists on one only, the constant does not exist.
  Program two;
  two.add_circular_buffer(CoreRange({0, 0}, {1, 0}), in);
  two.add_circular_buffer(CoreCoord{0, 0}, out);
  two.add_kernel_from_source(kConstantTileSize, "constant_tile_size.cpp", CoreRange({0, 0}, {1, 0}),
                             DataMovementConfig{DataMovementProcessor::RISCV_0, NOC::RISCV_0_default});
  const std::string error = error_of<ProgramError>(device->command_queue(), two);
  EXPECT_NE(error.find("error_cb_not_configured_alike_on_the_kernels_cores"), std::string::npos) << error;
  expect_device_works(device);
}

} // namespace
} // namespace tessel::test
