// tessel fabric ABI: how a kernel reaches other chips of its mesh (the
// worker side of TT-Fabric, design §9). Kernels get the table through the
// kernel API's extension hook (TESSEL_EXTENSION_FABRIC); a chip that belongs
// to no mesh has none, and the kernel-side API then reports that.
//
// A connection is the kernel's object (WorkerToFabricEdmSender), freely
// copied as kernels copy it; its state lives in a tessel_fabric_connection
// inside it (the simulator keeps the staged payload), built from the runtime
// arguments the host appended for it (append_fabric_connection_rt_args):
// TESSEL_FABRIC_CONNECTION_ARGS words, the first the magic word.
//
// A packet is a header in the sender's L1 (tessel_fabric_header) and an
// optional payload: the kernel first stages the payload into the
// connection's slot (stage_payload, which copies the bytes, as the NoC write
// into the router's buffer does on silicon), then sends the header, which
// commits the packet: it travels hop by hop along the route its header names
// and its NoC command takes effect on the destination chip(s).
//
// This header is C and free of the standard library so kernels compile fast.
#ifndef TESSEL_FABRIC_ABI_H
#define TESSEL_FABRIC_ABI_H

#include <stdint.h>

#define TESSEL_EXTENSION_FABRIC 2u

#define TESSEL_FABRIC_CONNECTION_MAGIC 0x7e55fab1u
#define TESSEL_FABRIC_CONNECTION_ARGS 5u

// Directions of links, in TT-Fabric's numbering (eth_chan_directions).
enum tessel_fabric_direction {
  TESSEL_FABRIC_EAST = 0,
  TESSEL_FABRIC_WEST = 1,
  TESSEL_FABRIC_NORTH = 2,
  TESSEL_FABRIC_SOUTH = 3,
};

// What a packet does at its destination.
enum tessel_fabric_noc_send {
  TESSEL_FABRIC_NOC_NONE = 0, // no command set yet: sending it is an error
  TESSEL_FABRIC_NOC_UNICAST_WRITE = 1,
  TESSEL_FABRIC_NOC_UNICAST_INLINE_WRITE = 2,
  TESSEL_FABRIC_NOC_UNICAST_ATOMIC_INC = 3,
  TESSEL_FABRIC_NOC_FUSED_UNICAST_ATOMIC_INC = 4, // a write, then an atomic increment
  TESSEL_FABRIC_NOC_UNICAST_SCATTER_WRITE = 5,
};

// How the packet's route is given.
enum tessel_fabric_route {
  TESSEL_FABRIC_ROUTE_NONE = 0,      // not set yet: sending it is an error
  TESSEL_FABRIC_ROUTE_HOPS = 1,      // 1D: start_hops hops on the connection's direction (range_hops chips from there)
  TESSEL_FABRIC_ROUTE_MESH = 2,      // 2D: to (dst_mesh_id, dst_chip_id), dimension-ordered
  TESSEL_FABRIC_ROUTE_MESH_MCAST = 3 // 2D: from the chip at the route's start, mcast_hops[] chips E, W, N, S
};

#define TESSEL_FABRIC_SCATTER_CHUNKS 4u

// A packet header as it lies in L1: 64 bytes, the kernel-side header
// classes' storage.
struct tessel_fabric_header {
  uint8_t noc_send_type; // tessel_fabric_noc_send
  uint8_t route;         // tessel_fabric_route
  uint8_t start_hops;    // ROUTE_HOPS: hops to the first destination (unicast: the destination)
  uint8_t range_hops;    // ROUTE_HOPS: chips written from there on (1: unicast)
  uint16_t payload_size_bytes;
  uint16_t dst_chip_id; // ROUTE_MESH*: the destination's chip id (row-major in its mesh)
  uint16_t dst_mesh_id;
  uint8_t mcast_hops[4]; // ROUTE_MESH_MCAST: chips E, W, N, S of the destination
  uint8_t scatter_chunks;
  uint8_t flush;
  uint16_t wrap;                                    // atomic increments: wrap boundary (unused, as on silicon)
  uint32_t value;                                   // inline write: the word; atomic increments: the increment
  uint64_t noc_address[TESSEL_FABRIC_SCATTER_CHUNKS]; // [0]: the write's (or inc's) address; fused: [1] the semaphore's
  uint16_t chunk_size[TESSEL_FABRIC_SCATTER_CHUNKS - 1]; // scatter: chunk sizes but the last
  uint16_t pad;
};

// The connection's state, inside the kernel's sender object.
struct tessel_fabric_connection {
  uint32_t magic;     // TESSEL_FABRIC_CONNECTION_MAGIC once built from arguments
  uint32_t src_chip;  // the chip (row-major index in the mesh) the host built it for
  uint32_t direction; // tessel_fabric_direction of the first hop
  uint32_t link;      // link index on that side
  uint32_t mesh_id;
  uint32_t open;  // 1 between open() and close() (on the object that made the call)
  uint32_t slot;  // the simulator's slot for it while open
  uint32_t token; // that open's number: copies of the object share the connection, a stale copy is caught
};

struct tessel_kernel_ctx;

struct tessel_fabric_api {
  // This chip's id (row-major in its mesh) and its mesh's id.
  uint32_t (*chip_id)(struct tessel_kernel_ctx*);
  uint32_t (*mesh_id)(struct tessel_kernel_ctx*);
  // The largest payload a packet carries, bytes.
  uint32_t (*max_payload_bytes)(struct tessel_kernel_ctx*);
  void (*open)(struct tessel_kernel_ctx*, struct tessel_fabric_connection*, const char* file, uint32_t line);
  void (*close)(struct tessel_kernel_ctx*, struct tessel_fabric_connection*, const char* file, uint32_t line);
  // Copies `bytes` of this core's L1 at src_l1 into the connection's slot.
  void (*stage_payload)(struct tessel_kernel_ctx*, struct tessel_fabric_connection*, uint32_t src_l1, uint32_t bytes,
                        const char* file, uint32_t line);
  // Sends the header at header_l1 (header_bytes of it), committing the packet with the staged payload.
  void (*send_header)(struct tessel_kernel_ctx*, struct tessel_fabric_connection*, uint32_t header_l1,
                      uint32_t header_bytes, const char* file, uint32_t line);
  // A connection object used before it was built from arguments, or not open: the report.
  void (*fail)(struct tessel_kernel_ctx*, const char* message, const char* file, uint32_t line);
};

#if defined(__cplusplus)
static_assert(sizeof(struct tessel_fabric_header) == 64, "fabric ABI layout");
#endif

#endif // TESSEL_FABRIC_ABI_H
