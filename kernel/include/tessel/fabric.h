// TT-Fabric's worker-side client API as TT-Metalium kernels spell it (the
// headers under tt_metal/fabric/hw/inc/ and fabric/fabric_edm_packet_header.hpp
// include this): packet headers, the worker's connection to its router
// (WorkerToFabricEdmSender), the connection manager, the header pool, the
// route setters and the linear (1D) and mesh (2D) send helpers.
//
// Everything reaches the simulator through tessel/fabric_abi.h; a call's
// site (file:line) is the kernel's, for reports. Connections are simulated,
// not routers: a slot is always free, and a packet takes effect at its
// destination when its header is sent (docs/multichip.md).
#pragma once

#include <initializer_list>

#include "dataflow_api.h"
#include "tessel/fabric_abi.h"
#include "tessel/semaphore_object.h"

namespace tessel_detail {

inline const tessel_fabric_api* fabric(tessel_kernel_ctx* k, const char* file, uint32_t line) {
  const void* table = k->api->extension(k, TESSEL_EXTENSION_FABRIC);
  if (!table)
    k->api->fail(k,
                 "the fabric is not available: this device is not a chip of a mesh (open a MeshDevice, with "
                 "SetFabricConfig called before it)",
                 file, line);
  return static_cast<const tessel_fabric_api*>(table);
}

// Runtime-argument words of one connection (append_fabric_connection_rt_args):
// the router's Ethernet channel (direction * 4 + link) and two semaphore ids.
inline constexpr uint32_t kFabricConnectionWords = 3;
inline constexpr uint32_t kFabricLinksPerDirection = 4;

// The L1 of each data-movement RISC's packet-header pool, in the core's
// reserved base (sim/l1_layout.hpp): 3 KiB each.
inline constexpr uint32_t kHeaderPoolOffset = 0x2800;
inline constexpr uint32_t kHeaderPoolBytes = 0xC00;

} // namespace tessel_detail

namespace tt::tt_fabric {

enum NocSendType : uint8_t {
  NOC_UNICAST_WRITE = 0,
  NOC_UNICAST_INLINE_WRITE = 1,
  NOC_UNICAST_ATOMIC_INC = 2,
  NOC_FUSED_UNICAST_ATOMIC_INC = 3,
  NOC_UNICAST_SCATTER_WRITE = 4,
};
enum ChipSendType : uint8_t { CHIP_UNICAST = 0, CHIP_MULTICAST = 1 };
enum eth_chan_directions : uint8_t { EAST = 0, WEST = 1, NORTH = 2, SOUTH = 3, Z = 4, COUNT = 5 };

inline constexpr uint32_t NOC_SCATTER_WRITE_MAX_CHUNKS = TESSEL_FABRIC_SCATTER_CHUNKS;

struct MulticastRoutingCommandHeader {
  uint8_t start_distance_in_hops;
  uint8_t range_hops;
};
struct NocUnicastCommandHeader {
  uint64_t noc_address;
};
struct NocUnicastInlineWriteCommandHeader {
  uint64_t noc_address;
  uint32_t value;
};
struct NocUnicastAtomicIncCommandHeader {
  NocUnicastAtomicIncCommandHeader(uint64_t noc_address, uint32_t val, bool flush = true)
      : noc_address(noc_address), val(val), flush(flush) {}
  // The older spelling, with a wrap boundary (unused, as on silicon).
  NocUnicastAtomicIncCommandHeader(uint64_t noc_address, uint32_t val, uint16_t, bool flush)
      : noc_address(noc_address), val(val), flush(flush) {}
  uint64_t noc_address;
  uint32_t val;
  bool flush;
};
struct NocUnicastAtomicIncFusedCommandHeader {
  NocUnicastAtomicIncFusedCommandHeader(uint64_t noc_address, uint64_t semaphore_noc_address, uint32_t val,
                                        bool flush = true)
      : noc_address(noc_address), semaphore_noc_address(semaphore_noc_address), val(val), flush(flush) {}
  NocUnicastAtomicIncFusedCommandHeader(uint64_t noc_address, uint64_t semaphore_noc_address, uint32_t val, uint16_t,
                                        bool flush)
      : noc_address(noc_address), semaphore_noc_address(semaphore_noc_address), val(val), flush(flush) {}
  uint64_t noc_address;
  uint64_t semaphore_noc_address;
  uint32_t val;
  bool flush;
};
struct NocUnicastScatterCommandHeader {
  NocUnicastScatterCommandHeader(std::initializer_list<uint64_t> addresses, std::initializer_list<uint16_t> sizes = {}) {
    chunk_count = uint8_t(addresses.size());
    uint32_t i = 0;
    for (uint64_t a : addresses)
      if (i < NOC_SCATTER_WRITE_MAX_CHUNKS) noc_address[i++] = a;
    i = 0;
    for (uint16_t s : sizes)
      if (i + 1 < NOC_SCATTER_WRITE_MAX_CHUNKS) chunk_size[i++] = s;
  }
  NocUnicastScatterCommandHeader(const uint64_t* addresses, const uint16_t* sizes, uint8_t n) : chunk_count(n) {
    for (uint32_t i = 0; i < n && i < NOC_SCATTER_WRITE_MAX_CHUNKS; ++i) {
      noc_address[i] = addresses[i];
      if (i + 1 < n) chunk_size[i] = sizes[i];
    }
  }
  uint64_t noc_address[NOC_SCATTER_WRITE_MAX_CHUNKS] = {};
  uint16_t chunk_size[NOC_SCATTER_WRITE_MAX_CHUNKS - 1] = {};
  uint8_t chunk_count = 0;
  uint8_t chunk_encoding = 0;
};

// The common part of every header type: tessel's 64-byte layout
// (tessel_fabric_header), set through TT-Fabric's methods. Each method has a
// volatile form (headers from the pool are volatile) and a plain one.
template <typename Derived, uint32_t Bytes>
struct PacketHeaderBase {
  tessel_fabric_header fields;
  uint8_t padding[Bytes - sizeof(tessel_fabric_header)];

#define TESSEL_FABRIC_HEADER_METHOD(name, params, body)                                                                \
  Derived& name params {                                                                                               \
    tessel_fabric_header& h = fields;                                                                                  \
    body;                                                                                                              \
    return *static_cast<Derived*>(this);                                                                               \
  }                                                                                                                    \
  volatile Derived* name params volatile {                                                                             \
    tessel_fabric_header& h = const_cast<tessel_fabric_header&>(fields);                                               \
    body;                                                                                                              \
    __atomic_signal_fence(__ATOMIC_SEQ_CST);                                                                           \
    return static_cast<volatile Derived*>(this);                                                                       \
  }

  TESSEL_FABRIC_HEADER_METHOD(to_chip_unicast, (uint8_t distance_in_hops), {
    h.route = TESSEL_FABRIC_ROUTE_HOPS;
    h.start_hops = distance_in_hops;
    h.range_hops = 1;
  })
  TESSEL_FABRIC_HEADER_METHOD(to_chip_multicast, (const MulticastRoutingCommandHeader& mcast), {
    h.route = TESSEL_FABRIC_ROUTE_HOPS;
    h.start_hops = mcast.start_distance_in_hops;
    h.range_hops = mcast.range_hops ? mcast.range_hops : 1;
  })
  TESSEL_FABRIC_HEADER_METHOD(to_noc_unicast_write, (const NocUnicastCommandHeader& cmd, size_t payload_size_bytes), {
    h.noc_send_type = TESSEL_FABRIC_NOC_UNICAST_WRITE;
    h.noc_address[0] = cmd.noc_address;
    h.payload_size_bytes = uint16_t(payload_size_bytes);
  })
  TESSEL_FABRIC_HEADER_METHOD(to_noc_unicast_inline_write, (const NocUnicastInlineWriteCommandHeader& cmd), {
    h.noc_send_type = TESSEL_FABRIC_NOC_UNICAST_INLINE_WRITE;
    h.noc_address[0] = cmd.noc_address;
    h.value = cmd.value;
    h.payload_size_bytes = 0;
  })
  TESSEL_FABRIC_HEADER_METHOD(to_noc_unicast_atomic_inc, (const NocUnicastAtomicIncCommandHeader& cmd), {
    h.noc_send_type = TESSEL_FABRIC_NOC_UNICAST_ATOMIC_INC;
    h.noc_address[0] = cmd.noc_address;
    h.value = cmd.val;
    h.flush = cmd.flush;
    h.payload_size_bytes = 0;
  })
  TESSEL_FABRIC_HEADER_METHOD(to_noc_fused_unicast_write_atomic_inc,
                              (const NocUnicastAtomicIncFusedCommandHeader& cmd, size_t payload_size_bytes), {
                                h.noc_send_type = TESSEL_FABRIC_NOC_FUSED_UNICAST_ATOMIC_INC;
                                h.noc_address[0] = cmd.noc_address;
                                h.noc_address[1] = cmd.semaphore_noc_address;
                                h.value = cmd.val;
                                h.flush = cmd.flush;
                                h.payload_size_bytes = uint16_t(payload_size_bytes);
                              })
  TESSEL_FABRIC_HEADER_METHOD(to_noc_unicast_scatter_write,
                              (const NocUnicastScatterCommandHeader& cmd, size_t payload_size_bytes), {
                                h.noc_send_type = TESSEL_FABRIC_NOC_UNICAST_SCATTER_WRITE;
                                h.scatter_chunks = cmd.chunk_count;
                                for (uint32_t i = 0; i < NOC_SCATTER_WRITE_MAX_CHUNKS; ++i)
                                  h.noc_address[i] = cmd.noc_address[i];
                                for (uint32_t i = 0; i + 1 < NOC_SCATTER_WRITE_MAX_CHUNKS; ++i)
                                  h.chunk_size[i] = cmd.chunk_size[i];
                                h.payload_size_bytes = uint16_t(payload_size_bytes);
                              })
  TESSEL_FABRIC_HEADER_METHOD(set_payload_size_bytes, (uint16_t bytes), { h.payload_size_bytes = bytes; })
  TESSEL_FABRIC_HEADER_METHOD(set_noc_send_type, (NocSendType type), { h.noc_send_type = uint8_t(type) + 1; })
  TESSEL_FABRIC_HEADER_METHOD(set_fused_unicast_write_atomic_inc_write_noc_address, (uint64_t address),
                              { h.noc_address[0] = address; })
  TESSEL_FABRIC_HEADER_METHOD(set_fused_unicast_write_atomic_inc_value, (uint32_t value), { h.value = value; })
#undef TESSEL_FABRIC_HEADER_METHOD

  size_t get_payload_size_excluding_header() const volatile { return fields.payload_size_bytes; }
  size_t get_payload_size_including_header() const volatile { return fields.payload_size_bytes + Bytes; }
};

// 1D headers (hops along the connection's direction) and the 2D header
// (a destination chip), at their silicon sizes' nearest tessel layout.
struct PacketHeader : PacketHeaderBase<PacketHeader, 64> {};
struct LowLatencyPacketHeader : PacketHeaderBase<LowLatencyPacketHeader, 64> {};
struct HybridMeshPacketHeader : PacketHeaderBase<HybridMeshPacketHeader, 96> {};
static_assert(sizeof(PacketHeader) == 64 && sizeof(HybridMeshPacketHeader) == 96, "fabric header sizes");

} // namespace tt::tt_fabric

#if defined(FABRIC_2D)
#define PACKET_HEADER_TYPE tt::tt_fabric::HybridMeshPacketHeader
#else
#define PACKET_HEADER_TYPE tt::tt_fabric::LowLatencyPacketHeader
#endif

namespace tt::tt_fabric {

// ---- The worker's connection to its router ----------------------------------

template <bool I_USE_STREAM_REG_FOR_CREDIT_RECEIVE, uint8_t EDM_NUM_BUFFER_SLOTS = 0>
struct WorkerToFabricEdmSenderImpl {
  tessel_fabric_connection connection = {};

  template <ProgrammableCoreType my_core_type>
  static WorkerToFabricEdmSenderImpl build_from_args(std::size_t& arg_idx, TESSEL_SITE_PARAMS) {
    WorkerToFabricEdmSenderImpl s;
    tessel_kernel_ctx* k = tessel_ctx();
    const uint32_t channel = get_arg_val<uint32_t>(int(arg_idx), TESSEL_SITE);
    arg_idx += tessel_detail::kFabricConnectionWords;
    const tessel_fabric_api* fabric = tessel_detail::fabric(k, TESSEL_SITE);
    if (channel >= 4 * tessel_detail::kFabricLinksPerDirection)
      k->api->fail(k,
                   "WorkerToFabricEdmSender::build_from_args: the runtime argument read as the router's Ethernet "
                   "channel is out of range: are the arguments append_fabric_connection_rt_args gave at this index?",
                   TESSEL_SITE);
    s.connection.magic = TESSEL_FABRIC_CONNECTION_MAGIC;
    s.connection.src_chip = fabric->chip_id(k);
    s.connection.mesh_id = fabric->mesh_id(k);
    s.connection.direction = channel / tessel_detail::kFabricLinksPerDirection;
    s.connection.link = channel % tessel_detail::kFabricLinksPerDirection;
    return s;
  }

  template <bool SEND_CREDIT_ADDR = false, bool posted = false, uint8_t WORKER_HANDSHAKE_NOC = 0>
  void open(TESSEL_SITE_PARAMS) {
    tessel_kernel_ctx* k = tessel_ctx();
    tessel_detail::fabric(k, TESSEL_SITE)->open(k, &connection, TESSEL_SITE);
  }
  template <bool SEND_CREDIT_ADDR = false, bool posted = false, uint8_t WORKER_HANDSHAKE_NOC = 0>
  void open_start(TESSEL_SITE_PARAMS) {
    open(TESSEL_SITE);
  }
  template <bool posted = false, uint8_t WORKER_HANDSHAKE_NOC = 0>
  void open_finish(TESSEL_SITE_PARAMS) {}
  void close(TESSEL_SITE_PARAMS) {
    tessel_kernel_ctx* k = tessel_ctx();
    tessel_detail::fabric(k, TESSEL_SITE)->close(k, &connection, TESSEL_SITE);
  }
  void close_start(TESSEL_SITE_PARAMS) { close(TESSEL_SITE); }
  void close_finish(TESSEL_SITE_PARAMS) {}

  template <size_t num_slots = 1>
  bool edm_has_space_for_packet() const {
    return connection.open != 0;
  }
  void wait_for_empty_write_slot(TESSEL_SITE_PARAMS) const {
    if (!connection.open) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k, "wait_for_empty_write_slot: the fabric connection is not open: call open() first", TESSEL_SITE);
    }
  }

  void send_payload_without_header_non_blocking_from_address(uint32_t source_address, size_t size_bytes,
                                                             TESSEL_SITE_PARAMS) {
    tessel_kernel_ctx* k = tessel_ctx();
    tessel_detail::fabric(k, TESSEL_SITE)->stage_payload(k, &connection, source_address, uint32_t(size_bytes), TESSEL_SITE);
  }
  // A header at source_address; bytes past the header's size are the payload, contiguous after it.
  void send_payload_flush_blocking_from_address(uint32_t source_address, size_t size_bytes, TESSEL_SITE_PARAMS) {
    send_from_address(source_address, size_bytes, TESSEL_SITE);
  }
  void send_payload_flush_non_blocking_from_address(uint32_t source_address, size_t size_bytes, TESSEL_SITE_PARAMS) {
    send_from_address(source_address, size_bytes, TESSEL_SITE);
  }
  void send_payload_blocking_from_address(uint32_t source_address, size_t size_bytes, TESSEL_SITE_PARAMS) {
    send_from_address(source_address, size_bytes, TESSEL_SITE);
  }
  void send_payload_non_blocking_from_address(uint32_t source_address, size_t size_bytes, TESSEL_SITE_PARAMS) {
    send_from_address(source_address, size_bytes, TESSEL_SITE);
  }
  void send_packet_header_and_notify_fabric_flush_blocking(uint32_t source_address, TESSEL_SITE_PARAMS) {
    send_from_address(source_address, sizeof(PACKET_HEADER_TYPE), TESSEL_SITE);
  }

private:
  void send_from_address(uint32_t source_address, size_t size_bytes, const char* file, uint32_t line) {
    tessel_kernel_ctx* k = tessel_ctx();
    const tessel_fabric_api* fabric = tessel_detail::fabric(k, file, line);
    constexpr uint32_t header = sizeof(PACKET_HEADER_TYPE);
    if (size_bytes > header)
      fabric->stage_payload(k, &connection, source_address + header, uint32_t(size_bytes - header), file, line);
    fabric->send_header(k, &connection, source_address, uint32_t(size_bytes < header ? size_bytes : header), file,
                        line);
  }
};

using WorkerToFabricEdmSender = WorkerToFabricEdmSenderImpl<false, 0>;

// The router direction of a connection's Ethernet channel (its first runtime argument).
inline uint8_t get_router_direction(uint32_t eth_channel) {
  return uint8_t(eth_channel / tessel_detail::kFabricLinksPerDirection);
}

// ---- Routes ------------------------------------------------------------------

// 1D: target_as_dev = false: target_num hops; true: to device target_num along the line.
template <bool target_as_dev = true, bool compressed = true>
bool fabric_set_unicast_route(volatile tt_l1_ptr LowLatencyPacketHeader* h, uint16_t target_num) {
  uint16_t hops = target_num;
  if (target_as_dev) {
    tessel_kernel_ctx* k = tessel_ctx();
    const uint32_t me = tessel_detail::fabric(k, __FILE__, __LINE__)->chip_id(k);
    hops = uint16_t(target_num > me ? target_num - me : me - target_num);
  }
  h->to_chip_unicast(uint8_t(hops));
  return true;
}
inline bool fabric_set_unicast_route(volatile tt_l1_ptr HybridMeshPacketHeader* h, uint16_t dst_dev_id,
                                     uint16_t dst_mesh_id = 0) {
  tessel_fabric_header& f = const_cast<tessel_fabric_header&>(h->fields);
  f.route = TESSEL_FABRIC_ROUTE_MESH;
  f.dst_chip_id = dst_dev_id;
  f.dst_mesh_id = dst_mesh_id;
  return true;
}
inline void fabric_set_mcast_route(volatile tt_l1_ptr HybridMeshPacketHeader* h, uint16_t dst_dev_id,
                                   uint16_t dst_mesh_id, uint16_t e_num_hops, uint16_t w_num_hops,
                                   uint16_t n_num_hops, uint16_t s_num_hops) {
  tessel_fabric_header& f = const_cast<tessel_fabric_header&>(h->fields);
  f.route = TESSEL_FABRIC_ROUTE_MESH_MCAST;
  f.dst_chip_id = dst_dev_id;
  f.dst_mesh_id = dst_mesh_id;
  f.mcast_hops[TESSEL_FABRIC_EAST] = uint8_t(e_num_hops);
  f.mcast_hops[TESSEL_FABRIC_WEST] = uint8_t(w_num_hops);
  f.mcast_hops[TESSEL_FABRIC_NORTH] = uint8_t(n_num_hops);
  f.mcast_hops[TESSEL_FABRIC_SOUTH] = uint8_t(s_num_hops);
}

} // namespace tt::tt_fabric

// ---- The connection manager (global namespace, as TT-Fabric has it) ----------

class FabricConnectionManager {
public:
  enum BuildFromArgsMode : uint8_t { BUILD_ONLY, BUILD_AND_OPEN_CONNECTION, BUILD_AND_OPEN_CONNECTION_START_ONLY };

  template <BuildFromArgsMode build_mode = BUILD_ONLY>
  static FabricConnectionManager build_from_args(std::size_t& arg_idx, TESSEL_SITE_PARAMS) {
    FabricConnectionManager m;
    m.has_forward_ = get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE) != 0;
    if (m.has_forward_)
      m.forward_ = tt::tt_fabric::WorkerToFabricEdmSender::build_from_args<ProgrammableCoreType::TENSIX>(arg_idx,
                                                                                                        TESSEL_SITE);
    m.has_backward_ = get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE) != 0;
    if (m.has_backward_)
      m.backward_ = tt::tt_fabric::WorkerToFabricEdmSender::build_from_args<ProgrammableCoreType::TENSIX>(arg_idx,
                                                                                                         TESSEL_SITE);
    if (build_mode != BUILD_ONLY) m.open(TESSEL_SITE);
    return m;
  }
  bool is_logically_connected() const { return has_forward_ || has_backward_; }
  bool has_forward_connection() const { return has_forward_; }
  bool has_backward_connection() const { return has_backward_; }
  template <bool SEND_CREDIT_ADDR = false>
  void open(TESSEL_SITE_PARAMS) {
    if (has_forward_) forward_.open(TESSEL_SITE);
    if (has_backward_) backward_.open(TESSEL_SITE);
  }
  void open_finish(TESSEL_SITE_PARAMS) {}
  void close_start(TESSEL_SITE_PARAMS) { close(TESSEL_SITE); }
  void close_finish(TESSEL_SITE_PARAMS) {}
  void close(TESSEL_SITE_PARAMS) {
    if (has_forward_) forward_.close(TESSEL_SITE);
    if (has_backward_) backward_.close(TESSEL_SITE);
  }
  tt::tt_fabric::WorkerToFabricEdmSender& get_forward_connection(TESSEL_SITE_PARAMS) {
    if (!has_forward_) missing("get_forward_connection", TESSEL_SITE);
    return forward_;
  }
  tt::tt_fabric::WorkerToFabricEdmSender& get_backward_connection(TESSEL_SITE_PARAMS) {
    if (!has_backward_) missing("get_backward_connection", TESSEL_SITE);
    return backward_;
  }

private:
  static void missing(const char* call, const char* file, uint32_t line) {
    tessel_kernel_ctx* k = tessel_ctx();
    k->api->fail(k,
                 call[4] == 'f' ? "get_forward_connection: the manager has no forward connection (its runtime "
                                  "arguments' has-forward word was 0)"
                                : "get_backward_connection: the manager has no backward connection (its runtime "
                                  "arguments' has-backward word was 0)",
                 file, line);
  }
  bool has_forward_ = false, has_backward_ = false;
  tt::tt_fabric::WorkerToFabricEdmSender forward_, backward_;
};

// ---- The routing-plane connection manager (TT-Fabric's "V2") ------------------

namespace tt::tt_fabric {

class RoutingPlaneConnectionManager {
public:
#if defined(FABRIC_2D)
  static constexpr uint32_t MaxConnections = 4;
#else
  static constexpr uint32_t MaxConnections = 2;
#endif
  using Sender = WorkerToFabricEdmSender;
  struct ConnectionSlot {
    Sender sender;
    uint8_t tag = 0; // the eth_chan_directions of the connection's first hop
#if defined(FABRIC_2D)
    uint16_t dst_dev_id = 0;
    uint16_t dst_mesh_id = 0;
#endif
  };

  // Per connection: [tag][3 connection words]; under FABRIC_2D then
  // [ew_dim][my chip id][my mesh id] and per connection [dst dev id][dst mesh id].
  template <FabricConnectionManager::BuildFromArgsMode build_mode = FabricConnectionManager::BUILD_ONLY>
  static RoutingPlaneConnectionManager build_from_args(size_t& arg_idx, uint32_t num_connections_to_build,
                                                       TESSEL_SITE_PARAMS) {
    RoutingPlaneConnectionManager m;
    if (num_connections_to_build > MaxConnections) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k, "RoutingPlaneConnectionManager::build_from_args: more connections than MaxConnections",
                   TESSEL_SITE);
    }
    for (uint32_t i = 0; i < num_connections_to_build; ++i) {
      m.slots_[i].tag = uint8_t(get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE));
      m.slots_[i].sender = Sender::build_from_args<ProgrammableCoreType::TENSIX>(arg_idx, TESSEL_SITE);
    }
#if defined(FABRIC_2D)
    m.ew_dim = get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE);
    m.my_chip_id = uint16_t(get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE));
    m.my_mesh_id = uint16_t(get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE));
    for (uint32_t i = 0; i < num_connections_to_build; ++i) {
      m.slots_[i].dst_dev_id = uint16_t(get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE));
      m.slots_[i].dst_mesh_id = uint16_t(get_arg_val<uint32_t>(int(arg_idx++), TESSEL_SITE));
    }
#endif
    m.count_ = num_connections_to_build;
    if (build_mode != FabricConnectionManager::BUILD_ONLY) m.open(TESSEL_SITE);
    return m;
  }
  uint32_t active_count() const { return count_; }
  uint8_t get_tag(uint32_t i) const { return slots_[i].tag; }
  ConnectionSlot& get(uint32_t i) { return slots_[i]; }
  template <typename Func>
  void for_each(Func&& f) {
    for (uint32_t i = 0; i < count_; ++i) f(slots_[i].sender, i, slots_[i].tag);
  }
  template <typename Func>
  void for_each_with_tag(uint8_t tag, Func&& f) {
    for (uint32_t i = 0; i < count_; ++i)
      if (slots_[i].tag == tag) f(slots_[i].sender, i);
  }
  void open(TESSEL_SITE_PARAMS) {
    for (uint32_t i = 0; i < count_; ++i) slots_[i].sender.open(TESSEL_SITE);
  }
  void open_start(TESSEL_SITE_PARAMS) { open(TESSEL_SITE); }
  void open_finish(TESSEL_SITE_PARAMS) {}
  void close(TESSEL_SITE_PARAMS) {
    for (uint32_t i = 0; i < count_; ++i) slots_[i].sender.close(TESSEL_SITE);
  }
  void close_start(TESSEL_SITE_PARAMS) { close(TESSEL_SITE); }
  void close_finish(TESSEL_SITE_PARAMS) {}

#if defined(FABRIC_2D)
  uint32_t ew_dim = 0;
  uint16_t my_chip_id = 0;
  uint16_t my_mesh_id = 0;
#endif

private:
  ConnectionSlot slots_[MaxConnections];
  uint32_t count_ = 0;
};

} // namespace tt::tt_fabric

// ---- The packet-header pool --------------------------------------------------

class PacketHeaderPool {
public:
  static volatile tt_l1_ptr PACKET_HEADER_TYPE* allocate_header(uint8_t num_headers = 1, TESSEL_SITE_PARAMS) {
    tessel_kernel_ctx* k = tessel_ctx();
    constexpr uint32_t size = sizeof(PACKET_HEADER_TYPE);
    if (k->risc == TESSEL_RISC_COMPUTE)
      k->api->fail(k, "PacketHeaderPool::allocate_header: the pool belongs to the data-movement RISCs", TESSEL_SITE);
    if ((next_ + num_headers) * size > tessel_detail::kHeaderPoolBytes)
      k->api->fail(k,
                   "PacketHeaderPool::allocate_header: the pool is exhausted (each data-movement RISC has 3 KiB of "
                   "headers per launch)",
                   TESSEL_SITE);
    const uint32_t offset = tessel_detail::kHeaderPoolOffset + k->risc * tessel_detail::kHeaderPoolBytes + next_ * size;
    next_ += num_headers;
    return reinterpret_cast<volatile PACKET_HEADER_TYPE*>(k->l1_base + offset);
  }
  // num_headers consecutive headers as one route (a header per connection of
  // a RoutingPlaneConnectionManager): its id.
  static uint8_t allocate_header_n(uint8_t num_headers, TESSEL_SITE_PARAMS) {
    if (routes_ == kMaxRoutes) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k, "PacketHeaderPool::allocate_header_n: more than 16 routes in one launch", TESSEL_SITE);
    }
    route_first_[routes_] = allocate_header(num_headers, TESSEL_SITE);
    route_count_[routes_] = num_headers;
    return uint8_t(routes_++);
  }
  static uint8_t get_num_headers(uint8_t route_id) { return route_id < routes_ ? route_count_[route_id] : 0; }
  // f(header, i) for each header i of the route.
  template <typename Func>
  static void for_each_header(uint8_t route_id, Func&& f) {
    for (uint8_t i = 0; i < get_num_headers(route_id); ++i) f(route_first_[route_id] + i, i);
  }
  static void reset() { next_ = 0, routes_ = 0; }

private:
  static constexpr uint32_t kMaxRoutes = 16;
  static inline uint32_t next_ = 0;
  static inline uint32_t routes_ = 0;
  static inline volatile PACKET_HEADER_TYPE* route_first_[kMaxRoutes] = {};
  static inline uint8_t route_count_[kMaxRoutes] = {};
};

inline void zero_l1_buf(tt_l1_ptr uint32_t* buf, uint32_t size_bytes) {
  for (uint32_t i = 0; i < size_bytes / 4; ++i)
    buf[i] = 0;
}

// A NoC address as TT-Fabric's helpers spell it (noc_addr.h).
inline uint64_t safe_get_noc_addr(uint8_t dest_x, uint8_t dest_y, uint32_t dest_bank_addr, uint8_t noc_id = noc_index) {
  return get_noc_addr(dest_x, dest_y, dest_bank_addr, noc_id);
}
