// DPRINT of values as Metalium prints them: BF16, bf16_t, F32, U32 in both
// forms, and TileSlice of CB pages in Float16_b, Float32 and Bfp8_b (rows,
// untilized or memory order, precision, truncation at the print buffer's
// size), from a data-movement kernel and from each compute thread.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ops_kernel.hpp"

namespace tessel::test {
namespace {

// BRISC fills one page of CB 0 (Float16_b: memory index i holds (i / 4) / 4),
// CB 1 (Float32: i + 0.125) and CB 2 (Bfp8_b: exponents 127, mantissa of
// row r, column c of face 0 = (c % 4 + 1) / 4, negative in odd rows), prints,
// and pushes CB 0 to the compute kernel.
constexpr const char* kPrinterName = "printer.cpp";
constexpr const char* kPrinterSource = R"KERNEL(#include "api/debug/dprint.h"
void kernel_main() {
  cb_reserve_back(0, 1);
  cb_reserve_back(1, 1);
  cb_reserve_back(2, 1);
  volatile uint16_t* bf = (volatile uint16_t*)get_write_ptr(0);
  volatile float* f32 = (volatile float*)get_write_ptr(1);
  volatile uint8_t* bfp = (volatile uint8_t*)get_write_ptr(2);
  for (uint32_t i = 0; i < 1024; ++i) {
    const float v = float(i >> 2) / 4;
    uint32_t bits;
    __builtin_memcpy(&bits, &v, 4);
    bf[i] = uint16_t(bits >> 16);
    f32[i] = float(i) + 0.125f;
    bfp[64 + i] = uint8_t((i % 4 + 1) * 0x10) | ((i / 16) % 2 ? 0x80 : 0);
  }
  for (uint32_t e = 0; e < 64; ++e) bfp[e] = 127;
  if (get_arg_val<uint32_t>(0) == 1)
    DPRINT << TileSlice(0, 0, SliceRange{0, 32, 0, 0, 32, 1}, TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL(); // @bad_range
  DPRINT << "bf16 " << TileSlice(0, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL();
  DPRINT << TileSlice(0, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR, true, false) << ENDL();
  DPRINT << TileSlice(0, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR, false) << " end" << ENDL();
  DPRINT << SETPRECISION(3) << TileSlice(1, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL();
  DPRINT << TileSlice(1, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL();
  DPRINT << TileSlice(1, 0, SliceRange::h0_w0_32(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL();
  DPRINT << TileSlice(2, 0, SliceRange::hw041(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR) << ENDL();
  DPRINT("fn {}", TileSlice(0, 0, SliceRange::hw0_32_16(), TSLICE_OUTPUT_CB, TSLICE_WR_PTR));
  DPRINT << BF16(0x3dfb) << ' ' << bf16_t(0x3f80) << ' ' << F32(2.5f) << ' ' << U32(7) << ' ' << HEX() << 255u
         << ENDL();
  DPRINT("{} {}\n", bf16_t(0xc040), F32(0.25f));
  cb_push_back(0, 1);
}
)KERNEL";

// The compute kernel prints CB 0's first page from every thread.
constexpr const char* kSlicerSource = R"KERNEL(#include "api/debug/dprint.h"
void kernel_main() {
  cb_wait_front(0, 1);
  DPRINT << TSLICE(0, 0, SliceRange::hw0_32_16()) << ENDL();
  DPRINT_UNPACK(DPRINT << "u " << TileSlice(0, 0, SliceRange::h0_32_w0(), false) << ENDL());
  cb_pop_front(0, 1);
}
)KERNEL";

class DprintValuesTest : public testing::Test {
protected:
  void SetUp() override {
    setenv("TESSEL_DPRINT_CORES", "0,0", 1);
    device_ = open_device("blackhole", 1, 1);
    unsetenv("TESSEL_DPRINT_CORES");
  }

  Program build(uint32_t mode) {
    Program p;
    const CoreCoord core{0, 0};
    const DataFormat formats[] = {DataFormat::Float16_b, DataFormat::Float32, DataFormat::Bfp8_b};
    for (uint8_t cb = 0; cb < 3; ++cb)
      p.add_circular_buffer(
          core,
          CircularBufferConfig(tile_size(formats[cb]), {{cb, formats[cb]}}).set_page_size(cb, tile_size(formats[cb])));
    KernelHandle printer = p.add_kernel_from_source(kPrinterSource, kPrinterName, core, DataMovementConfig{});
    p.set_runtime_args(printer, core, {mode});
    if (mode == 0) p.add_kernel_from_source(kSlicerSource, "slicer.cpp", core, ComputeConfig{});
    return p;
  }

  std::shared_ptr<Device> device_;
};

TEST_F(DprintValuesTest, SlicesAndValuesPrintAsMetaliumPrintsThem) {
  Program p = build(0);
  testing::internal::CaptureStdout();
  device_->command_queue().enqueue_program(p);
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string br = "0:(x=0,y=0):BR: ";
  std::string row0_f32;
  for (int w = 0; w < 16; ++w)
    row0_f32 += std::to_string(w) + ".125 ";
  const std::string mover = br + "bf16 0 16\n32 48\n" +               // untilized: faces 0..3 at [0:32:16, 0:32:16]
                            br + "0 1\n32 33\n" +                     // memory order: indices 0, 16, 512, 528
                            br + "0 1632 48 end\n" +                  // no row breaks
                            br + "0.125 256\n512 768\n" +             // SETPRECISION(3)
                            br + "0.125 256.125\n512.125 768.125\n" + //
                            br + row0_f32 + "<TileSlice data truncated due to exceeding max count (16)>\n" + br +
                            "0.25 0.5 0.75 1\n-0.25 -0.5 -0.75 -1\n0.25 0.5 0.75 1\n-0.25 -0.5 -0.75 -1\n" + br +
                            "fn 0 16\n32 48\n" + br + "0.122559 1 2.5 7 ff\n" + br + "-3 0.25\n";
  EXPECT_NE(out.find(mover), std::string::npos) << out;
  const auto tr = [](int t) { return "0:(x=0,y=0):TR" + std::to_string(t) + ": "; };
  std::string column0 = "u "; // [0:32, 0] without row breaks: the values run together
  for (int h = 0; h < 32; ++h)
    column0 += std::to_string(h < 16 ? h : 32 + (h - 16));
  const std::string compute = tr(0) + "0 16\n32 48\n" + tr(1) +
                              "Warning: MATH core does not support TileSlice printing, omitting print...\n" + tr(2) +
                              "0 16\n32 48\n" + tr(0) + column0 + "\n";
  EXPECT_NE(out.find(compute), std::string::npos) << out;
}

TEST_F(DprintValuesTest, SliceRangeWithoutStepFailsAtItsLine) {
  Program p = build(1);
  EXPECT_EQ(error_of<KernelError>(device_->command_queue(), p),
            std::string(kPrinterName) + ":" + std::to_string(marker_line(kPrinterSource, "bad_range")) +
                ": core (0,0) BRISC: TileSlice(cb=0): SliceRange [0:32:0, 0:32:1] must have steps hs, ws >= 1 and "
                "stay within the 32x32 tile (h1, w1 <= 32)");
}

} // namespace
} // namespace tessel::test
