// DesignSpec: a resolved runtime-sequence design (spec: runtime data
// movement; Python: tessel.iron), as the flow layer loads it. It is plain
// data, built once at resolve time: placed pools, the channels that move
// objects between them and the host, the workers' generated kernels, the
// host buffers a call binds, and the recorded command stream.
//
// Compile-time values (everything here but the sequence's registers) are
// fixed at load; per-call values are the bound buffers and the register
// values (DispatchTime scalars) given to LoadedDesign::call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/core_coord.hpp"
#include "tessel/flow/sequence.hpp"

namespace tessel::flow {

// depth objects of object_bytes on one core, with `segments` lock pairs
// (1, or one per part of a split / join staging object).
struct PoolSpec {
  std::string name; // "of_in, consumer 0 on (1,2)": for reports
  CoreCoord core;
  uint32_t depth = 2;
  uint32_t object_bytes = 0;
  uint32_t segments = 1;
};

// A worker's endpoint of a pool on its own core (handle index = position).
struct HandleSpec {
  uint32_t pool = 0;
  bool producer = false;
  std::string name; // "of_in.cons()": for reports
};

struct WorkerSpec {
  std::string name;
  CoreCoord core;
  std::string source;      // the generated kernel (includes tessel/iron.h)
  std::string source_name; // shown in messages
  std::vector<std::string> include_dirs;
  std::vector<HandleSpec> handles;
  std::vector<uint32_t> rtp_bytes;         // Buffers on this core, in order (runtime parameters among them)
  std::vector<uint32_t> barrier_initial;   // WorkerRuntimeBarriers (one lock each)
  std::vector<std::string> buffer_initial; // per Buffer: its bytes at load (empty: zeros)
};

// One end of a channel: a pool (and which of its segments), or the host.
struct ChannelEnd {
  int32_t pool = -1; // -1: the host (a shim DMA channel)
  std::vector<uint32_t> segments = {0};
  uint32_t offset_bytes = 0; // where in the pool's object this channel's bytes lie
};

struct ChannelSpec {
  std::string name; // "of_in fill (shim 0 MM2S 0)": for reports
  ChannelEnd source;
  std::vector<ChannelEnd> dests; // one, or several for a broadcast
  uint32_t move_bytes = 0;       // bytes per object moved
  int32_t shim_column = -1;      // host channels: the shim tile
  uint32_t shim_channel = 0;     // and its DMA channel
  // The producer's layout transform (IRON's dims_to_stream): the source is
  // read as (size, stride) dimensions in elements, outermost first, and the
  // elements go out in that order. Empty: as it lies.
  std::vector<std::pair<uint32_t, uint32_t>> stream_dims;
  uint32_t stream_element_bytes = 0;
  // The transform is the destinations' (IRON's dims_from_stream): element k
  // of the object lands at the pattern's k-th position.
  bool stream_scatter = false;
  // A forward to another object size (core to core only): the destination
  // objects hold dest_bytes, the source's move_bytes, and the stream of bytes
  // is cut anew. 0: one destination object per source object.
  uint32_t dest_bytes = 0;
};

// A host buffer a call binds (a Runtime fn_args tensor type).
struct ArgSpec {
  std::string name;
  uint64_t bytes = 0;
  uint32_t element_bytes = 1;
};

struct DesignSpec {
  std::string name;
  std::vector<PoolSpec> pools;
  std::vector<WorkerSpec> workers;
  std::vector<ChannelSpec> channels;
  std::vector<ArgSpec> args;
  Sequence sequence;
  uint32_t descriptors_per_shim = 16;
  uint32_t queue_depth = 4; // tasks per host channel queue, 1..4

  // Checks every reference and rule (ValidationError naming the part and
  // the rule); nothing is built by a spec that fails.
  void validate(CoreCoord grid) const;
};

} // namespace tessel::flow
