// The reduction stage's data movement (NCRISC): once the worker's semaphore
// says every slot has landed, feeds CB 1 the `slots` staged tiles of each
// output tile in slot order and writes each sum from CB 16 to the output.
// Runtime args: staging, output, tiles, slots, semaphore id, expected count.
// Compile-time args: TensorAccessorArgs of the staging buffer, then the output.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t staging_addr = get_arg_val<uint32_t>(0);
  const uint32_t output_addr = get_arg_val<uint32_t>(1);
  const uint32_t tiles = get_arg_val<uint32_t>(2);
  const uint32_t slots = get_arg_val<uint32_t>(3);
  const uint32_t sem_id = get_arg_val<uint32_t>(4);
  const uint32_t expected = get_arg_val<uint32_t>(5);
  constexpr uint32_t cb_in = 1, cb_out = 16;
  constexpr auto staging_args = TensorAccessorArgs<0>();
  constexpr auto output_args = TensorAccessorArgs<staging_args.next_compile_time_args_offset()>();
  const auto staging = TensorAccessor(staging_args, staging_addr, get_tile_size(cb_in));
  const auto output = TensorAccessor(output_args, output_addr, get_tile_size(cb_out));

  noc_semaphore_wait_min(reinterpret_cast<volatile tt_l1_ptr uint32_t*>(get_semaphore(sem_id)), expected);
  for (uint32_t t = 0; t < tiles; ++t) {
    for (uint32_t s = 0; s < slots; ++s) {
      cb_reserve_back(cb_in, 1);
      noc_async_read_tile(s * tiles + t, staging, get_write_ptr(cb_in));
      noc_async_read_barrier();
      cb_push_back(cb_in, 1);
    }
    cb_wait_front(cb_out, 1);
    noc_async_write_tile(t, output, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }
}
