// The simulator side of the kernel ABI's NoC transfers and semaphores.
//
// NoC: in the eager mode a transfer takes effect when issued, so barriers
// only check; in the checked mode (checked_noc.hpp) it is recorded and lands
// later, at its barrier or earlier (see there). Every transfer is checked for zero length, coordinates, bounds
// and alignment (source and destination must agree modulo the arch's
// alignment for the memory involved).
#include "sim/noc_api.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "sim/kernel_api_support.hpp"
#include "sim/memory_check.hpp"
#include "sim/silicon_tiles.hpp"

namespace tessel::sim {

namespace {

// ---------------------------------------------------------------------------
// NoC

struct NocCoord {
  uint32_t x, y;
  uint64_t local;
};

inline NocCoord decode(uint64_t a) {
  return {uint32_t((a >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK),
          uint32_t((a >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK),
          a & TESSEL_NOC_LOCAL_MASK};
}

struct Endpoint {
  uint8_t* host = nullptr; // null for memory tessel does not model (a write there is dropped)
  Core* core = nullptr;    // null for DRAM
  uint64_t offset = 0;
  uint32_t alignment = 16;
};

// What a read of memory tessel does not model returns: zeros (an Ethernet
// core's L1 is the largest such memory, 512 KiB on Blackhole). Never written.
uint8_t g_unmodelled_zeros[512 * 1024];

std::string coord_text(const NocCoord& n) { return "NoC (" + std::to_string(n.x) + "," + std::to_string(n.y) + ")"; }

[[noreturn]] TESSEL_COLD void l1_bounds_error(tessel_kernel_ctx* k, const char* call, const Core& dst, uint64_t offset,
                                              uint32_t size, const char* file, uint32_t line) {
  fail(k,
       std::string(call) + ": " + std::to_string(size) + " bytes at L1 " + hex(offset) + " of core (" +
           std::to_string(dst.logical_x) + "," + std::to_string(dst.logical_y) + ") run past the end of L1 (" +
           std::to_string(k->l1_size_bytes) + " bytes)",
       file, line);
}

[[noreturn]] TESSEL_COLD void dram_bounds_error(tessel_kernel_ctx* k, const char* call, int bank, uint64_t local,
                                                uint32_t size, const char* file, uint32_t line) {
  const uint64_t bank_size = core_of(k).chip->memory().dram_bank_size_bytes();
  fail(k,
       std::string(call) + ": " + std::to_string(size) + " bytes at DRAM bank " + std::to_string(bank) + " address " +
           hex(local) + " run past the end of the bank (" + std::to_string(bank_size) + " bytes)",
       file, line);
}

std::string worker_span(Chip& chip) {
  return "worker cores span NoC x " + std::to_string(chip.core(0).noc_x) + ".." +
         std::to_string(chip.core(chip.core_count() - 1).noc_x) + ", y " + std::to_string(chip.core(0).noc_y) + ".." +
         std::to_string(chip.core(chip.core_count() - 1).noc_y);
}

// Fixed coordinates differ between chips (NoC (1,0) was a DRAM bank on
// Grayskull): the way to DRAM that works everywhere.
constexpr const char* kDramHint =
    "; DRAM banks are reached through the bank tables (get_noc_addr_from_bank_id, InterleavedAddrGen, "
    "TensorAccessor), not fixed coordinates";

[[noreturn]] TESSEL_COLD void no_target_error(tessel_kernel_ctx* k, const char* call, uint64_t noc_addr,
                                              const SiliconTile& tile, const char* file, uint32_t line) {
  Chip& chip = *core_of(k).chip;
  NocCoord n = decode(noc_addr);
  // One statement of its own: the frames of a failing fiber are abandoned, so
  // a temporary still alive in fail()'s call would leak.
  std::string m = std::string(call) + ": no core or DRAM bank at " + coord_text(n) + " (address " + hex(noc_addr) +
                  "); on " + chip.arch().name + " silicon " + coord_text(n) + " is " +
                  silicon_tile_text(chip.arch(), tile) + "; " + worker_span(chip) +
                  "; use worker_core_from_logical_core on the host" + kDramHint;
  fail(k, std::move(m), file, line);
}

// A transfer to an Ethernet core's L1 (silicon's (1,0) on Wormhole): silicon
// moves the bytes, tessel does not model that memory. A read returns zeros,
// a write is dropped; a warning says so (an error under TESSEL_STRICT=1).
TESSEL_COLD Endpoint ethernet_endpoint(tessel_kernel_ctx* k, const char* call, const NocCoord& n, uint32_t size,
                                       bool is_read, const SiliconTile& tile, const char* file, uint32_t line) {
  Chip& chip = *core_of(k).chip;
  if (n.local + size > tile.l1_bytes) {
    std::string m = std::string(call) + ": " + std::to_string(size) + " bytes at " + hex(n.local) + " of " +
                    coord_text(n) + ", an Ethernet core on " + chip.arch().name + ", run past the end of its L1 (" +
                    std::to_string(tile.l1_bytes) + " bytes)";
    fail(k, std::move(m), file, line);
  }
  // Built before warn(), which under TESSEL_STRICT=1 ends the fiber without unwinding.
  std::string m = std::string(call) + ": " + coord_text(n) + " is an Ethernet core on " + chip.arch().name +
                  ", whose L1 (" + std::to_string(tile.l1_bytes) + " bytes) tessel does not model: " +
                  (is_read ? "this read returns " + std::to_string(size) +
                                 " zero bytes, where silicon returns what that core's L1 holds at " + hex(n.local)
                           : "this write of " + std::to_string(size) +
                                 " bytes is dropped, where silicon writes them into that core's L1 at " + hex(n.local) +
                                 " (memory its firmware may use)") +
                  kDramHint;
  chip.warn(fiber_of(k), std::move(m), file, line);
  Endpoint e;
  e.host = is_read ? g_unmodelled_zeros : nullptr;
  e.offset = n.local;
  e.alignment = k->l1_alignment; // an Ethernet core's L1 takes the L1 alignment
  return e;
}

[[noreturn]] TESSEL_COLD void not_l1_error(tessel_kernel_ctx* k, const char* call, uint64_t addr, const char* file,
                                           uint32_t line) {
  fail(k,
       std::string(call) + ": L1 address " + hex(addr) + " is neither an L1 offset (below " +
           std::to_string(k->l1_size_bytes) + ") nor a pointer into a core's L1 (as get_write_ptr returns)",
       file, line);
}

// An L1 address as kernels use it, an offset or a pointer into some core's
// L1 slot, as the offset it names (the same on every core).
inline uint32_t l1_offset(tessel_kernel_ctx* k, const char* call, uint64_t addr, const char* file, uint32_t line) {
  if (addr < TESSEL_L1_SLOT_BYTES) return uint32_t(addr);
  // A pointer into some core's L1 slot; the guard half of a core's stride is none.
  if (__builtin_expect(core_of(k).chip->memory().in_l1_range(uintptr_t(addr)) && !(addr & DeviceMemory::kSlotBytes), 1))
    return uint32_t(addr & TESSEL_L1_SLOT_MASK);
  not_l1_error(k, call, addr, file, line);
}

// What a poisoned address names (kernel_abi.h, TESSEL_NOC_POISON_BIT).
std::string poisoned_message(tessel_kernel_ctx* k, const char* call, uint64_t noc_addr) {
  Fiber* f = fiber_of(k);
  const uint32_t token = uint32_t(noc_addr >> TESSEL_NOC_POISON_TOKEN_SHIFT) & 7u;
  std::string made = "from a NoC coordinate outside 0..63";
  if (token >= 1 && token <= f->bad_coord_count && f->bad_coord_count <= TESSEL_NOC_POISON_TOKENS) {
    const BadNocCoord& b = f->bad_coords[token - 1];
    const auto pair = [](uint32_t x, uint32_t y) { return "(" + std::to_string(x) + "," + std::to_string(y) + ")"; };
    made = b.multicast
               ? "from the rectangle NoC " + pair(b.x0, b.y0) + "-" + pair(b.x1, b.y1) + " by get_noc_multicast_addr"
               : "from NoC " + pair(b.x0, b.y0) + " by get_noc_addr";
    if (b.file) made += " at " + std::string(b.file) + ":" + std::to_string(b.line);
  }
  return std::string(call) + ": the NoC address " + hex(noc_addr) + " was made " + made +
         ": NoC coordinates are 6 bits (0..63), and no core or DRAM bank lies outside them; " +
         worker_span(*core_of(k).chip) + "; use worker_core_from_logical_core on the host";
}

// A transfer given an address made from coordinates that do not fit 6 bits.
[[noreturn]] TESSEL_COLD void poisoned_error(tessel_kernel_ctx* k, const char* call, uint64_t noc_addr,
                                             const char* file, uint32_t line) {
  fail(k, poisoned_message(k, call, noc_addr), file, line);
}

// Resolve a NoC address for a transfer of size bytes; fails with a message.
// `l1_only`: what the call does, for the error when the address is DRAM's.
inline Endpoint resolve(tessel_kernel_ctx* k, const char* call, uint64_t noc_addr, uint32_t size, bool is_read,
                        const char* file, uint32_t line, const char* l1_only = nullptr) {
  Chip& chip = *core_of(k).chip;
  if (__builtin_expect(noc_addr & TESSEL_NOC_POISON_BIT, 0)) poisoned_error(k, call, noc_addr, file, line);
  NocCoord n = decode(noc_addr);
  Endpoint e;
  const TransferEnd end = is_read ? TransferEnd::Source : TransferEnd::Destination;
  if (int ci = chip.core_at_noc(n.x, n.y); ci >= 0) {
    e.core = &chip.core(uint32_t(ci));
    e.offset = l1_offset(k, call, n.local, file, line);
    if (__builtin_expect(e.offset + size > k->l1_size_bytes, 0))
      l1_bounds_error(k, call, *e.core, e.offset, size, file, line);
    check_l1(fiber_of(k), *e.core, e.offset, size, e.core == &core_of(k), end, call, file, line);
    e.host = e.core->l1 + e.offset;
    e.alignment = k->l1_alignment;
    return e;
  }
  if (int bank = chip.dram_bank_at_noc(n.x, n.y); bank >= 0) {
    if (l1_only) fail(k, std::string(call) + ": " + l1_only + " can target L1 only, not DRAM", file, line);
    if (__builtin_expect(n.local + size > chip.memory().dram_bank_size_bytes(), 0))
      dram_bounds_error(k, call, bank, n.local, size, file, line);
    check_dram(fiber_of(k), chip, uint32_t(bank), n.local, size, end, call, file, line);
    e.host = chip.memory().dram(uint32_t(bank)) + n.local;
    e.offset = n.local;
    e.alignment = is_read ? k->dram_read_alignment : k->dram_write_alignment;
    return e;
  }
  const SiliconTile tile = silicon_tile_at(chip.arch(), n.x, n.y);
  if (tile.kind == SiliconTile::Kind::Ethernet) return ethernet_endpoint(k, call, n, size, is_read, tile, file, line);
  no_target_error(k, call, noc_addr, tile, file, line);
}

[[noreturn]] TESSEL_COLD void local_bounds_error(tessel_kernel_ctx* k, const char* call, const char* what, uint32_t off,
                                                 uint32_t size, const char* file, uint32_t line) {
  fail(k,
       std::string(call) + ": " + what + " " + std::to_string(size) + " bytes at L1 " + hex(off) +
           " run past the end of L1 (" + std::to_string(k->l1_size_bytes) + " bytes)",
       file, line);
}

// The transfer's end on its own core: `what` is "source" or "destination".
inline uint32_t local_l1(tessel_kernel_ctx* k, const char* call, const char* what, uint32_t l1_addr, uint32_t size,
                         const char* file, uint32_t line) {
  uint32_t off = l1_offset(k, call, l1_addr, file, line);
  if (__builtin_expect(uint64_t(off) + size > k->l1_size_bytes, 0))
    local_bounds_error(k, call, what, off, size, file, line);
  check_l1(fiber_of(k), core_of(k), off, size, true, what[0] == 's' ? TransferEnd::Source : TransferEnd::Destination,
           call, file, line);
  return off;
}

[[noreturn]] TESSEL_COLD void zero_length_error(tessel_kernel_ctx* k, const char* call, const char* file,
                                                uint32_t line) {
  fail(k, std::string(call) + ": zero-length transfer", file, line);
}

inline void check_size(tessel_kernel_ctx* k, const char* call, uint32_t size, const char* file, uint32_t line) {
  if (__builtin_expect(size == 0, 0)) zero_length_error(k, call, file, line);
}

// Silicon's rule, as Metalium's watcher checks it (DebugSanitizeNocAlignment):
// the remote and local addresses of a transfer agree modulo the alignment of
// the remote memory for its direction (NOC_L1_READ/WRITE_ALIGNMENT_BYTES: 16;
// NOC_DRAM_READ_ALIGNMENT_BYTES: 64 on Blackhole, 32 on Wormhole;
// NOC_DRAM_WRITE_ALIGNMENT_BYTES: 16). Otherwise the NoC moves the bytes to
// the wrong offset within its word: an error.
[[noreturn]] TESSEL_COLD void alignment_error(tessel_kernel_ctx* k, const char* call, uint64_t remote, uint32_t local,
                                              uint32_t alignment, bool remote_is_dram, bool is_read, const char* file,
                                              uint32_t line) {
  const std::string memory = remote_is_dram ? "DRAM" : "L1";
  const std::string direction = is_read ? "read" : "write";
  const std::string a = std::to_string(alignment);
  std::string m =
      std::string(call) + ": misaligned transfer: " + (remote_is_dram ? "DRAM" : "remote L1") + " address " +
      hex(remote) + " and local L1 address " + hex(local) + " differ modulo " + a +
      (remote_is_dram ? " (a " : " (an ") + memory + " " + direction + " on " + core_of(k).chip->arch().name +
      " needs both addresses to agree modulo " + a + ", Metalium's NOC_" + memory + "_" + (is_read ? "READ" : "WRITE") +
      "_ALIGNMENT_BYTES: silicon would move the bytes to the wrong offset; " + "align both addresses to " + a + ")";
  fail(k, std::move(m), file, line);
}

inline void check_alignment(tessel_kernel_ctx* k, const char* call, uint64_t remote, uint32_t local, uint32_t alignment,
                            bool remote_is_dram, bool is_read, const char* file, uint32_t line) {
  // Alignments are powers of two.
  if (__builtin_expect(((remote ^ local) & (alignment - 1)) != 0, 0))
    alignment_error(k, call, remote, local, alignment, remote_is_dram, is_read, file, line);
}

// A write that changed what another RISC can read is progress; one that
// changed nothing only looks (see watchdog.hpp).
inline void note_write(tessel_kernel_ctx* k, bool changed, const char* call, const char* file, uint32_t line) {
  if (changed)
    core_of(k).chip->note_progress();
  else
    core_of(k).chip->check_progress(fiber_of(k), call, file, line);
}

// After a store of `bytes` at `dst` into core c's L1 (null: DRAM).
void after_write(Core* c, const volatile void* dst, uint32_t bytes) {
  if (c) c->chip->after_write(*c, dst, bytes);
}

// L1 words that RISCs synchronise on (semaphores, inline writes, small NoC
// writes such as noc_semaphore_set_remote) may be read by a RISC on another
// host thread while they are written (the parallel policy): they are
// accessed atomically, stores releasing what the writer wrote before and
// loads in waits acquiring it, so a program ordered by them is race-free
// here too. (On x86 these are the plain loads and stores.)
inline uint32_t load_word(const volatile void* p) {
  return __atomic_load_n(static_cast<const volatile uint32_t*>(p), __ATOMIC_RELAXED);
}
inline void store_word(volatile void* p, uint32_t value) {
  __atomic_store_n(static_cast<volatile uint32_t*>(p), value, __ATOMIC_RELEASE);
}
// A NoC write: word by word when it is a few aligned words (a flag another
// RISC may be polling), else a plain copy (data, ordered by a semaphore); a
// read of a few words likewise.
inline bool few_words(const void* p, uint32_t size) { return size <= 16 && size % 4 == 0 && uintptr_t(p) % 4 == 0; }
inline void write_bytes(uint8_t* dst, const uint8_t* src, uint32_t size) {
  if (few_words(dst, size)) {
    uint32_t words[4]; // read whole before any store: source and destination may overlap
    std::memcpy(words, src, size);
    for (uint32_t i = 0; i < size / 4; ++i)
      store_word(dst + 4 * i, words[i]);
    return;
  }
  std::memmove(dst, src, size);
}
inline void read_bytes(uint8_t* dst, const uint8_t* src, uint32_t size) {
  if (few_words(src, size)) {
    uint32_t words[4];
    for (uint32_t i = 0; i < size / 4; ++i)
      words[i] = __atomic_load_n(reinterpret_cast<const uint32_t*>(src) + i, __ATOMIC_ACQUIRE);
    std::memcpy(dst, words, size);
    return;
  }
  std::memmove(dst, src, size);
}

// The checked NoC mode's state, or null in the eager mode.
inline CheckedNoc* checked(tessel_kernel_ctx* k) { return core_of(k).chip->checked_noc(); }

// A semaphore or inline write follows the RISC's earlier writes on the NoC.
inline void land_writes_first(tessel_kernel_ctx* k) {
  if (CheckedNoc* c = checked(k); __builtin_expect(c != nullptr, 0) && !fiber_of(k)->pending.empty())
    c->land(*fiber_of(k), false, true);
}
} // namespace

void api_noc_read(tessel_kernel_ctx* k, uint64_t src, uint32_t dst_l1, uint32_t size, uint32_t, const char* file,
                  uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "noc_async_read", file, line);
  const char* call = "noc_async_read";
  check_size(k, call, size, file, line);
  Endpoint s = resolve(k, call, src, size, true, file, line);
  uint32_t d = local_l1(k, call, "destination", dst_l1, size, file, line);
  check_alignment(k, call, s.offset, d, s.alignment, s.core == nullptr && s.host != g_unmodelled_zeros, true, file,
                  line);
  Core& me = core_of(k);
  fiber_of(k)->reads.add(d, d + size, file, line);
  if (CheckedNoc* c = checked(k); __builtin_expect(c != nullptr, 0))
    return c->issue(*fiber_of(k), {me.l1 + d, s.host, &me, size, d, d + size, true, call, file, line});
  read_bytes(me.l1 + d, s.host, size);
  after_write(&me, me.l1 + d, size);
}

void api_noc_write(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t dst, uint32_t size, uint32_t, const char* file,
                   uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "noc_async_write", file, line);
  const char* call = "noc_async_write";
  check_size(k, call, size, file, line);
  uint32_t s = local_l1(k, call, "source", src_l1, size, file, line);
  Endpoint d = resolve(k, call, dst, size, false, file, line);
  check_alignment(k, call, d.offset, s, d.alignment, d.core == nullptr && d.host != nullptr, false, file, line);
  fiber_of(k)->writes.add(s, s + size, file, line);
  if (__builtin_expect(d.host == nullptr, 0)) return; // memory tessel does not model
  if (CheckedNoc* c = checked(k); __builtin_expect(c != nullptr, 0))
    return c->issue(*fiber_of(k), {d.host, core_of(k).l1 + s, d.core, size, s, s + size, false, call, file, line});
  write_bytes(d.host, core_of(k).l1 + s, size);
  after_write(d.core, d.host, size);
}

namespace {

// Visit every core of a multicast rectangle, checking the destination count.
template <class F>
void for_each_mcast_dest(tessel_kernel_ctx* k, const char* call, uint64_t mcast, uint32_t num_dests, uint32_t loopback,
                         uint32_t size, const char* file, uint32_t line, F&& visit) {
  Core& me = core_of(k);
  Chip& chip = *me.chip;
  if (__builtin_expect(mcast & TESSEL_NOC_POISON_BIT, 0)) poisoned_error(k, call, mcast, file, line);
  uint32_t x0 = uint32_t((mcast >> TESSEL_NOC_LOCAL_BITS) & TESSEL_NOC_COORD_MASK);
  uint32_t y0 = uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  uint32_t x1 = uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + 2 * TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  uint32_t y1 = uint32_t((mcast >> (TESSEL_NOC_LOCAL_BITS + 3 * TESSEL_NOC_COORD_BITS)) & TESSEL_NOC_COORD_MASK);
  if (x0 > x1) std::swap(x0, x1);
  if (y0 > y1) std::swap(y0, y1);
  uint32_t count = 0;
  bool includes_self = false;
  for (uint32_t y = y0; y <= y1; ++y)
    for (uint32_t x = x0; x <= x1; ++x) {
      int ci = chip.core_at_noc(x, y);
      if (ci < 0)
        fail(k,
             std::string(call) + ": multicast rectangle NoC (" + std::to_string(x0) + "," + std::to_string(y0) + ")-(" +
                 std::to_string(x1) + "," + std::to_string(y1) + ") includes NoC (" + std::to_string(x) + "," +
                 std::to_string(y) + "), which is not a worker core",
             file, line);
      if (uint32_t(ci) == me.index) {
        includes_self = true;
        if (!loopback) continue;
      }
      ++count;
    }
  if (count == 0)
    fail(k,
         std::string(call) + ": the rectangle NoC (" + std::to_string(x0) + "," + std::to_string(y0) + ")-(" +
             std::to_string(x1) + "," + std::to_string(y1) +
             ") holds only the sender: a multicast needs at least one destination",
         file, line);
  if (count != num_dests)
    fail(k,
         std::string(call) + ": num_dests is " + std::to_string(num_dests) + " but the rectangle NoC (" +
             std::to_string(x0) + "," + std::to_string(y0) + ")-(" + std::to_string(x1) + "," + std::to_string(y1) +
             ") has " + std::to_string(count) + " destination cores" +
             (loopback ? " (including the sender)"
                       : (includes_self ? " (the sender excluded; use the _loopback_src form to include it)" : "")),
         file, line);
  uint32_t off = l1_offset(k, call, mcast & TESSEL_NOC_LOCAL_MASK, file, line);
  if (uint64_t(off) + size > k->l1_size_bytes)
    fail(k,
         std::string(call) + ": " + std::to_string(size) + " bytes at L1 " + hex(off) + " run past the end of L1 (" +
             std::to_string(k->l1_size_bytes) + " bytes)",
         file, line);
  for (uint32_t y = y0; y <= y1; ++y)
    for (uint32_t x = x0; x <= x1; ++x) {
      Core& dst = chip.core(uint32_t(chip.core_at_noc(x, y)));
      if (&dst == &me && !loopback) continue;
      check_l1(fiber_of(k), dst, off, size, &dst == &me, TransferEnd::Destination, call, file, line);
    }
  for (uint32_t y = y0; y <= y1; ++y)
    for (uint32_t x = x0; x <= x1; ++x) {
      Core& dst = chip.core(uint32_t(chip.core_at_noc(x, y)));
      if (&dst == &me && !loopback) continue;
      visit(dst, off);
    }
}
} // namespace

void api_noc_write_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t size, uint32_t num_dests,
                             uint32_t loopback, uint32_t, const char* file, uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), "noc_async_write_multicast", file, line);
  const char* call = loopback ? "noc_async_write_multicast_loopback_src" : "noc_async_write_multicast";
  check_size(k, call, size, file, line);
  uint32_t s = local_l1(k, call, "source", src_l1, size, file, line);
  const uint8_t* src = core_of(k).l1 + s;
  uint32_t dst_off = l1_offset(k, call, mcast & TESSEL_NOC_LOCAL_MASK, file, line);
  check_alignment(k, call, dst_off, s, k->l1_alignment, false, false, file, line);
  CheckedNoc* c = checked(k);
  for_each_mcast_dest(k, call, mcast, num_dests, loopback, size, file, line, [&](Core& dst, uint32_t off) {
    if (__builtin_expect(c != nullptr, 0))
      return c->issue(*fiber_of(k), {dst.l1 + off, src, &dst, size, s, s + size, false, call, file, line});
    write_bytes(dst.l1 + off, src, size);
    after_write(&dst, dst.l1 + off, size);
  });
  fiber_of(k)->writes.add(s, s + size, file, line);
}

void api_noc_inline_write(tessel_kernel_ctx* k, uint64_t dst, uint32_t value, uint32_t be, uint32_t, const char* file,
                          uint32_t line) {
  const char* call = "noc_inline_dw_write";
  Endpoint d = resolve(k, call, dst, 4, false, file, line, "inline writes");
  if (d.offset % 4) fail(k, std::string(call) + ": address " + hex(d.offset) + " is not 4-byte aligned", file, line);
  if (__builtin_expect(d.host == nullptr, 0)) return; // memory tessel does not model
  land_writes_first(k);
  // Only the enabled bytes are written (one store when all are: a RISC may be polling the word).
  uint32_t mask = 0;
  for (uint32_t b = 0; b < 4; ++b)
    if (be & (1u << b)) mask |= 0xffu << (8 * b);
  const bool changed = ((load_word(d.host) ^ value) & mask) != 0;
  if (mask == 0xffffffffu) {
    store_word(d.host, value);
  } else {
    for (uint32_t b = 0; b < 4; ++b)
      if (be & (1u << b)) __atomic_store_n(d.host + b, uint8_t(value >> (8 * b)), __ATOMIC_RELEASE);
  }
  note_write(k, changed, call, file, line);
  after_write(d.core, d.host, 4);
}

void api_noc_barrier(tessel_kernel_ctx* k, uint32_t kind, uint32_t, const char* file, uint32_t line) {
  // Eager completion: the data has landed; the barrier ends the kernel's
  // obligation to wait for it. kind: 0 read, 1 write, 2 writes flushed, 3 atomic, 4 full.
  // Retiring transfers is progress; a barrier with nothing outstanding only looks.
  static const char* const kNames[] = {"noc_async_read_barrier", "noc_async_write_barrier", "noc_async_writes_flushed",
                                       "noc_async_atomic_barrier", "noc_async_full_barrier"};
  Fiber* f = fiber_of(k);
  const bool reads = kind == 0 || kind == 4, writes = kind == 1 || kind == 2 || kind == 4;
  note_write(k, (reads && f->reads.total) || (writes && f->writes.total), kNames[kind < 5 ? kind : 4], file, line);
  if (CheckedNoc* c = checked(k); __builtin_expect(c != nullptr, 0) && !f->pending.empty()) c->land(*f, reads, writes);
  if (reads) f->reads.clear();
  if (writes) f->writes.clear();
}

namespace {

// ---------------------------------------------------------------------------
// Semaphores

// The word as a pointer into this core's L1. An L1 address the host gave
// (a global semaphore's, a buffer's), cast to a pointer as kernels for
// silicon do, is an offset: it names the same word.
volatile uint32_t* check_local_word(tessel_kernel_ctx* k, const char* call, volatile uint32_t* p, const char* file,
                                    uint32_t line) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uintptr_t base = reinterpret_cast<uintptr_t>(k->l1_base);
  if (a >= 16 && a + 4 <= k->l1_size_bytes && !(a & 3)) return reinterpret_cast<volatile uint32_t*>(base + a);
  if (a < base || a + 4 > base + k->l1_size_bytes || (a & 3))
    fail(k,
         std::string(call) + ": pointer " + hex(a) +
             " is not an aligned word in this core's L1; use get_semaphore(id) or an L1 address cast to a pointer",
         file, line);
  return p;
}
} // namespace

void api_sem_wait(tessel_kernel_ctx* k, volatile uint32_t* sem, uint32_t value, uint32_t mode, const char* file,
                  uint32_t line) {
  core_of(k).chip->check_progress(fiber_of(k), mode ? "noc_semaphore_wait_min" : "noc_semaphore_wait", file, line);
  sem = check_local_word(k, mode ? "noc_semaphore_wait_min" : "noc_semaphore_wait", sem, file, line);
  Core& c = core_of(k);
  for (;;) {
    // Atomic: under the parallel policy another thread's core may increment it now.
    const uint32_t v = __atomic_load_n(sem, __ATOMIC_ACQUIRE);
    if (mode ? v >= value : v == value) return;
    Fiber* f = fiber_of(k);
    f->wait = {mode ? WaitKind::SemAtLeast : WaitKind::SemEqual, 0, 0, sem, value, file, line};
    c.chip->wait_memory(f);
  }
}

void api_sem_set(tessel_kernel_ctx* k, volatile uint32_t* sem, uint32_t value, const char* file, uint32_t line) {
  sem = check_local_word(k, "noc_semaphore_set", sem, file, line);
  land_writes_first(k);
  note_write(k, load_word(sem) != value, "noc_semaphore_set", file, line);
  store_word(sem, value);
  after_write(&core_of(k), sem, 4);
}

void api_sem_inc(tessel_kernel_ctx* k, uint64_t dst, uint32_t incr, uint32_t, const char* file, uint32_t line) {
  const char* call = "noc_semaphore_inc";
  Endpoint d = resolve(k, call, dst, 4, false, file, line, "atomic increments");
  if (d.offset % 4) fail(k, std::string(call) + ": address " + hex(d.offset) + " is not 4-byte aligned", file, line);
  if (__builtin_expect(d.host == nullptr, 0)) return; // memory tessel does not model
  land_writes_first(k);
  note_write(k, incr != 0, call, file, line);
  __atomic_fetch_add(reinterpret_cast<uint32_t*>(d.host), incr, __ATOMIC_RELEASE);
  after_write(d.core, d.host, 4);
}

void api_sem_set_multicast(tessel_kernel_ctx* k, uint32_t src_l1, uint64_t mcast, uint32_t num_dests, uint32_t loopback,
                           uint32_t, const char* file, uint32_t line) {
  const char* call = loopback ? "noc_semaphore_set_multicast_loopback_src" : "noc_semaphore_set_multicast";
  uint32_t s = local_l1(k, call, "source", src_l1, 4, file, line);
  land_writes_first(k);
  uint32_t value;
  std::memcpy(&value, core_of(k).l1 + s, 4);
  if (uint32_t(mcast & 3))
    fail(k, std::string(call) + ": address " + hex(mcast & TESSEL_L1_SLOT_MASK) + " is not 4-byte aligned", file, line);
  bool changed = false;
  for_each_mcast_dest(k, call, mcast, num_dests, loopback, 4, file, line, [&](Core& dst, uint32_t off) {
    changed |= load_word(dst.l1 + off) != value;
    store_word(dst.l1 + off, value);
    after_write(&dst, dst.l1 + off, 4);
  });
  note_write(k, changed, call, file, line);
}

uint32_t api_note_bad_noc_coord(tessel_kernel_ctx* k, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                                uint32_t multicast, const char* file, uint32_t line) {
  Fiber* f = fiber_of(k);
  const BadNocCoord made = {x0, y0, x1, y1, multicast != 0, file, line};
  const auto same = [&](const BadNocCoord& b) {
    return b.x0 == x0 && b.y0 == y0 && b.x1 == x1 && b.y1 == y1 && b.multicast == made.multicast && b.file == file &&
           b.line == line;
  };
  const uint32_t used = std::min(f->bad_coord_count, TESSEL_NOC_POISON_TOKENS);
  for (uint32_t i = 0; i < used; ++i)
    if (same(f->bad_coords[i])) return i + 1;
  // Once the table has wrapped, a token may name a newer address than its
  // own: the count goes on, and poisoned_error trusts no record after a wrap.
  const uint32_t slot = f->bad_coord_count++ % TESSEL_NOC_POISON_TOKENS;
  f->bad_coords[slot] = made;
  return slot + 1;
}

} // namespace tessel::sim
