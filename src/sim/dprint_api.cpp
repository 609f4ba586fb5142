// The simulator side of DPRINT: a kernel's lines, tagged by RISC and
// compute thread as Metalium tags them, and TileSlice, formatted as
// Metalium's host printer formats a slice of a CB's tile.
#include "sim/dprint_api.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "sim/chip.hpp"
#include "sim/formats.hpp"
#include "sim/kernel_api_support.hpp"
#include "sim/trace.hpp"

namespace tessel::sim {

namespace {
std::mutex g_print_mutex; // one line at a time on stdout, from every device and thread
} // namespace

// One DPRINT line, tagged as Metalium tags it: BR, NC, or the compute thread
// TR0 (unpack), TR1 (math), TR2 (pack). A line from compute code outside a
// DPRINT_UNPACK/MATH/PACK is printed once for each thread, as the three
// threads of silicon each run the kernel.
void api_dprint(tessel_kernel_ctx* k, const char* text, uint32_t length) {
  static const char* const kTags[] = {"BR", "NC", "TR0", "TR1", "TR2"};
  Core& c = core_of(k);
  c.chip->check_progress(fiber_of(k), "DPRINT", nullptr, 0);
  if (Tracer* t = c.chip->tracer()) t->dprint(*k, text, length);
  if (!c.chip->dprint_enabled(c.index)) return; // traced only (trace.cpp enables every core's DPRINT)
  uint32_t first = k->risc == TESSEL_RISC_COMPUTE ? 2 : k->risc, last = first;
  if (k->risc == TESSEL_RISC_COMPUTE) {
    if (k->dprint_thread <= TESSEL_DPRINT_THREAD_PACK)
      first = last = 2 + k->dprint_thread;
    else
      last = 4;
  }
  std::lock_guard lock(g_print_mutex);
  for (uint32_t t = first; t <= last && t < 5; ++t)
    std::fprintf(stdout, "%u:(x=%u,y=%u):%s: %.*s\n", c.chip->device_id, c.logical_x, c.logical_y, kTags[t],
                 int(length), text);
  std::fflush(stdout);
}

namespace {

// DPRINT << TileSlice(...), formatted as Metalium's host printer formats a
// slice: values separated by one space, a line break after each row when
// endl_rows, floats as an ostream prints them (SETPRECISION / FIXED of the
// statement), integers in its base. At most max_bytes of values are kept
// (Bfp values take two bytes: exponent and mantissa); a longer slice ends
// with Metalium's truncation note.
struct SliceFormat {
  DataFormat format;
  uint32_t stored_bytes; // per value, in the kernel's print buffer
};

bool slice_format(DataFormat f, SliceFormat* out) {
  switch (f) {
  case DataFormat::Float32:
  case DataFormat::Int32:
  case DataFormat::UInt32: *out = {f, 4}; return true;
  case DataFormat::Float16_b:
  case DataFormat::UInt16:
  case DataFormat::Bfp8_b:
  case DataFormat::Bfp4_b: *out = {f, 2}; return true;
  case DataFormat::Int8:
  case DataFormat::UInt8: *out = {f, 1}; return true;
  default: return false;
  }
}

// Value `index` (in tile memory order) of a tile, as text.
std::string slice_value(const SliceFormat& sf, const uint8_t* tile, const float* decoded, uint32_t index,
                        uint32_t flags, uint32_t precision) {
  char text[64];
  const char* int_spec = (flags & TESSEL_TSLICE_HEX) ? "%x" : (flags & TESSEL_TSLICE_OCT) ? "%o" : nullptr;
  auto print_float = [&](float v) {
    std::snprintf(text, sizeof text, (flags & TESSEL_TSLICE_FIXED) ? "%.*f" : "%.*g", int(precision), double(v));
  };
  auto print_int = [&](int64_t v, uint32_t bits) {
    if (int_spec)
      std::snprintf(text, sizeof text, int_spec, unsigned(uint64_t(v) & (bits == 32 ? 0xffffffffu : ~0u)));
    else
      std::snprintf(text, sizeof text, "%lld", (long long)v);
  };
  switch (sf.format) {
  case DataFormat::Float16_b: {
    uint16_t bits;
    std::memcpy(&bits, tile + 2 * index, 2);
    print_float(std::bit_cast<float>(uint32_t(bits) << 16));
    break;
  }
  case DataFormat::Float32: {
    float v;
    std::memcpy(&v, tile + 4 * index, 4);
    print_float(v);
    break;
  }
  case DataFormat::Bfp8_b:
  case DataFormat::Bfp4_b: print_float(decoded[index]); break;
  case DataFormat::Int32: {
    int32_t v;
    std::memcpy(&v, tile + 4 * index, 4);
    print_int(v, 32);
    break;
  }
  case DataFormat::UInt32: {
    uint32_t v;
    std::memcpy(&v, tile + 4 * index, 4);
    print_int(v, 32);
    break;
  }
  case DataFormat::UInt16: {
    uint16_t v;
    std::memcpy(&v, tile + 2 * index, 2);
    print_int(v, 32);
    break;
  }
  case DataFormat::Int8: print_int(int8_t(tile[index]), 32); break;
  default: print_int(tile[index], 32); break;
  }
  return text;
}

// Where (h, w) of the tile sits in tile memory: row-major over the 32x32
// tile, or (untilize) in the four 16x16 faces.
uint32_t slice_index(uint32_t h, uint32_t w, bool untilize) {
  if (!untilize) return w + h * 32;
  const uint32_t face = (h / 16) * 2 + w / 16;
  return face * 256 + (h % 16) * 16 + w % 16;
}

std::string slice_text(const SliceFormat& sf, const uint8_t* tile, const uint16_t* r, uint32_t flags,
                       uint32_t precision) {
  alignas(64) float decoded[kTileHW];
  if (sf.format == DataFormat::Bfp8_b || sf.format == DataFormat::Bfp4_b) unpack_tile(sf.format, tile, decoded);
  const uint32_t max_count = (flags >> 16) / sf.stored_bytes;
  const bool untilize = flags & TESSEL_TSLICE_UNTILIZE;
  std::string out;
  uint32_t count = 0;
  for (uint32_t h = r[0]; h < r[1]; h += r[2]) {
    bool truncated = false;
    for (uint32_t w = r[3]; w < r[4]; w += r[5]) {
      if (count >= max_count) {
        truncated = true;
        break;
      }
      out += slice_value(sf, tile, decoded, slice_index(h, w, untilize), flags, precision);
      if (w + r[5] < r[4]) out += ' ';
      ++count;
    }
    if (truncated) {
      out += "<TileSlice data truncated due to exceeding max count (" + std::to_string(max_count) + ")>\n";
      break;
    }
    if (flags & TESSEL_TSLICE_ENDL_ROWS) out += '\n';
  }
  return out;
}

// What compute thread `thread` (or a data-movement RISC, thread ALL) prints
// for the slice.
std::string tile_slice_for(tessel_kernel_ctx* k, uint32_t thread, uint32_t cb, int32_t tile_index,
                           const uint16_t* range, uint32_t flags, uint32_t precision) {
  if (thread == TESSEL_DPRINT_THREAD_MATH)
    return "Warning: MATH core does not support TileSlice printing, omitting print...\n";
  const tessel_cb_iface& q = k->cbs[cb];
  const bool read_ptr = (flags & TESSEL_TSLICE_PTR_GIVEN) ? (flags & TESSEL_TSLICE_RD_PTR) != 0
                        : k->risc == TESSEL_RISC_COMPUTE  ? thread == TESSEL_DPRINT_THREAD_UNPACK
                                                          : k->risc == TESSEL_RISC_BRISC;
  const DataFormat format = DataFormat(q.data_format);
  const std::string cb_name = "CBIndex::c_" + std::to_string(cb);
  SliceFormat sf;
  if (!slice_format(format, &sf))
    return "Tried printing " + cb_name + ": Unsupported data format (" + to_string(format) + ")\n";
  const uint64_t ptr = uint64_t(read_ptr ? q.rd_ptr : q.wr_ptr) + int64_t(tile_index) * q.tile_size;
  const uint64_t l1 = uint64_t(uintptr_t(k->l1_base));
  if (tile_index < 0 || ptr < l1 || ptr + q.tile_size > l1 + k->l1_size_bytes)
    return "Tried printing " + cb_name + ": BAD TILE POINTER (ptr=" + std::to_string(uint32_t(ptr - l1)) +
           ", count=0)\n";
  return slice_text(sf, reinterpret_cast<const uint8_t*>(uintptr_t(ptr)), range, flags, precision);
}

} // namespace

void api_dprint_tile_slice(tessel_kernel_ctx* k, uint32_t cb, int32_t tile_index, const uint16_t* range, uint32_t flags,
                           uint32_t precision, const char* file, uint32_t line) {
  if (cb >= k->num_cb_indices || !k->cbs[cb].configured) cb_unusable(k, "TileSlice", cb, file, line);
  if (range[2] == 0 || range[5] == 0 || range[1] > 32 || range[4] > 32) {
    std::string msg = "TileSlice(cb=" + std::to_string(cb) + "): SliceRange [" + std::to_string(range[0]) + ":" +
                      std::to_string(range[1]) + ":" + std::to_string(range[2]) + ", " + std::to_string(range[3]) +
                      ":" + std::to_string(range[4]) + ":" + std::to_string(range[5]) +
                      "] must have steps hs, ws >= 1 and stay within the 32x32 tile (h1, w1 <= 32)";
    fail(k, std::move(msg), file, line);
  }
  const bool every_thread = k->risc == TESSEL_RISC_COMPUTE && k->dprint_thread > TESSEL_DPRINT_THREAD_PACK;
  // A slice without row breaks continues the line, unless each compute
  // thread prints its own text (then the line ends with the slice).
  if (!(flags & TESSEL_TSLICE_ENDL_ROWS) && !every_thread) {
    const std::string text = tile_slice_for(k, k->dprint_thread, cb, tile_index, range, flags, precision);
    const uint32_t n = std::min<uint32_t>(uint32_t(text.size()), sizeof k->dprint_buffer - k->dprint_length);
    std::memcpy(k->dprint_buffer + k->dprint_length, text.data(), n);
    k->dprint_length += n;
    return;
  }
  const std::string pending(k->dprint_buffer, k->dprint_length);
  k->dprint_length = 0;
  const uint32_t saved_thread = k->dprint_thread;
  for (uint32_t t = every_thread ? 0 : saved_thread; t <= (every_thread ? 2u : saved_thread); ++t) {
    std::string text = pending + tile_slice_for(k, t, cb, tile_index, range, flags, precision);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    k->dprint_thread = t;
    api_dprint(k, text.data(), uint32_t(text.size()));
    if (!every_thread) break;
  }
  k->dprint_thread = saved_thread;
}

} // namespace tessel::sim
