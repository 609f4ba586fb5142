#include "flow/layout.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>

#include "sim/chip.hpp"
#include "tessel/error.hpp"
#include "tessel/iron_abi.h"

namespace tessel::flow {

namespace {

constexpr uint32_t kAlign = 16;
uint32_t align16(uint64_t v) { return uint32_t((v + kAlign - 1) & ~uint64_t(kAlign - 1)); }
// Pool slots and the bounce buffer start on DRAM's 64-byte unit, so whole
// objects move between DRAM and L1 without a bounce.
constexpr uint32_t kSlotAlign = 64;
uint32_t align64(uint64_t v) { return uint32_t((v + kSlotAlign - 1) & ~uint64_t(kSlotAlign - 1)); }
uint32_t xy(uint32_t x, uint32_t y) { return (y << 8) | x; }

// Who writes and who reads one pool segment: a worker (on the pool's core)
// or a channel (on its mover's core).
struct Agent {
  int32_t worker = -1, channel = -1;
  bool set() const { return worker >= 0 || channel >= 0; }
};

std::string core_text(CoreCoord c) { return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + ")"; }

template <typename T>
void put(std::vector<uint8_t>& image, uint32_t addr, const T& value) {
  std::memcpy(image.data() + (addr - IRON_TABLE_L1), &value, sizeof(T));
}

} // namespace

Layout lay_out(const DesignSpec& spec, sim::Chip& chip, uint32_t l1_bytes) {
  Layout out;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> by_core;
  const auto core_of = [&](CoreCoord c) {
    auto [it, added] = by_core.try_emplace({c.y, c.x}, uint32_t(out.cores.size()));
    if (added) {
      CoreImage img;
      img.core = c;
      img.chip_index = c.y * chip.arch().grid_x + c.x;
      const sim::Core& sc = chip.core(img.chip_index);
      img.noc_xy = xy(sc.noc_x, sc.noc_y);
      out.cores.push_back(std::move(img));
    }
    return it->second;
  };

  // Writers and readers of every segment.
  std::vector<std::vector<Agent>> writer(spec.pools.size()), reader(spec.pools.size());
  for (size_t p = 0; p < spec.pools.size(); ++p) {
    writer[p].resize(spec.pools[p].segments);
    reader[p].resize(spec.pools[p].segments);
  }
  const auto claim = [&](std::vector<Agent>& slot, uint32_t pool, uint32_t seg, Agent who, const char* role) {
    if (slot[seg].set())
      throw ValidationError("design '" + spec.name + "': pool '" + spec.pools[pool].name + "' segment " +
                            std::to_string(seg) + " has two " + role + "s");
    slot[seg] = who;
  };
  for (size_t w = 0; w < spec.workers.size(); ++w)
    for (const HandleSpec& h : spec.workers[w].handles)
      for (uint32_t s = 0; s < spec.pools[h.pool].segments; ++s)
        claim(h.producer ? writer[h.pool] : reader[h.pool], h.pool, s, Agent{int32_t(w), -1},
              h.producer ? "writer" : "reader");
  for (size_t c = 0; c < spec.channels.size(); ++c) {
    const ChannelSpec& ch = spec.channels[c];
    if (ch.source.pool >= 0)
      for (uint32_t s : ch.source.segments)
        claim(reader[ch.source.pool], ch.source.pool, s, Agent{-1, int32_t(c)}, "reader");
    for (const ChannelEnd& d : ch.dests)
      if (d.pool >= 0)
        for (uint32_t s : d.segments)
          claim(writer[d.pool], d.pool, s, Agent{-1, int32_t(c)}, "writer");
  }
  for (size_t p = 0; p < spec.pools.size(); ++p)
    for (uint32_t s = 0; s < spec.pools[p].segments; ++s)
      if (!writer[p][s].set() || !reader[p][s].set())
        throw ValidationError("design '" + spec.name + "': pool '" + spec.pools[p].name + "' segment " +
                              std::to_string(s) + " has no " + (writer[p][s].set() ? "reader" : "writer"));

  // Cores: workers, then movers.
  for (size_t w = 0; w < spec.workers.size(); ++w) {
    const uint32_t i = core_of(spec.workers[w].core);
    if (out.cores[i].worker >= 0)
      throw ValidationError("design '" + spec.name + "': workers '" + spec.workers[out.cores[i].worker].name +
                            "' and '" + spec.workers[w].name + "' are both placed on core " +
                            core_text(spec.workers[w].core));
    out.cores[i].worker = int32_t(w);
    out.worker_core.push_back(i);
  }
  for (size_t c = 0; c < spec.channels.size(); ++c) {
    const ChannelSpec& ch = spec.channels[c];
    const int32_t home = ch.source.pool >= 0 ? ch.source.pool : ch.dests.at(0).pool;
    const uint32_t i = core_of(spec.pools[home].core);
    out.cores[i].channels.push_back(uint32_t(c));
    out.channel_core.push_back(i);
  }
  for (const PoolSpec& p : spec.pools)
    core_of(p.core);

  // Addresses, core by core: header, handles, channels, locks, barriers,
  // RTP list and buffers, bounce buffer, pools.
  std::vector<uint32_t> next(out.cores.size());
  std::vector<uint32_t> pool_addr(spec.pools.size());
  uint32_t bounce_bytes = 64;
  for (const ChannelSpec& ch : spec.channels)
    bounce_bytes = std::max(bounce_bytes, align16(ch.move_bytes) + 64);
  out.channel_addr.resize(spec.channels.size());
  out.stream_buffer.assign(spec.channels.size(), 0);
  for (size_t i = 0; i < out.cores.size(); ++i) {
    CoreImage& img = out.cores[i];
    uint32_t a = IRON_TABLE_L1 + align16(sizeof(iron_core_table));
    img.handles_addr = a;
    if (img.worker >= 0) a += align16(spec.workers[img.worker].handles.size() * sizeof(iron_handle));
    img.channels_addr = a;
    for (uint32_t c : img.channels) { // an array: the mover indexes it
      out.channel_addr[c] = a;
      a += uint32_t(sizeof(iron_channel));
    }
    next[i] = a;
  }
  // Locks: `free` with the writer, `full` with the reader.
  const auto agent_core = [&](Agent who) {
    return who.worker >= 0 ? out.worker_core[who.worker] : out.channel_core[who.channel];
  };
  std::vector<std::vector<uint32_t>> free_lock(spec.pools.size()), full_lock(spec.pools.size());
  for (size_t p = 0; p < spec.pools.size(); ++p)
    for (uint32_t s = 0; s < spec.pools[p].segments; ++s) {
      const uint32_t wc = agent_core(writer[p][s]), rc = agent_core(reader[p][s]);
      free_lock[p].push_back(next[wc]);
      out.locks.push_back({wc, next[wc], uint32_t(p), s, true, spec.pools[p].depth});
      next[wc] += 4;
      full_lock[p].push_back(next[rc]);
      out.locks.push_back({rc, next[rc], uint32_t(p), s, false, 0});
      next[rc] += 4;
    }
  for (size_t i = 0; i < out.cores.size(); ++i) {
    CoreImage& img = out.cores[i];
    // A worker's barrier words, the list of its RTP buffers' addresses, the buffers.
    uint32_t a = align16(next[i]);
    img.barriers_addr = a;
    const WorkerSpec* w = img.worker >= 0 ? &spec.workers[img.worker] : nullptr;
    if (w) a += align16(4 * w->barrier_initial.size());
    const uint32_t rtp_list = a;
    if (w) {
      a += align16(4 * w->rtp_bytes.size());
      for (uint32_t bytes : w->rtp_bytes) {
        img.rtp_addrs.push_back(a);
        a += align16(bytes);
      }
    }
    a = align64(a);
    const uint32_t scratch = a;
    if (!img.channels.empty()) a += align64(bounce_bytes);
    for (uint32_t c : img.channels) // where a channel with a layout transform gathers its object
      if (!spec.channels[c].stream_dims.empty()) {
        out.stream_buffer[c] = a;
        a += align64(spec.channels[c].move_bytes);
      }
    for (size_t p = 0; p < spec.pools.size(); ++p)
      if (spec.pools[p].core == img.core) {
        pool_addr[p] = a;
        a += align64(spec.pools[p].object_bytes) * spec.pools[p].depth;
      }
    if (a > l1_bytes) {
      std::string pools;
      for (const PoolSpec& p : spec.pools)
        if (p.core == img.core)
          pools += (pools.empty() ? "" : ", ") + p.name + " (" + std::to_string(p.depth) + " x " +
                   std::to_string(p.object_bytes) + " B)";
      throw ValidationError("design '" + spec.name + "': core " + core_text(img.core) + " needs " +
                            std::to_string(a - IRON_TABLE_L1) + " bytes of L1 from " + std::to_string(IRON_TABLE_L1) +
                            " but has " + std::to_string(l1_bytes - IRON_TABLE_L1) +
                            (pools.empty() ? "" : "; its pools: " + pools));
    }
    out.region_bytes = std::max(out.region_bytes, a - IRON_TABLE_L1);
    img.table.assign(a - IRON_TABLE_L1, 0);
    iron_core_table t{};
    t.magic = IRON_TABLE_MAGIC;
    t.handle_count = img.worker >= 0 ? uint32_t(spec.workers[img.worker].handles.size()) : 0;
    t.channel_count = uint32_t(img.channels.size());
    t.handles = img.handles_addr;
    t.channels = img.channels_addr;
    t.barriers = img.barriers_addr;
    t.barrier_count = img.worker >= 0 ? uint32_t(spec.workers[img.worker].barrier_initial.size()) : 0;
    t.rtps = rtp_list;
    t.rtp_count = uint32_t(img.rtp_addrs.size());
    t.scratch = img.channels.empty() ? 0 : scratch;
    t.scratch_bytes = img.channels.empty() ? 0 : align16(bounce_bytes);
    put(img.table, IRON_TABLE_L1, t);
    for (size_t r = 0; r < img.rtp_addrs.size(); ++r)
      put(img.table, rtp_list + uint32_t(4 * r), img.rtp_addrs[r]);
    if (img.worker >= 0) {
      const WorkerSpec& w = spec.workers[img.worker];
      for (size_t b = 0; b < w.barrier_initial.size(); ++b)
        put(img.table, img.barriers_addr + uint32_t(4 * b), w.barrier_initial[b]);
      for (size_t b = 0; b < w.buffer_initial.size(); ++b)
        std::memcpy(img.table.data() + (img.rtp_addrs[b] - IRON_TABLE_L1), w.buffer_initial[b].data(),
                    w.buffer_initial[b].size());
    }
  }
  for (const LockInfo& l : out.locks)
    put(out.cores[l.core].table, l.addr, l.initial);

  const uint32_t bell_offset = uint32_t(offsetof(iron_core_table, doorbell));
  // The signal that gives a lock: its core, and the bell of a channel that waits on it.
  const auto signal = [&](uint32_t lock_addr, Agent waiter) {
    const CoreImage& c = out.cores[agent_core(waiter)];
    iron_signal s{c.noc_xy, lock_addr, c.noc_xy, IRON_NO_BELL};
    if (waiter.channel >= 0) s.bell_addr = IRON_TABLE_L1 + bell_offset;
    return s;
  };
  for (size_t w = 0; w < spec.workers.size(); ++w) {
    const WorkerSpec& ws = spec.workers[w];
    CoreImage& img = out.cores[out.worker_core[w]];
    for (size_t h = 0; h < ws.handles.size(); ++h) {
      const HandleSpec& hs = ws.handles[h];
      const PoolSpec& p = spec.pools[hs.pool];
      iron_handle hd{};
      hd.slots = pool_addr[hs.pool];
      hd.depth = p.depth;
      hd.slot_bytes = align64(p.object_bytes);
      hd.wait_lock = hs.producer ? free_lock[hs.pool][0] : full_lock[hs.pool][0];
      hd.signal = hs.producer ? signal(full_lock[hs.pool][0], reader[hs.pool][0])
                              : signal(free_lock[hs.pool][0], writer[hs.pool][0]);
      hd.producer = hs.producer;
      hd.fifo = hs.pool;
      put(img.table, img.handles_addr + uint32_t(h * sizeof(iron_handle)), hd);
    }
  }
  const auto end_of = [&](const ChannelEnd& e, bool source) {
    iron_end end{};
    const PoolSpec& p = spec.pools[e.pool];
    end.noc_xy = out.cores[by_core.at({p.core.y, p.core.x})].noc_xy;
    end.slots = pool_addr[e.pool];
    end.depth = p.depth;
    end.slot_bytes = align64(p.object_bytes);
    end.offset_bytes = e.offset_bytes;
    end.lock_count = uint32_t(e.segments.size());
    for (size_t i = 0; i < e.segments.size(); ++i) {
      const uint32_t s = e.segments[i];
      end.locks[i] = source ? full_lock[e.pool][s] : free_lock[e.pool][s];
      end.gives[i] =
          source ? signal(free_lock[e.pool][s], writer[e.pool][s]) : signal(full_lock[e.pool][s], reader[e.pool][s]);
    }
    return end;
  };
  for (size_t c = 0; c < spec.channels.size(); ++c) {
    const ChannelSpec& ch = spec.channels[c];
    iron_channel chan{};
    const bool host_source = ch.source.pool < 0;
    const bool host_dest = ch.dests.size() == 1 && ch.dests[0].pool < 0;
    chan.kind =
        host_source ? IRON_CHANNEL_HOST_TO_POOLS : (host_dest ? IRON_CHANNEL_POOL_TO_HOST : IRON_CHANNEL_POOL_TO_POOLS);
    chan.move_bytes = ch.move_bytes;
    chan.fifo = uint32_t(c);
    chan.stream_dims = uint32_t(ch.stream_dims.size());
    chan.stream_element_bytes = ch.stream_element_bytes;
    for (size_t d = 0; d < ch.stream_dims.size(); ++d) {
      chan.stream_sizes[d] = ch.stream_dims[d].first;
      chan.stream_strides[d] = ch.stream_dims[d].second;
    }
    chan.stream_buffer = out.stream_buffer[c];
    chan.stream_scatter = ch.stream_scatter ? 1 : 0;
    chan.dest_bytes = ch.dest_bytes == ch.move_bytes ? 0 : ch.dest_bytes;
    if (!host_source) chan.source = end_of(ch.source, true);
    if (!host_dest) {
      chan.dest_count = uint32_t(ch.dests.size());
      for (size_t d = 0; d < ch.dests.size(); ++d)
        chan.dests[d] = end_of(ch.dests[d], false);
    }
    put(out.cores[out.channel_core[c]].table, out.channel_addr[c], chan);
  }
  return out;
}

} // namespace tessel::flow
