// Reduce-scatter's first stage: slice j of this chip's input (slice_pages
// tiles) goes to slot `my_slot` of the staging buffer on the group's chip j,
// over the fabric (the shorter way round a ring; along the line; or by chip
// id on the 2D fabric), followed by one atomic increment of that chip's
// semaphore; this chip's own slice is a NoC write and a local increment.
// Then every chip waits for all `slots` slices (the reduction, on NCRISC and
// compute, waits for the same count).
//
// Runtime args: input, staging, page bytes, slice pages, my slot, slots,
// ring, semaphore id, first chip id of the group (2D: chip id = first + j);
// then the connection manager's words.
// Compile-time args: the TensorAccessorArgs of the input, then the staging buffer.
#include "api/dataflow/dataflow_api.h"
#include "tt_metal/fabric/hw/inc/edm_fabric/fabric_connection_manager.hpp"
#include "tt_metal/fabric/hw/inc/packet_header_pool.h"
#include "tt_metal/fabric/hw/inc/tt_fabric_api.h"

void kernel_main() {
  size_t arg = 0;
  const uint32_t input_addr = get_arg_val<uint32_t>(arg++);
  const uint32_t staging_addr = get_arg_val<uint32_t>(arg++);
  const uint32_t page_bytes = get_arg_val<uint32_t>(arg++);
  const uint32_t slice = get_arg_val<uint32_t>(arg++);
  const uint32_t me = get_arg_val<uint32_t>(arg++);
  const uint32_t slots = get_arg_val<uint32_t>(arg++);
  const uint32_t ring = get_arg_val<uint32_t>(arg++);
  const uint32_t sem_id = get_arg_val<uint32_t>(arg++);
  const uint32_t first_chip = get_arg_val<uint32_t>(arg++);
  auto fabric = FabricConnectionManager::build_from_args<FabricConnectionManager::BUILD_AND_OPEN_CONNECTION>(arg);

  constexpr auto input_args = TensorAccessorArgs<0>();
  constexpr auto staging_args = TensorAccessorArgs<input_args.next_compile_time_args_offset()>();
  const auto input = TensorAccessor(input_args, input_addr, page_bytes);
  const auto staging = TensorAccessor(staging_args, staging_addr, page_bytes);
  const uint32_t sem_l1 = get_semaphore(sem_id);
  const uint64_t sem_noc = get_noc_addr(my_x[0], my_y[0], sem_l1);
  volatile PACKET_HEADER_TYPE* header = PacketHeaderPool::allocate_header();
  constexpr uint32_t cb = 0;

  for (uint32_t j = 0; j < slots; ++j) {
    tt::tt_fabric::WorkerToFabricEdmSender* sender = nullptr;
    if (j != me) {
#ifdef FABRIC_2D
      (void)ring;
      tt::tt_fabric::fabric_set_unicast_route(header, first_chip + j, 0);
      sender = &fabric.get_forward_connection();
#else
      (void)first_chip;
      const uint32_t ahead = (j + slots - me) % slots, behind = (me + slots - j) % slots;
      const bool forward = ring ? ahead <= behind : j > me;
      header->to_chip_unicast(uint8_t(forward ? ahead : behind));
      sender = forward ? &fabric.get_forward_connection() : &fabric.get_backward_connection();
#endif
    }
    for (uint32_t p = 0; p < slice; ++p) {
      cb_reserve_back(cb, 1);
      const uint32_t l1 = get_write_ptr(cb);
      noc_async_read(input.get_noc_addr(j * slice + p), l1, page_bytes);
      noc_async_read_barrier();
      const uint64_t dst = staging.get_noc_addr(me * slice + p);
      if (!sender) {
        noc_async_write(l1, dst, page_bytes);
        noc_async_write_barrier();
      } else {
        header->to_noc_unicast_write(tt::tt_fabric::NocUnicastCommandHeader{dst}, page_bytes);
        sender->wait_for_empty_write_slot();
        sender->send_payload_without_header_non_blocking_from_address(l1, page_bytes);
        sender->send_payload_flush_blocking_from_address((uint32_t)header, sizeof(PACKET_HEADER_TYPE));
      }
      cb_push_back(cb, 1);
      cb_wait_front(cb, 1);
      cb_pop_front(cb, 1);
    }
    if (!sender) {
      noc_semaphore_inc(sem_noc, 1);
      noc_async_atomic_barrier();
    } else {
      header->to_noc_unicast_atomic_inc(tt::tt_fabric::NocUnicastAtomicIncCommandHeader{sem_noc, 1});
      sender->wait_for_empty_write_slot();
      sender->send_payload_flush_blocking_from_address((uint32_t)header, sizeof(PACKET_HEADER_TYPE));
    }
  }
  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(sem_l1), slots);
  fabric.close();
}
