// Multicast sender (the top-left core of the rectangle): for each block, read
// it from DRAM into CB 0, wait until every receiver has reserved its CB slot
// (they increment sender_sem), multicast the block to the same CB address on
// every receiver, then multicast VALID into their receiver_sem, and push the
// block to its own writer. The protocol is the reuse+mcast matmul's.
//
// Compile-time args: TensorAccessorArgs of the source (2), sender_sem id,
// receiver_sem id, pages per block.
// Runtime args: source address, blocks, multicast rectangle NoC start x, y,
// end x, y (the sender's corner first), number of receivers.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t num_blocks = get_arg_val<uint32_t>(1);
  const uint32_t mcast_start_x = get_arg_val<uint32_t>(2);
  const uint32_t mcast_start_y = get_arg_val<uint32_t>(3);
  const uint32_t mcast_end_x = get_arg_val<uint32_t>(4);
  const uint32_t mcast_end_y = get_arg_val<uint32_t>(5);
  const uint32_t num_receivers = get_arg_val<uint32_t>(6);

  constexpr auto src_args = TensorAccessorArgs<0>();
  constexpr uint32_t sender_sem_id = get_compile_time_arg_val(src_args.next_compile_time_args_offset());
  constexpr uint32_t receiver_sem_id = get_compile_time_arg_val(src_args.next_compile_time_args_offset() + 1);
  constexpr uint32_t pages_per_block = get_compile_time_arg_val(src_args.next_compile_time_args_offset() + 2);
  constexpr uint32_t cb = 0;
  constexpr uint32_t kValid = 1;

  const uint32_t page_bytes = get_tile_size(cb);
  const uint32_t block_bytes = pages_per_block * page_bytes;
  const auto src = TensorAccessor(src_args, src_addr, page_bytes);

  volatile uint32_t* sender_sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(sender_sem_id));
  // The sender's own receiver_sem word is the source of the VALID flag it multicasts.
  const uint32_t receiver_sem_addr = get_semaphore(receiver_sem_id);
  noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(receiver_sem_addr), kValid);
  // Corners given end-first on purpose: multicast rectangles are normalised.
  const uint64_t receiver_sem_mcast =
      get_noc_multicast_addr(mcast_end_x, mcast_end_y, mcast_start_x, mcast_start_y, receiver_sem_addr);

  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_reserve_back(cb, pages_per_block);
    const uint32_t l1 = get_write_ptr(cb);
    for (uint32_t p = 0; p < pages_per_block; ++p)
      noc_async_read_page(block * pages_per_block + p, src, l1 + p * page_bytes);
    noc_async_read_barrier();

    noc_semaphore_wait(sender_sem, num_receivers);
    noc_semaphore_set(sender_sem, 0);
    const uint64_t data_mcast = get_noc_multicast_addr(mcast_start_x, mcast_start_y, mcast_end_x, mcast_end_y, l1);
    noc_async_write_multicast(l1, data_mcast, block_bytes, num_receivers);
    noc_async_writes_flushed();
    noc_semaphore_set_multicast(receiver_sem_addr, receiver_sem_mcast, num_receivers);

    cb_push_back(cb, pages_per_block);
  }
  noc_async_write_barrier();
}
