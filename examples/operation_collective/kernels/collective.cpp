// One core of the collective operation (operation_collective.cpp): a chain
// of two tile copies ordered by a caller semaphore.
//
// The sender core (compile arg role 0) copies input tile `src` to output
// tile `dst`, waits for the write to land, then raises the receiver's
// semaphore. The receiver (role 1, from the operation's core
// specialisation) waits for that semaphore, resets it, and copies output
// tile `src` (the tile the sender just wrote) to output tile `dst`; without
// the semaphore it could read the tile before it is written.
//
// Compile-time args: role, then TensorAccessorArgs of the input and output.
// Runtime args (from the runtime resource factory): semaphore id, src tile,
// dst tile, receiver NoC x, receiver NoC y. Common runtime args: the input
// and output addresses. Define COLLECTIVE_CB: the one-tile scratch CB.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t sem = get_arg_val<uint32_t>(0);
  const uint32_t src = get_arg_val<uint32_t>(1);
  const uint32_t dst = get_arg_val<uint32_t>(2);
  const uint32_t peer_x = get_arg_val<uint32_t>(3);
  const uint32_t peer_y = get_arg_val<uint32_t>(4);
  constexpr uint32_t role = get_compile_time_arg_val(0);
  constexpr auto in_args = TensorAccessorArgs<1>();
  constexpr auto out_args = TensorAccessorArgs<in_args.next_compile_time_args_offset()>();
  constexpr uint32_t cb = COLLECTIVE_CB;
  const uint32_t page = get_tile_size(cb);
  const auto in = TensorAccessor(in_args, get_common_arg_val<uint32_t>(0), page);
  const auto out = TensorAccessor(out_args, get_common_arg_val<uint32_t>(1), page);
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(sem));

  cb_reserve_back(cb, 1);
  const uint32_t l1 = get_write_ptr(cb);
  if (role == 0) {
    noc_async_read_tile(src, in, l1);
  } else {
    noc_semaphore_wait(flag, 1);
    noc_semaphore_set(flag, 0);
    noc_async_read_tile(src, out, l1);
  }
  noc_async_read_barrier();
  noc_async_write_tile(dst, out, l1);
  noc_async_write_barrier();
  if (role == 0) {
    noc_semaphore_inc(get_noc_addr(peer_x, peer_y, get_semaphore(sem)), 1);
    noc_async_atomic_barrier();
  }
}
