// Multicast receiver: for each block, reserve the CB slot the sender will
// fill, mark receiver_sem INVALID, tell the sender this core is ready
// (noc_semaphore_inc of its sender_sem), wait for the sender's VALID flag,
// then push the block, which arrived by multicast, to this core's writer.
//
// Compile-time args: sender_sem id, receiver_sem id, pages per block.
// Runtime args: sender NoC x, y, blocks.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t sender_x = get_arg_val<uint32_t>(0);
  const uint32_t sender_y = get_arg_val<uint32_t>(1);
  const uint32_t num_blocks = get_arg_val<uint32_t>(2);

  constexpr uint32_t sender_sem_id = get_compile_time_arg_val(0);
  constexpr uint32_t receiver_sem_id = get_compile_time_arg_val(1);
  constexpr uint32_t pages_per_block = get_compile_time_arg_val(2);
  constexpr uint32_t cb = 0;
  constexpr uint32_t kInvalid = 0;
  constexpr uint32_t kValid = 1;

  const uint64_t sender_sem = get_noc_addr(sender_x, sender_y, get_semaphore(sender_sem_id));
  volatile uint32_t* receiver_sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(receiver_sem_id));

  for (uint32_t block = 0; block < num_blocks; ++block) {
    cb_reserve_back(cb, pages_per_block);
    noc_semaphore_set(receiver_sem, kInvalid);
    noc_semaphore_inc(sender_sem, 1);
    noc_semaphore_wait(receiver_sem, kValid);
    cb_push_back(cb, pages_per_block);
  }
}
