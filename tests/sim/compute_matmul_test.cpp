// The matmul data path bit for bit: matmul_tiles and matmul_block (with and
// without transpose, accumulating into DST over several calls and on top of
// tiles reloaded with copy_tile / copy_block_matmul_partials) for every input
// format (Float16_b, Float32, Bfp8_b, Bfp4_b, and mixed pairs), every
// MathFidelity and both DST widths, against a reference model written here
// from docs/numerics.md:
//
//   - an operand is unpacked to float and placed in a source register
//     (Float32 keeps its leading 10 explicit mantissa bits); in1 goes to SrcA
//     (transposed within the tile when asked), in0 to SrcB;
//   - the multiplier sees hi(SrcA) = 4 explicit bits, hi(SrcB) = 6, lo() =
//     the rest: LoFi hi(A) hi(B); HiFi2 A hi(B); HiFi3 A hi(B) then
//     hi(A) lo(B); HiFi4 A B;
//   - each DST element accumulates its products in k order with fused
//     multiply-adds, starting from its value (zero after an acquire), all
//     passes of a call in one running sum, rounded to bfloat16 once per call
//     unless fp32_dest_acc_en.
//
// Every packed output is compared with the model's as bits (the output CB is
// Float32, so packing adds nothing), and a digest of every output is compared
// with the one the engine produced when this test was written.
#include "compute_harness.hpp"

#include <bit>
#include <cmath>

namespace tessel::test {
namespace {

using Tile = std::vector<float>; // kTileHW floats in tile order

size_t idx(uint32_t r, uint32_t c) { return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16; }
float keep(float x, int bits) { return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & ~((1u << (23 - bits)) - 1u)); }
float to_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

// The model of one compute kernel's DST and the matmul / copy steps it runs.
struct Model {
  std::vector<Tile> in0, in1; // the CBs' tiles as source registers hold them
  DataFormat in1_format;
  bool fp32;
  uint32_t fidelity;
  bool transpose = false;
  std::vector<Tile> dst = std::vector<Tile>(16, Tile(kTileHW, 0.0f));
  std::vector<float> out;

  void matmul(uint32_t t0, uint32_t t1, uint32_t d) {
    const Tile &a = in0[t0], &b = in1[t1];
    Tile& c = dst[d];
    for (uint32_t i = 0; i < 32; ++i)
      for (uint32_t j = 0; j < 32; ++j) {
        float acc = c[idx(i, j)];
        auto srcb = [&](uint32_t k) { return a[idx(i, k)]; };                            // in0
        auto srca = [&](uint32_t k) { return transpose ? b[idx(j, k)] : b[idx(k, j)]; }; // in1
        for (uint32_t k = 0; k < 32; ++k) {
          const float x = fidelity == 4 ? srcb(k) : keep(srcb(k), 6);
          const float y = fidelity == 0 ? keep(srca(k), 4) : srca(k);
          acc = std::fma(x, y, acc);
        }
        if (fidelity == 3)
          for (uint32_t k = 0; k < 32; ++k)
            acc = std::fma(srcb(k) - keep(srcb(k), 6), keep(srca(k), 4), acc);
        c[idx(i, j)] = fp32 ? acc : to_bf16(acc);
      }
  }
  void copy(uint32_t t1, uint32_t d) {
    for (uint32_t i = 0; i < kTileHW; ++i)
      dst[d][i] = !fp32 && in1_format == DataFormat::Float32 ? to_bf16(in1[t1][i]) : in1[t1][i];
  }
  // Runs the steps the compute kernel runs (the ones that touch DST).
  void run(const Steps& steps) {
    const std::vector<uint32_t>& w = steps.words;
    for (size_t s = 0; s < w.size(); s += 6) {
      const uint32_t a = w[s + 1], b = w[s + 2], c = w[s + 3], d = w[s + 4], e = w[s + 5];
      switch (w[s]) {
      case kMmInit: transpose = d != 0; break;
      case kMmInitShort: transpose = c != 0; break;
      case kAcquire:
        for (Tile& t : dst)
          std::fill(t.begin(), t.end(), 0.0f);
        break;
      case kCopy: copy(b, c); break;
      case kCopyBlock:
        for (uint32_t i = 0; i < d; ++i)
          copy(b + i, c + i);
        break;
      case kMatmul:
      case kMatmulT: matmul(c, d, e); break;
      case kMatmulBlock:
      case kMatmulBlockT: {
        const uint32_t ct = e >> 16, rt = (e >> 8) & 255, kt = e & 255;
        for (uint32_t r = 0; r < rt; ++r)
          for (uint32_t col = 0; col < ct; ++col)
            matmul(b + r * kt, c + col, d + r * ct + col);
        break;
      }
      case kPack: out.insert(out.end(), dst[a].begin(), dst[a].end()); break;
      default: break;
      }
    }
  }
};

// Random values sign * (1 + u) * 2^e, e in [-exp_range, exp_range], about
// one in sixteen zero, scaled by 2^shift; full float mantissas (each format
// keeps what it can).
std::vector<float> random_values(uint32_t tiles, uint64_t seed, int exp_range, int shift) {
  std::vector<float> v(size_t(tiles) * kTileHW);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 7;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 32);
  };
  for (float& x : v) {
    const uint32_t r = next();
    if ((r & 15) == 0) {
      x = 0.0f;
      continue;
    }
    const int e = int((r >> 4) % uint32_t(2 * exp_range + 1)) - exp_range + shift;
    const float m = 1.0f + float(next() >> 8) / float(1u << 24);
    x = std::ldexp((r >> 31) ? -m : m, e);
  }
  return v;
}

// The tiles of `values` as a CB of `format` delivers them to a source register.
std::vector<Tile> as_source(const std::vector<float>& values, DataFormat format) {
  const std::vector<float> unpacked = unpack_tiles(pack_tiles(values, format), format);
  std::vector<Tile> tiles(unpacked.size() / kTileHW);
  for (size_t t = 0; t < tiles.size(); ++t) {
    tiles[t].assign(unpacked.begin() + t * kTileHW, unpacked.begin() + (t + 1) * kTileHW);
    if (format == DataFormat::Float32)
      for (float& x : tiles[t])
        x = keep(x, 10);
  }
  return tiles;
}

uint32_t block_word(uint32_t ct, uint32_t rt, uint32_t kt) { return (ct << 16) | (rt << 8) | kt; }

Steps& pack_section(Steps& s, uint32_t n) {
  s.op(kCommit).op(kWaitDst).op(kCbReserve, kOut, n);
  for (uint32_t i = 0; i < n; ++i)
    s.op(kPack, i, kOut);
  return s.op(kCbPush, kOut, n).op(kRelease);
}

// Four DST sections of 8 tiles (full-sync, so 8 fit with fp32_dest_acc_en),
// in two programs (a kernel takes at most 56 steps):
//  1. copy_tile reload, three matmul_tiles accumulating into it, one fresh
//     matmul_tiles, a 2 x 3 matmul_block over kt = 2;
//  2. copy_block_matmul_partials reload, then a 4 x 2 block twice;
//  3. a 1 x 8 block; 4. an 8 x 1 block over kt = 1, twice.
std::vector<Steps> program_steps(bool transpose, uint32_t tiles) {
  const uint32_t mm = transpose ? kMatmulT : kMatmul, mb = transpose ? kMatmulBlockT : kMatmulBlock;
  const uint32_t cbs = (kIn0 << 8) | kIn1;
  std::vector<Steps> programs(2);
  for (Steps& s : programs)
    s.op(kMmInit, kIn0, kIn1, kOut, transpose).op(kCbWait, kIn0, tiles).op(kCbWait, kIn1, tiles);
  Steps& s = programs[0];
  s.op(kAcquire).op(kCopyInitShort, kIn1).op(kCopy, kIn1, 5, 0).op(kMmInitShort, kIn0, kIn1, transpose);
  for (uint32_t k = 0; k < 3; ++k)
    s.op(mm, kIn0, kIn1, k, k + 1, 0);
  s.op(mm, kIn0, kIn1, 3, 6, 1);
  for (uint32_t k = 0; k < 2; ++k)
    s.op(mb, cbs, k, 3 * k, 2, block_word(3, 2, 2));
  pack_section(s, 8);
  s.op(kAcquire).op(kCopyInitShort, kIn1).op(kCopyBlock, kIn1, 2, 0, 2).op(kMmInitShort, kIn0, kIn1, transpose);
  s.op(mb, cbs, 4, 6, 0, block_word(2, 4, 1)).op(mb, cbs, 0, 0, 0, block_word(2, 4, 1));
  pack_section(s, 8);
  Steps& t = programs[1];
  t.op(kAcquire).op(mb, cbs, 7, 0, 0, block_word(8, 1, 1));
  pack_section(t, 8);
  t.op(kAcquire).op(mb, cbs, 0, 3, 0, block_word(1, 8, 1)).op(mb, cbs, 0, 4, 0, block_word(1, 8, 1));
  pack_section(t, 8);
  return programs;
}

struct Combo {
  DataFormat in0, in1;
  // Bit i: fidelity i + 1 (LoFi, HiFi2, HiFi3, HiFi4) differs from fidelity
  // i. Formats with few significant bits lose nothing to some cuts: a Bfp8_b
  // in0 (at most 7 significant bits) fits hi(SrcB), so HiFi2 = HiFi3 = HiFi4
  // (HiFi3's second pass adds zeros). Where in0 has low bits, HiFi3 sums them
  // after every high-bit product, so its last bits differ from HiFi4's even
  // when nothing is cut (Float32 x Bfp4_b).
  uint32_t distinct;
  int exp_range = 8, shift = 0; // value distribution (see random_values)
};

// FNV-1a over the outputs' bits.
void digest(uint64_t& h, const std::vector<float>& v) {
  for (float x : v) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    for (int i = 0; i < 4; ++i)
      h = (h ^ ((bits >> (8 * i)) & 255u)) * 0x100000001b3ull;
  }
}

class ComputeMatmulTest : public ComputeTest {
protected:
  // Runs `c` and its model; EXPECTs the outputs equal as bits. Returns the engine's.
  std::vector<float> run_against_model(const Case& c, const std::string& label) {
    const DataFormat in1_format = c.in1_format == DataFormat::Invalid ? c.in_format : c.in1_format;
    Model m{as_source(c.a, c.in_format), as_source(c.b, in1_format), in1_format, c.fp32, uint32_t(c.fidelity)};
    m.run(c.steps);
    const std::vector<float> out = run(c);
    EXPECT_EQ(out.size(), m.out.size()) << label;
    size_t mismatches = 0, first = 0;
    for (size_t i = 0; i < std::min(out.size(), m.out.size()); ++i)
      if (std::bit_cast<uint32_t>(out[i]) != std::bit_cast<uint32_t>(m.out[i]) && mismatches++ == 0) first = i;
    EXPECT_EQ(mismatches, 0u) << label << ": first at output tile " << first / kTileHW << " element " << first % kTileHW
                              << ": engine " << out[first] << " (0x" << std::hex << std::bit_cast<uint32_t>(out[first])
                              << "), model " << m.out[first] << " (0x" << std::bit_cast<uint32_t>(m.out[first]) << ")";
    return out;
  }
};

const char* format_name(DataFormat f) {
  return f == DataFormat::Float16_b ? "bf16"
         : f == DataFormat::Float32 ? "fp32"
         : f == DataFormat::Bfp8_b  ? "bfp8"
                                    : "bfp4";
}

TEST_F(ComputeMatmulTest, EveryFormatFidelityAndDstModeMatchesTheModelBitForBit) {
  const Combo combos[] = {
      {DataFormat::Float16_b, DataFormat::Float16_b, 0b111},
      {DataFormat::Float32, DataFormat::Float32, 0b111},
      {DataFormat::Bfp8_b, DataFormat::Bfp8_b, 0b001},
      {DataFormat::Bfp4_b, DataFormat::Bfp4_b, 0b000},
      {DataFormat::Float16_b, DataFormat::Bfp8_b, 0b111},
      {DataFormat::Float32, DataFormat::Bfp4_b, 0b110},
      // Products near the bottom of the float range (denormal sums; 16-bit DST flushes them).
      {DataFormat::Float32, DataFormat::Float32, 0b111, 4, -62},
  };
  constexpr uint32_t kTiles = 8;
  uint64_t h = 0xcbf29ce484222325ull;
  uint32_t seed = 0;
  for (const Combo& combo : combos) {
    std::vector<float> per_fidelity[4]; // every output of the combo at each fidelity
    for (bool fp32 : {false, true})
      for (bool transpose : {false, true}) {
        ++seed;
        for (MathFidelity fid : {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
          Case c;
          c.in_format = combo.in0;
          c.in1_format = combo.in1;
          c.out_format = DataFormat::Float32;
          c.fp32 = fp32;
          c.full_sync = true;
          c.fidelity = fid;
          c.in_tiles = kTiles;
          c.out_pages = c.out_tiles = 16;
          c.a = random_values(kTiles, 2 * seed, combo.exp_range, combo.shift);
          c.b = random_values(kTiles, 2 * seed + 1, combo.exp_range, combo.shift);
          const std::string label = std::string(format_name(combo.in0)) + " x " + format_name(combo.in1) +
                                    (combo.shift ? " (tiny)" : "") + ", fidelity " + std::to_string(int(fid)) +
                                    (fp32 ? ", fp32 DST" : ", 16-bit DST") + (transpose ? ", transpose" : "");
          std::vector<float>& all = per_fidelity[fid == MathFidelity::LoFi ? 0 : int(fid) - 1];
          for (const Steps& steps : program_steps(transpose, kTiles)) {
            c.steps = steps;
            const std::vector<float> out = run_against_model(c, label);
            digest(h, out);
            all.insert(all.end(), out.begin(), out.end());
          }
        }
      }
    // Each cut the fidelity makes shows in the results where the formats have the bits to lose.
    for (uint32_t i = 0; i < 3; ++i)
      EXPECT_EQ(per_fidelity[i] != per_fidelity[i + 1], ((combo.distinct >> i) & 1u) != 0)
          << format_name(combo.in0) << " x " << format_name(combo.in1) << ": fidelities " << i << " and " << i + 1;
  }
  // The engine's outputs when this test was written: a change to any bit of
  // any result changes this.
  EXPECT_EQ(h, 0xed4e49b416c1e160ull) << std::hex << h;
}

// Every block shape that fits one full-sync acquire, at the two fidelities
// with one pass and with two, so every row and column remainder of a blocked
// kernel is reached. Each shape accumulates two k steps.
TEST_F(ComputeMatmulTest, EveryBlockShapeMatchesTheModelBitForBit) {
  constexpr uint32_t kTiles = 32;
  uint64_t h = 0xcbf29ce484222325ull;
  for (bool fp32 : {false, true})
    for (MathFidelity fid : {MathFidelity::HiFi3, MathFidelity::HiFi4}) {
      const uint32_t capacity = fp32 ? 8 : 16;
      for (uint32_t rt = 1; rt <= capacity; ++rt)
        for (uint32_t ct = 1; rt * ct <= capacity; ++ct) {
          Case c;
          c.out_format = DataFormat::Float32;
          c.fp32 = fp32;
          c.full_sync = true;
          c.fidelity = fid;
          c.in_tiles = kTiles;
          c.out_pages = c.out_tiles = rt * ct;
          c.a = random_values(kTiles, 101 + rt, 8, 0);
          c.b = random_values(kTiles, 201 + ct, 8, 0);
          c.steps.op(kMmBlockInit, kIn0, kIn1, kOut, 0).op(kCbWait, kIn0, kTiles).op(kCbWait, kIn1, kTiles);
          c.steps.op(kAcquire);
          // in0 tiles r * 2 + k (kt = 2); in1 tiles k * ct + col after a start that moves with the shape.
          for (uint32_t k = 0; k < 2; ++k)
            c.steps.op(kMatmulBlock, (kIn0 << 8) | kIn1, k, (rt + k * ct) % (kTiles - 2 * ct + 1), 0,
                       block_word(ct, rt, 2));
          pack_section(c.steps, rt * ct);
          const std::string label = std::to_string(rt) + " x " + std::to_string(ct) + " block, fidelity " +
                                    std::to_string(int(fid)) + (fp32 ? ", fp32 DST" : ", 16-bit DST");
          digest(h, run_against_model(c, label));
        }
    }
  EXPECT_EQ(h, 0x382bbb42407996a0ull) << std::hex << h;
}

} // namespace
} // namespace tessel::test
