// Layout conversions of the compute engine (kernel/include/tessel/tilize.h):
// tilize_block / fast_tilize_block, untilize_block, pack_untilize_block and
// pack_untilize_dest (their inits: compute_tilize_init.cpp).
//
// Row-major CB layout. A block `w` tiles wide is 32 rows of w x 32 values,
// row after row from the CB's read (write) pointer, in the CB's format (a
// format of whole values: Float32, Float16_b, Int32, UInt32, UInt16, UInt8;
// block floats hold tiles only). It fills w pages of one tile's size.
//  - tilize_block(icb, block, ocb, in, out): the unpacker reads rows
//    block x 32 values apart, starting (in / block) blocks down and
//    (in % block) tiles across; tile t (columns t*32..t*32+31 of the 32 rows)
//    goes to page out + t of ocb's reservation (the in-order pack cursor is
//    left alone, as for pack_tile<true>).
//  - untilize_block<b>(icb, full, ocb): tiles 0..full-1 from icb's front ->
//    32 rows of full x 32 values, written to the next `full` pages of ocb
//    (page p holds values p*1024..p*1024+1023 of the rows; the cursor moves
//    on by `full`, as pack_tile's does).
//  - pack_untilize_block<b, f>(icb, rt, ocb, c) and pack_untilize_dest<b,
//    f>(ocb, rt, c, ...): b tiles -> columns c*b*32.. of 32 rows f x 32
//    values wide from ocb's write pointer; row block r starts f pages
//    further on. The cursor is left alone.
// Values take the path copy_tile + pack_tile gives them (unpack, DST
// rounding, pack into the output format), except that a tile whose input
// and output formats are the same and that DST holds exactly (Float16_b;
// Float32 unpacked to a 32-bit DST; integers with fp32_dest_acc_en) moves
// bit for bit, as the unpacker's copy to DEST does.
//
// DST. tilize_block, untilize_block and pack_untilize_block acquire and
// release a DST section per step themselves (the LLK's wait for DEST and
// section-done): called while DST is held they would write into the held
// section, so that is an error. pack_untilize_dest packs from the section
// PACK holds, like pack_tile.
#include <cstring>
#include <string>
#include <vector>

#include "sim/compute.hpp"
#include "sim/compute_support.hpp"

namespace tessel::sim {

using namespace detail;

namespace {

// A layout call as messages name it (built only when something fails).
struct LayoutCall {
  enum Kind : uint8_t { Tilize, FastTilize, Untilize, PackUntilizeBlock, PackUntilizeDest } kind;
  uint32_t v[6];
};

TESSEL_COLD std::string text(const LayoutCall& c) {
  const uint32_t* v = c.v;
  switch (c.kind) {
  case LayoutCall::Tilize:
  case LayoutCall::FastTilize:
    return std::string(c.kind == LayoutCall::Tilize ? "tilize_block" : "fast_tilize_block") + "(icb=" + num(v[0]) +
           ", block=" + num(v[1]) + ", ocb=" + num(v[2]) + ", input_tile_index=" + num(v[3]) +
           ", output_tile_index=" + num(v[4]) + ")";
  case LayoutCall::Untilize:
    return "untilize_block<" + num(v[1]) + ">(icb=" + num(v[0]) + ", full_ct_dim=" + num(v[2]) + ", ocb=" + num(v[3]) +
           ")";
  case LayoutCall::PackUntilizeBlock:
    return "pack_untilize_block<" + num(v[2]) + ", " + num(v[3]) + ">(icb=" + num(v[0]) +
           ", block_rt_dim=" + num(v[4]) + ", ocb=" + num(v[1]) + ", block_c_index=" + num(v[5]) + ")";
  default:
    return "pack_untilize_dest<" + num(v[2]) + ", " + num(v[3]) + ">(ocb=" + num(v[1]) + ", block_rt_dim=" + num(v[4]) +
           ", block_c_index=" + num(v[5]) + ")";
  }
}

// Fails the kernel with "call: detail". The detail is made here, by
// `detail()`: a failing kernel's frames are abandoned, never unwound, so no
// caller may hold a string when this is called.
template <class Detail>
[[noreturn]] TESSEL_COLD void fail_call(tessel_kernel_ctx* k, const LayoutCall& c, const Detail& detail,
                                        const char* file, uint32_t line) {
  std::string msg = text(c) + ": " + detail();
  fail(k, std::move(msg), file, line);
}

// Bytes per value of a format a row-major CB can hold; 0 for block floats.
uint32_t value_bytes(DataFormat f) {
  switch (f) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32: return 4;
  case DataFormat::Float16_b:
  case DataFormat::UInt16: return 2;
  case DataFormat::UInt8: return 1;
  default: return 0;
  }
}

// A CB a layout call names: configured on this core, in a format the engine converts.
tessel_cb_iface& layout_cb(tessel_kernel_ctx* k, const char* call, const LayoutCall& c, uint32_t cb, const char* file,
                           uint32_t line) {
  if (__builtin_expect(cb >= k->num_cb_indices || !k->cbs[cb].configured, 0)) {
    k->api->fail_cb(k, call, cb, file, line);
    __builtin_unreachable();
  }
  tessel_cb_iface& q = k->cbs[cb];
  if (__builtin_expect(!is_packable(DataFormat(q.data_format)), 0))
    fail_call(
        k, c,
        [&] {
          return "CB " + num(cb) + " holds " + to_string(DataFormat(q.data_format)) +
                 ", which the compute engine does not convert; expected Float32, Float16_b, Bfp8_b, Bfp4_b, Int32, "
                 "UInt32, UInt16 or UInt8";
        },
        file, line);
  if (__builtin_expect(q.page_size < q.tile_size, 0))
    fail_call(
        k, c,
        [&] {
          return "CB " + num(cb) + " has " + num(q.page_size) + "-byte pages, smaller than one " +
                 to_string(DataFormat(q.data_format)) + " tile (" + num(q.tile_size) + " bytes)";
        },
        file, line);
  return q;
}

// The row-major side of a conversion: its values' size.
uint32_t row_major_value_bytes(tessel_kernel_ctx* k, const LayoutCall& c, uint32_t cb, const char* file,
                               uint32_t line) {
  const DataFormat f = DataFormat(k->cbs[cb].data_format);
  const uint32_t e = value_bytes(f);
  if (__builtin_expect(e == 0, 0))
    fail_call(
        k, c,
        [&] {
          return "CB " + num(cb) + " holds " + to_string(f) +
                 ", a block-float format, which holds tiles only; the row-major side of a tilize or untilize "
                 "holds Float32, Float16_b, Int32, UInt32, UInt16 or UInt8 values";
        },
        file, line);
  return e;
}

// The input CB: consumed by this RISC, with `bytes` from its read pointer waited for.
void check_front(tessel_kernel_ctx* k, const LayoutCall& c, uint32_t cb, uint64_t bytes, const char* what,
                 const char* file, uint32_t line) {
  const tessel_cb_iface& q = k->cbs[cb];
  const uint8_t consumer = core_of(k).cb_consumer[cb];
  if (__builtin_expect(consumer == TESSEL_RISC_COMPUTE + 1 && bytes <= uint64_t(q.waited_pages) * q.page_size, 1))
    return;
  if (consumer != 0 && consumer != TESSEL_RISC_COMPUTE + 1)
    fail_call(
        k, c,
        [&] {
          return "CB " + num(cb) + " is consumed on this core by " + Chip::risc_name(consumer - 1u) +
                 "; a CB has one consumer RISC";
        },
        file, line);
  const uint64_t pages = (bytes + q.page_size - 1) / q.page_size;
  if (consumer == 0 || q.waited_pages == 0)
    fail_call(
        k, c,
        [&] {
          return "no pages of CB " + num(cb) + " are waited for: call cb_wait_front(" + num(cb) + ", " +
                 std::to_string(pages) + ") first";
        },
        file, line);
  fail_call(
      k, c,
      [&] {
        return std::string("reads ") + what + ", " + std::to_string(pages) + " pages of CB " + num(cb) +
               " from its front, but only " + num(q.waited_pages) + (q.waited_pages == 1 ? " page is" : " pages are") +
               " waited for with cb_wait_front";
      },
      file, line);
}

// The output CB: produced by this RISC, pages first..first+count-1 from its
// write pointer reserved. As for pack_tile, pages beyond the reservation
// that the CB has free are a warning (silicon writes them), others an error.
void check_back(tessel_kernel_ctx* k, const LayoutCall& c, uint32_t cb, uint32_t first, uint64_t count,
                const char* file, uint32_t line) {
  Core& core = core_of(k);
  const uint8_t producer = core.cb_producer[cb];
  if (__builtin_expect(producer != TESSEL_RISC_COMPUTE + 1, 0)) {
    if (producer != 0)
      fail_call(
          k, c,
          [&] {
            return "CB " + num(cb) + " is produced on this core by " + Chip::risc_name(producer - 1u) +
                   "; a CB has one producer RISC";
          },
          file, line);
    core.cb_producer[cb] = TESSEL_RISC_COMPUTE + 1;
    core.cb_producer_site[cb] = {file, line};
  }
  const tessel_cb_iface& q = k->cbs[cb];
  const uint64_t end = uint64_t(first) + count;
  if (__builtin_expect(end <= q.reserved_pages, 1)) return;
  const uint32_t to_end = (q.fifo_size - (q.wr_ptr - q.fifo_addr)) / q.page_size;
  const auto head = [&] {
    return "writes pages " + num(first) + ".." + std::to_string(end - 1) + " of CB " + num(cb) +
           " (counting from its write pointer), but only " + num(q.reserved_pages) +
           (q.reserved_pages == 1 ? " page is" : " pages are") + " reserved with cb_reserve_back";
  };
  if (end > to_end)
    fail_call(
        k, c,
        [&] {
          return head() + ", and page " + num(to_end) +
                 " lies past the CB's end: reserve the pages with cb_reserve_back " +
                 "(after pushing the pages before them)";
        },
        file, line);
  if (end > free_pages(q))
    fail_call(
        k, c,
        [&] {
          return head() + ", and the CB has " + num(free_pages(q)) + " free of " + num(q.num_pages) +
                 ": this would overwrite pages the consumer can still read; wait for room with cb_reserve_back first";
        },
        file, line);
  std::string msg = text(c) + ": " + head() +
                    "; the CB has room for them, so silicon writes them, but nothing waited for that room: "
                    "reserve them with cb_reserve_back first";
  core.chip->warn(fiber_of(k), std::move(msg), file, line);
}

// The unpacker's SrcA and the packer configured for the CBs' formats.
void check_formats(tessel_kernel_ctx* k, const LayoutCall& c, uint32_t icb, uint32_t ocb, const char* file,
                   uint32_t line) {
  const ComputeState& s = state_of(k);
  if (icb != TESSEL_NO_CB && s.fmt_a != DataFormat::Invalid && DataFormat(k->cbs[icb].data_format) != s.fmt_a)
    fail_call(
        k, c,
        [&] {
          return "CB " + num(icb) + " holds " + to_string(DataFormat(k->cbs[icb].data_format)) +
                 ", but the unpacker's SrcA is configured for " + to_string(s.fmt_a) + site_note(s.fmt_a_site) +
                 ": call reconfig_data_format_srca(" + num(icb) + ") (or the init's _with_dt form) first";
        },
        file, line);
  if (DataFormat(k->cbs[ocb].data_format) != s.fmt_pack)
    fail_call(
        k, c,
        [&] {
          return "CB " + num(ocb) + " holds " + to_string(DataFormat(k->cbs[ocb].data_format)) +
                 ", but the packer is configured for " + to_string(s.fmt_pack) + site_note(s.fmt_pack_site) +
                 ": call pack_reconfig_data_format(" + num(ocb) + ") first";
        },
        file, line);
}

void need_hw(tessel_kernel_ctx* k, const LayoutCall& c, const char* file, uint32_t line) {
  if (__builtin_expect(!state_of(k).hw_started, 0))
    fail_call(
        k, c,
        [&] {
          return "the unpacker, FPU and packer are not configured: call compute_kernel_hw_startup (or another full "
                 "init) first";
        },
        file, line);
}

// The ops that acquire DST themselves: nothing may hold it.
void need_dst_free(tessel_kernel_ctx* k, const LayoutCall& c, const char* file, uint32_t line) {
  const ComputeState& s = state_of(k);
  if (__builtin_expect(!s.math_holds && !s.pack_holds && s.committed == 0, 1)) return;
  fail_call(
      k, c,
      [&] {
        return "it acquires and releases DST itself for each step, but DST is held (last acquired at " +
               site(s.acquire_file, s.acquire_line) + "): call it before tile_regs_acquire or after " +
               (s.legacy ? "release_dst" : "tile_regs_release");
      },
      file, line);
}

void need_dst_tiles(tessel_kernel_ctx* k, const LayoutCall& c, uint32_t tiles, const char* what, const char* file,
                    uint32_t line) {
  const uint32_t cap = dst_capacity(k);
  if (__builtin_expect(tiles <= cap, 1)) return;
  fail_call(
      k, c,
      [&] {
        return std::string(what) + " needs " + num(tiles) + " DST tiles, but one acquire holds " + num(cap) + " in " +
               dst_mode(k) + " mode (half-sync 8, full-sync 16, halved by fp32_dest_acc_en)";
      },
      file, line);
}

// Steps that acquired and released a DST section each.
void used_dst_sections(ComputeState& s, uint32_t steps) {
  s.acquires += steps;
  s.releases += steps;
}

inline bool unpacks_to_dest(const tessel_kernel_ctx* k, uint32_t cb) {
  return DataFormat(k->cbs[cb].data_format) == DataFormat::Float32 && k->fp32_dest_acc_en &&
         ((k->unpack_to_dest_fp32 >> cb) & 1u);
}

// Whether a tile of icb's format moves to ocb's bit for bit (see the top).
bool moves_exactly(const tessel_kernel_ctx* k, uint32_t icb, uint32_t ocb) {
  const DataFormat f = DataFormat(k->cbs[icb].data_format);
  if (f != DataFormat(k->cbs[ocb].data_format)) return false;
  if (f == DataFormat::Float16_b) return true;
  if (f == DataFormat::Float32) return unpacks_to_dest(k, icb);
  return k->fp32_dest_acc_en && value_bytes(f) != 0;
}

// A tile of icb's format into DST as copy_tile puts it there.
void unpack_to_dst(const tessel_kernel_ctx* k, uint32_t icb, const uint8_t* tile, float* d) {
  const DataFormat f = DataFormat(k->cbs[icb].data_format);
  if (unpacks_to_dest(k, icb))
    unpack_tile(f, tile, d);
  else
    unpack_src(f, tile, d);
  if (!k->fp32_dest_acc_en && f != DataFormat::Float16_b && f != DataFormat::Bfp8_b && f != DataFormat::Bfp4_b)
    round_in_place(d);
}

// A tile (tile order: four 16 x 16 faces) <-> 32 rows `stride` bytes apart,
// for values of `e` bytes.
void rows_to_tile(const uint8_t* rows, uint64_t stride, uint32_t e, uint8_t* tile) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t h = 0; h < 2; ++h)
      std::memcpy(tile + size_t(((r / 16) * 2 + h) * 256 + (r % 16) * 16) * e, rows + r * stride + h * 16 * e, 16 * e);
}
void tile_to_rows(const uint8_t* tile, uint32_t e, uint8_t* rows, uint64_t stride) {
  for (uint32_t r = 0; r < 32; ++r)
    for (uint32_t h = 0; h < 2; ++h)
      std::memcpy(rows + r * stride + h * 16 * e, tile + size_t(((r / 16) * 2 + h) * 256 + (r % 16) * 16) * e, 16 * e);
}

struct Scratch {
  alignas(64) float d[kTileHW];
  alignas(64) uint8_t in[kTileHW * 4];
  alignas(64) uint8_t out[kTileHW * 4];
  std::vector<uint8_t> rows; // untilize_block's row-major block
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

inline uint8_t* l1(uint32_t addr) { return reinterpret_cast<uint8_t*>(uintptr_t(addr)); }

} // namespace

// ---- Ops ----

void api_tilize_block(tessel_kernel_ctx* k, uint32_t fast, uint32_t icb, uint32_t block, uint32_t ocb,
                      uint32_t input_tile_index, uint32_t output_tile_index, const char* file, uint32_t line) {
  const char* call = fast ? "fast_tilize_block" : "tilize_block";
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  check_compute(k, call, file, line);
  check_no_pack_edits(k, call, file, line);
  ComputeState& s = state_of(k);
  const LayoutState& L = s.layout;
  const LayoutCall c{fast ? LayoutCall::FastTilize : LayoutCall::Tilize,
                     {icb, block, ocb, input_tile_index, output_tile_index}};
  need_hw(k, c, file, line);
  if (__builtin_expect(s.op != ComputeOp::Tilize || L.fast != (fast != 0), 0))
    fail_call(
        k, c,
        [&] {
          return std::string("the unpacker is not configured for ") + call + ": call " +
                 (fast ? "fast_tilize_init(icb, full_dim, ocb)" : "tilize_init(icb, block, ocb)") + " first" +
                 last_init_note(s);
        },
        file, line);
  if (__builtin_expect(!fast && block != L.tilize_block, 0))
    fail_call(
        k, c,
        [&] {
          return std::string(L.unpack_site.call) + " at " + site(L.unpack_site.file, L.unpack_site.line) +
                 " set the unpacker up for blocks of " + num(L.tilize_block) + " tiles (rows " +
                 num(L.tilize_block * 32) + " values apart); this block of " + num(block) +
                 " would be tilized from the wrong rows: call tilize_init(icb, " + num(block) + ", ocb) first";
        },
        file, line);
  need_dst_free(k, c, file, line);
  tessel_cb_iface& in = layout_cb(k, call, c, icb, file, line);
  tessel_cb_iface& out = layout_cb(k, call, c, ocb, file, line);
  const uint32_t e = row_major_value_bytes(k, c, icb, file, line);
  check_formats(k, c, icb, ocb, file, line);
  if (block == 0) return;
  // Values: (in / block) blocks down, (in % block) tiles across, rows block x 32 apart.
  const uint64_t row = uint64_t(block) * 32;
  const uint64_t first = uint64_t(input_tile_index / block) * row * 32 + uint64_t(input_tile_index % block) * 32;
  const uint64_t bytes = (first + 31 * row + row) * e;
  check_front(k, c, icb, bytes, "32 rows of the block", file, line);
  check_back(k, c, ocb, output_tile_index, block, file, line);
  const DataFormat fout = DataFormat(out.data_format);
  const bool exact = moves_exactly(k, icb, ocb);
  const uint8_t* base = l1(in.rd_ptr) + first * e;
  Scratch& w = scratch();
  for (uint32_t t = 0; t < block; ++t) {
    uint8_t* page = l1(out.wr_ptr) + size_t(output_tile_index + t) * out.page_size;
    if (exact) {
      rows_to_tile(base + size_t(t) * 32 * e, row * e, e, page);
      continue;
    }
    rows_to_tile(base + size_t(t) * 32 * e, row * e, e, w.in);
    unpack_to_dst(k, icb, w.in, w.d);
    pack_tile(fout, w.d, page);
  }
  used_dst_sections(s, block);
}

void api_untilize_block(tessel_kernel_ctx* k, uint32_t icb, uint32_t block_ct_dim, uint32_t full_ct_dim, uint32_t ocb,
                        const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "untilize_block", file, line);
  check_compute(k, "untilize_block", file, line);
  check_no_pack_edits(k, "untilize_block", file, line);
  ComputeState& s = state_of(k);
  const LayoutCall c{LayoutCall::Untilize, {icb, block_ct_dim, full_ct_dim, ocb}};
  need_hw(k, c, file, line);
  if (__builtin_expect(s.op != ComputeOp::Untilize, 0))
    fail_call(
        k, c,
        [&] {
          return "the unpacker is not configured for untilize: call untilize_init(icb) first" + last_init_note(s);
        },
        file, line);
  if (__builtin_expect(block_ct_dim == 0 || full_ct_dim % block_ct_dim != 0, 0))
    fail_call(
        k, c,
        [&] {
          return "full_ct_dim must be a multiple of block_ct_dim (the unpacker unpacks " + num(full_ct_dim) +
                 " tiles, the math thread copies them " + num(block_ct_dim) + " at a time)";
        },
        file, line);
  need_dst_tiles(k, c, block_ct_dim, "a block of block_ct_dim tiles", file, line);
  need_dst_free(k, c, file, line);
  tessel_cb_iface& in = layout_cb(k, "untilize_block", c, icb, file, line);
  tessel_cb_iface& out = layout_cb(k, "untilize_block", c, ocb, file, line);
  const uint32_t e = row_major_value_bytes(k, c, ocb, file, line);
  check_formats(k, c, icb, ocb, file, line);
  check_front(k, c, icb, uint64_t(full_ct_dim) * in.page_size, "full_ct_dim tiles", file, line);
  uint32_t& cursor = s.pack_cursor[ocb];
  check_back(k, c, ocb, cursor, full_ct_dim, file, line);
  const DataFormat fout = DataFormat(out.data_format);
  const bool exact = moves_exactly(k, icb, ocb);
  const uint64_t row = uint64_t(full_ct_dim) * 32 * e; // bytes per row of the block
  Scratch& w = scratch();
  w.rows.resize(size_t(row) * 32);
  for (uint32_t t = 0; t < full_ct_dim; ++t) {
    const uint8_t* tile = l1(in.rd_ptr) + size_t(t) * in.page_size;
    if (!exact) {
      unpack_to_dst(k, icb, tile, w.d);
      pack_tile(fout, w.d, w.out);
      tile = w.out;
    }
    tile_to_rows(tile, e, w.rows.data() + size_t(t) * 32 * e, row);
  }
  const uint32_t page_bytes = kTileHW * e;
  for (uint32_t p = 0; p < full_ct_dim; ++p)
    std::memcpy(l1(out.wr_ptr) + size_t(cursor + p) * out.page_size, w.rows.data() + size_t(p) * page_bytes,
                page_bytes);
  cursor += full_ct_dim;
  used_dst_sections(s, full_ct_dim / block_ct_dim);
}

void api_pack_untilize(tessel_kernel_ctx* k, uint32_t icb, uint32_t ocb, uint32_t block_ct_dim, uint32_t full_ct_dim,
                       uint32_t block_rt_dim, uint32_t block_c_index, uint32_t dst_offset, const char* file,
                       uint32_t line) {
  const bool dest = icb == TESSEL_NO_CB;
  const char* call = dest ? "pack_untilize_dest" : "pack_untilize_block";
  core_of(k).chip->check_progress(fiber_of(k), call, file, line);
  check_compute(k, call, file, line);
  check_no_pack_edits(k, call, file, line);
  ComputeState& s = state_of(k);
  const LayoutState& L = s.layout;
  const LayoutCall c{dest ? LayoutCall::PackUntilizeDest : LayoutCall::PackUntilizeBlock,
                     {icb, ocb, block_ct_dim, full_ct_dim, block_rt_dim, block_c_index}};
  const char* init_call = dest ? "pack_untilize_dest_init<" : "pack_untilize_init<";
  if (__builtin_expect(!L.pack_untilize, 0))
    fail_call(
        k, c,
        [&] {
          return "the packer is not configured for untilize: call " + std::string(init_call) + num(block_ct_dim) +
                 ", " + num(full_ct_dim) + ">(" + (dest ? "" : "icb, ") + "ocb) first";
        },
        file, line);
  if (__builtin_expect(L.block_ct_dim != block_ct_dim || L.full_ct_dim != full_ct_dim, 0))
    fail_call(
        k, c,
        [&] {
          return std::string("the packer was set up for blocks of ") + num(L.block_ct_dim) + " tiles in rows of " +
                 num(L.full_ct_dim) + " by " + L.pack_site.call + "<" + num(L.block_ct_dim) + ", " +
                 num(L.full_ct_dim) + "> at " + site(L.pack_site.file, L.pack_site.line) +
                 "; the template arguments must match: call " + init_call + num(block_ct_dim) + ", " +
                 num(full_ct_dim) + ">(" + (dest ? "" : "icb, ") + "ocb) first";
        },
        file, line);
  if (__builtin_expect(block_ct_dim == 0 || uint64_t(block_c_index + 1) * block_ct_dim > full_ct_dim, 0))
    fail_call(
        k, c,
        [&] {
          return "block " + num(block_c_index) + " of " + num(block_ct_dim) + " tiles reaches column tile " +
                 std::to_string(uint64_t(block_c_index + 1) * block_ct_dim) +
                 ", past the row's full_ct_dim = " + num(full_ct_dim) + " tiles";
        },
        file, line);
  uint32_t rows_out = block_rt_dim; // row blocks written
  if (dest) {
    if (__builtin_expect(!s.pack_holds, 0))
      fail_call(
          k, c,
          [&] {
            return std::string("PACK does not hold DST: call tile_regs_wait (after tile_regs_commit) first") +
                   (s.math_holds ? " (MATH still holds it: tile_regs_commit hands it over)" : "");
          },
          file, line);
    need_dst_tiles(k, c, dst_offset + block_rt_dim * block_ct_dim, "DST offset + block_rt_dim x block_ct_dim", file,
                   line);
  } else {
    need_hw(k, c, file, line);
    if (__builtin_expect(s.op != ComputeOp::Copy, 0))
      fail_call(
          k, c,
          [&] {
            return "the unpacker and math are not set up to copy tiles: call pack_untilize_init<" + num(block_ct_dim) +
                   ", " + num(full_ct_dim) + ">(icb, ocb) first" + last_init_note(s);
          },
          file, line);
    need_dst_tiles(k, c, block_ct_dim, "a block of block_ct_dim tiles", file, line);
    need_dst_free(k, c, file, line);
    layout_cb(k, call, c, icb, file, line);
    check_front(k, c, icb, uint64_t(block_ct_dim) * k->cbs[icb].page_size, "block_ct_dim tiles", file, line);
    if (block_rt_dim > 1) {
      std::string msg = text(c) + ": each of the " + num(block_rt_dim) + " row blocks unpacks tiles 0.." +
                        num(block_ct_dim - 1) + " of CB " + num(icb) + " and packs them to the same rows of CB " +
                        num(ocb) +
                        " (pack_untilize_block does not step through the CBs): call it with block_rt_dim = 1 once "
                        "per row block, popping and pushing in between";
      core_of(k).chip->warn(fiber_of(k), std::move(msg), file, line);
      rows_out = 1;
    }
  }
  tessel_cb_iface& out = layout_cb(k, call, c, ocb, file, line);
  const uint32_t e = row_major_value_bytes(k, c, ocb, file, line);
  check_formats(k, c, icb, ocb, file, line);
  if (rows_out == 0) return;
  const uint64_t row = uint64_t(full_ct_dim) * 32 * e;
  const uint64_t last = uint64_t(rows_out - 1) * full_ct_dim * out.page_size + 31 * row +
                        uint64_t(block_c_index + 1) * block_ct_dim * 32 * e;
  check_back(k, c, ocb, 0, (last + out.page_size - 1) / out.page_size, file, line);
  const DataFormat fout = DataFormat(out.data_format);
  const bool exact = !dest && moves_exactly(k, icb, ocb);
  static const float kZeroTile[kTileHW] = {};
  Scratch& w = scratch();
  for (uint32_t r = 0; r < rows_out; ++r) {
    uint8_t* rows =
        l1(out.wr_ptr) + size_t(r) * full_ct_dim * out.page_size + size_t(block_c_index) * block_ct_dim * 32 * e;
    for (uint32_t t = 0; t < block_ct_dim; ++t) {
      const uint8_t* tile = w.out;
      if (dest) {
        const uint32_t d = section_base(k, s.releases) + dst_offset + r * block_ct_dim + t;
        pack_tile(fout, (s.zero_mask >> d) & 1u ? kZeroTile : s.dst[d], w.out);
      } else if (exact) {
        tile = l1(k->cbs[icb].rd_ptr) + size_t(t) * k->cbs[icb].page_size;
      } else {
        unpack_to_dst(k, icb, l1(k->cbs[icb].rd_ptr) + size_t(t) * k->cbs[icb].page_size, w.d);
        pack_tile(fout, w.d, w.out);
      }
      tile_to_rows(tile, e, rows + size_t(t) * 32 * e, row);
    }
  }
  if (!dest) used_dst_sections(s, block_rt_dim);
}

} // namespace tessel::sim
