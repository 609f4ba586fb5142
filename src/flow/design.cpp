#include "tessel/flow/design.hpp"

#include "tessel/error.hpp"
#include "tessel/iron_abi.h"

namespace tessel::flow {

namespace {

[[noreturn]] void bad(const DesignSpec& d, const std::string& what) {
  throw ValidationError("design '" + d.name + "': " + what);
}

bool in_grid(CoreCoord c, CoreCoord grid) { return c.x < grid.x && c.y < grid.y; }

void check_end(const DesignSpec& d, const ChannelSpec& ch, const ChannelEnd& e, uint32_t bytes, const char* role) {
  if (e.pool < 0) return;
  if (size_t(e.pool) >= d.pools.size()) bad(d, "channel '" + ch.name + "': its " + role + " names no pool");
  const PoolSpec& p = d.pools[e.pool];
  if (e.segments.empty() || e.segments.size() > IRON_MAX_SEGMENTS)
    bad(d, "channel '" + ch.name + "': its " + role + " takes 1 to " + std::to_string(IRON_MAX_SEGMENTS) +
               " segments of pool '" + p.name + "'");
  for (uint32_t s : e.segments)
    if (s >= p.segments) bad(d, "channel '" + ch.name + "': pool '" + p.name + "' has no segment " + std::to_string(s));
  if (uint64_t(e.offset_bytes) + bytes > p.object_bytes)
    bad(d, "channel '" + ch.name + "': " + std::to_string(bytes) + " bytes at offset " +
               std::to_string(e.offset_bytes) + " do not fit the " + std::to_string(p.object_bytes) +
               "-byte objects of pool '" + p.name + "'");
}

} // namespace

void DesignSpec::validate(CoreCoord grid) const {
  if (queue_depth < 1 || queue_depth > IRON_QUEUE_DEPTH)
    bad(*this, "queue depth " + std::to_string(queue_depth) + " is not 1 to " + std::to_string(IRON_QUEUE_DEPTH));
  if (descriptors_per_shim < 1) bad(*this, "shim tiles need at least one descriptor");
  for (const PoolSpec& p : pools) {
    if (!in_grid(p.core, grid))
      bad(*this, "pool '" + p.name + "' is on core (" + std::to_string(p.core.x) + "," + std::to_string(p.core.y) +
                     "), outside the " + std::to_string(grid.x) + " x " + std::to_string(grid.y) + " grid");
    if (p.depth < 1 || p.object_bytes < 1) bad(*this, "pool '" + p.name + "' needs a depth and an object size");
    if (p.segments < 1 || p.segments > IRON_MAX_SEGMENTS)
      bad(*this, "pool '" + p.name + "' has " + std::to_string(p.segments) + " segments; 1 to " +
                     std::to_string(IRON_MAX_SEGMENTS) + " are allowed");
  }
  for (const WorkerSpec& w : workers) {
    if (!in_grid(w.core, grid)) bad(*this, "worker '" + w.name + "' is placed outside the grid");
    for (const HandleSpec& h : w.handles) {
      if (h.pool >= pools.size()) bad(*this, "worker '" + w.name + "': handle '" + h.name + "' names no pool");
      if (!(pools[h.pool].core == w.core))
        bad(*this, "worker '" + w.name + "': handle '" + h.name + "' is on pool '" + pools[h.pool].name +
                       "', which is not on the worker's core");
      if (pools[h.pool].segments != 1)
        bad(*this, "worker '" + w.name + "': pool '" + pools[h.pool].name + "' is a staging pool");
    }
    if (!w.buffer_initial.empty() && w.buffer_initial.size() != w.rtp_bytes.size())
      bad(*this, "worker '" + w.name + "': " + std::to_string(w.buffer_initial.size()) + " initial values for " +
                     std::to_string(w.rtp_bytes.size()) + " Buffers");
    for (size_t b = 0; b < w.buffer_initial.size(); ++b)
      if (!w.buffer_initial[b].empty() && w.buffer_initial[b].size() != w.rtp_bytes[b])
        bad(*this, "worker '" + w.name + "': Buffer " + std::to_string(b) + " has " + std::to_string(w.rtp_bytes[b]) +
                       " bytes but an initial value of " + std::to_string(w.buffer_initial[b].size()));
    for (uint32_t v : w.barrier_initial)
      if (v > 63)
        bad(*this,
            "worker '" + w.name + "': a WorkerRuntimeBarrier starts at " + std::to_string(v) + "; values are 0 to 63");
  }
  for (const ChannelSpec& ch : channels) {
    if (ch.move_bytes < 1) bad(*this, "channel '" + ch.name + "' moves no bytes");
    if (ch.dests.empty() || ch.dests.size() > IRON_MAX_DESTS)
      bad(*this, "channel '" + ch.name + "' needs 1 to " + std::to_string(IRON_MAX_DESTS) + " destinations");
    const bool host_source = ch.source.pool < 0;
    bool host_dest = false;
    for (const ChannelEnd& e : ch.dests)
      host_dest = host_dest || e.pool < 0;
    if (host_dest && ch.dests.size() != 1) bad(*this, "channel '" + ch.name + "': a drain has one destination");
    if (host_source && host_dest) bad(*this, "channel '" + ch.name + "' goes from the host to the host");
    if ((host_source || host_dest) && (ch.shim_column < 0 || uint32_t(ch.shim_column) >= grid.x))
      bad(*this,
          "channel '" + ch.name + "' has a host end but no shim tile column in 0.." + std::to_string(grid.x - 1));
    check_end(*this, ch, ch.source, ch.move_bytes, "source");
    if (ch.dest_bytes && (host_source || host_dest))
      bad(*this, "channel '" + ch.name + "': a re-chunking move (" + std::to_string(ch.move_bytes) +
                     "-byte objects into " + std::to_string(ch.dest_bytes) + "-byte ones) goes core to core");
    if (!ch.stream_dims.empty()) {
      const std::string dims = ch.stream_scatter ? "dims_from_stream" : "dims_to_stream";
      if (host_source && !ch.stream_scatter)
        bad(*this, "channel '" + ch.name + "': a layout transform (dims_to_stream) on a fill; give the fill a tap");
      if (host_dest && ch.stream_scatter)
        bad(*this, "channel '" + ch.name +
                       "': a destination's layout transform (dims_from_stream) on a drain; give "
                       "the drain a tap");
      if (ch.stream_scatter && ch.dest_bytes)
        bad(*this, "channel '" + ch.name +
                       "': a destination's layout transform (dims_from_stream) on a re-chunking "
                       "forward is not supported");
      if (ch.stream_dims.size() > IRON_TAP_DIMS)
        bad(*this, "channel '" + ch.name + "': " + dims + " has " + std::to_string(ch.stream_dims.size()) +
                       " dimensions; at most " + std::to_string(IRON_TAP_DIMS) + " (a DMA descriptor's)");
      const uint32_t eb = ch.stream_element_bytes;
      if (eb == 0 || ch.move_bytes % eb)
        bad(*this, "channel '" + ch.name + "': " + dims + " needs the object's element size");
      uint64_t count = 1, last = 0;
      for (const auto& [size, stride] : ch.stream_dims) {
        if (size == 0) bad(*this, "channel '" + ch.name + "': a " + dims + " size is 0");
        count *= size;
        last += uint64_t(size - 1) * stride;
      }
      const uint64_t elements = ch.move_bytes / eb;
      if (count != elements)
        bad(*this, "channel '" + ch.name + "': " + dims + " streams " + std::to_string(count) +
                       " elements, the object holds " + std::to_string(elements));
      if (last >= elements)
        bad(*this, "channel '" + ch.name + "': " + dims + " reaches element " + std::to_string(last) +
                       " of an object of " + std::to_string(elements));
    }
    for (const ChannelEnd& e : ch.dests)
      check_end(*this, ch, e, ch.dest_bytes ? ch.dest_bytes : ch.move_bytes, "destination");
  }
  for (const ArgSpec& a : args)
    if (a.bytes == 0 || a.element_bytes == 0 || a.bytes % a.element_bytes || a.bytes > 0xffffffffull)
      bad(*this, "host buffer '" + a.name + "' needs a whole number of elements and at most 4 GiB");

  std::vector<uint32_t> loops;
  for (size_t i = 0; i < sequence.ops.size(); ++i) {
    const Op& op = sequence.ops[i];
    const std::string at = "sequence op " + std::to_string(i) + " (line " + std::to_string(op.line) + ")";
    for (const auto& [reg, coeff] : op.value.terms)
      if (reg >= sequence.registers)
        bad(*this, at + " uses register " + std::to_string(reg) + " of " + std::to_string(sequence.registers));
    switch (op.kind) {
    case OpKind::Push: {
      if (op.a >= sequence.slots) bad(*this, at + " names task slot " + std::to_string(op.a));
      if (op.b >= channels.size()) bad(*this, at + " names no channel");
      const ChannelSpec& ch = channels[op.b];
      if (ch.source.pool >= 0 && ch.dests[0].pool >= 0) bad(*this, at + ": channel '" + ch.name + "' has no host end");
      if (op.c >= args.size()) bad(*this, at + " names no host buffer");
      for (uint32_t s : op.sizes)
        if (s == 0) bad(*this, at + ": a task's sizes are at least 1");
      break;
    }
    case OpKind::Await:
    case OpKind::Free:
      if (op.a >= sequence.slots) bad(*this, at + " names task slot " + std::to_string(op.a));
      break;
    case OpKind::Copy:
      if (op.a >= sequence.slots || op.b >= sequence.slots) bad(*this, at + " names a task slot out of range");
      break;
    case OpKind::WriteRtp:
      if (op.a >= workers.size() || op.b >= workers[op.a].rtp_bytes.size() ||
          uint64_t(op.c) * 4 + 4 > workers[op.a].rtp_bytes[op.b])
        bad(*this, at + " writes outside the RTP buffers");
      break;
    case OpKind::SetBarrier:
      if (op.a >= workers.size() || op.b >= workers[op.a].barrier_initial.size()) bad(*this, at + " names no barrier");
      break;
    case OpKind::LoopBegin:
      if (op.a >= sequence.registers || op.b >= sequence.ops.size() || sequence.ops[op.b].kind != OpKind::LoopEnd ||
          sequence.ops[op.b].b != i)
        bad(*this, at + ": a loop without its end");
      loops.push_back(uint32_t(i));
      break;
    case OpKind::LoopEnd:
      if (loops.empty() || loops.back() != op.b) bad(*this, at + ": a loop end without its loop");
      loops.pop_back();
      break;
    }
  }
  if (!loops.empty()) bad(*this, "the sequence ends inside a loop");
  if (sequence.parameters > sequence.registers || sequence.parameter_names.size() != sequence.parameters)
    bad(*this, "the sequence's parameters do not match its registers");
}

} // namespace tessel::flow
