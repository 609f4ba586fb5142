// All-gather over the fabric: this chip's input pages go to slot `my_slot` of
// the output buffer on this chip (a NoC write) and on every other chip of its
// group (fabric multicasts: forward and backward along a line or ring, or one
// 2D multicast over the whole mesh); then one atomic increment of the peers'
// semaphores says "all sent", one of its own says "mine is written", and it
// waits for `expected` increments (the group's size). ccl_all_reduce runs
// this kernel too, gathering into its staging buffer.
//
// Runtime args: input, output, page bytes, pages, my slot, forward range,
// backward range, semaphore id, expected; under FABRIC_2D then this chip's
// multicast extents E, W, N, S; then the connection manager's words.
// Compile-time args: the TensorAccessorArgs of the input, then the output.
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/tt_fabric_api.h"

namespace {

void send(tt::tt_fabric::WorkerToFabricEdmSender& sender, volatile PACKET_HEADER_TYPE* header, uint32_t l1,
          uint32_t bytes) {
  sender.wait_for_empty_write_slot();
  if (bytes) sender.send_payload_without_header_non_blocking_from_address(l1, bytes);
  sender.send_payload_flush_blocking_from_address(reinterpret_cast<uint32_t>(header), sizeof(PACKET_HEADER_TYPE));
}

} // namespace

void kernel_main() {
  size_t arg = 0;
  const uint32_t input_addr = get_arg_val<uint32_t>(arg++);
  const uint32_t output_addr = get_arg_val<uint32_t>(arg++);
  const uint32_t page_bytes = get_arg_val<uint32_t>(arg++);
  const uint32_t pages = get_arg_val<uint32_t>(arg++);
  const uint32_t my_slot = get_arg_val<uint32_t>(arg++);
  const uint32_t forward_range = get_arg_val<uint32_t>(arg++);
  const uint32_t backward_range = get_arg_val<uint32_t>(arg++);
  const uint32_t sem_id = get_arg_val<uint32_t>(arg++);
  const uint32_t expected = get_arg_val<uint32_t>(arg++);
#ifdef FABRIC_2D
  const uint32_t east = get_arg_val<uint32_t>(arg++), west = get_arg_val<uint32_t>(arg++);
  const uint32_t north = get_arg_val<uint32_t>(arg++), south = get_arg_val<uint32_t>(arg++);
  const uint32_t my_chip = get_arg_val<uint32_t>(arg++);
#endif
  auto fabric = FabricConnectionManager::build_from_args<FabricConnectionManager::BUILD_AND_OPEN_CONNECTION>(arg);

  constexpr auto input_args = TensorAccessorArgs<0>();
  constexpr auto output_args = TensorAccessorArgs<input_args.next_compile_time_args_offset()>();
  const auto input = TensorAccessor(input_args, input_addr, page_bytes);
  const auto output = TensorAccessor(output_args, output_addr, page_bytes);

  volatile PACKET_HEADER_TYPE* header = PacketHeaderPool::allocate_header();
  constexpr uint32_t cb = 0;
  for (uint32_t p = 0; p < pages; ++p) {
    cb_reserve_back(cb, 1);
    const uint32_t l1 = get_write_ptr(cb);
    noc_async_read(input.get_noc_addr(p), l1, page_bytes);
    noc_async_read_barrier();
    const uint64_t dst = output.get_noc_addr(my_slot * pages + p);
    noc_async_write(l1, dst, page_bytes);
#ifdef FABRIC_2D
    tt::tt_fabric::fabric_set_mcast_route(header, my_chip, 0, east, west, north, south);
    header->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{dst}, page_bytes);
    send(fabric.get_forward_connection(), header, l1, page_bytes);
#else
    header->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{dst}, page_bytes);
    if (forward_range) {
      header->to_chip_multicast(tt::tt_fabric::MulticastRoutingCommandHeader{1, uint8_t(forward_range)});
      send(fabric.get_forward_connection(), header, l1, page_bytes);
    }
    if (backward_range) {
      header->to_chip_multicast(tt::tt_fabric::MulticastRoutingCommandHeader{1, uint8_t(backward_range)});
      send(fabric.get_backward_connection(), header, l1, page_bytes);
    }
#endif
    noc_async_write_barrier();
    cb_push_back(cb, 1);
    cb_wait_front(cb, 1);
    cb_pop_front(cb, 1);
  }

  // Every page is sent: one increment of each peer's semaphore (the packets
  // of one connection arrive in order) and of this chip's own, then wait for all.
  const uint32_t sem_l1 = get_semaphore(sem_id);
  const uint64_t sem_noc = get_noc_addr(my_x[0], my_y[0], sem_l1);
  header->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem_noc, 1});
#ifdef FABRIC_2D
  send(fabric.get_forward_connection(), header, 0, 0);
#else
  if (forward_range) {
    header->to_chip_multicast(tt::tt_fabric::MulticastRoutingCommandHeader{1, uint8_t(forward_range)});
    send(fabric.get_forward_connection(), header, 0, 0);
  }
  if (backward_range) {
    header->to_chip_multicast(tt::tt_fabric::MulticastRoutingCommandHeader{1, uint8_t(backward_range)});
    send(fabric.get_backward_connection(), header, 0, 0);
  }
#endif
  noc_semaphore_inc(sem_noc, 1);
  noc_async_atomic_barrier();
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem_l1), expected);
  fabric.close();
}
