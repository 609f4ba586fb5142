// The reuse+mcast matmul's reader: moves this core's in0 and in1 blocks,
// one K block at a time, either from DRAM (a sender) or by multicast from
// the sender of its row (in0) or column (in1). The host compiles it once per
// role: the left column sends in0 along its row, the top row sends in1 down
// its column, the top-left core sends both, every other core receives both.
//
// Protocol, per block and per operand (in0 first, then in1, on every core,
// so every handshake of block b, operand o waits only on handshakes that
// come before it in that order and the grid cannot deadlock):
//   receiver: cb_reserve_back; receiver_sem = INVALID; noc_semaphore_inc the
//     sender's sender_sem; wait until receiver_sem == VALID; cb_push_back.
//   sender:   cb_reserve_back; read the block from DRAM; read barrier; wait
//     until sender_sem == number of receivers, reset it to 0; multicast the
//     block to the same CB address on every receiver; flush; multicast its
//     own VALID word into the receivers' receiver_sem; cb_push_back.
// Every core has the same CB layout and pushes the same block sizes, so the
// sender's CB write pointer is the receivers' too.
//
// Compile-time args: TensorAccessorArgs of A, then of B; in0 sender (0/1),
// in1 sender (0/1), per_core_M, per_core_N, in0_block_w, semaphore ids:
// in0 sender, in0 receiver, in1 sender, in1 receiver.
// Runtime args: A address, B address, Kt, Nt, first output tile row m0,
// first output tile column n0; in0 multicast rectangle NoC x0, y0, x1, y1,
// in0 receivers, in0 sender NoC x, y; the same seven for in1.
#include "api/dataflow/dataflow_api.h"

namespace {
constexpr uint32_t kInvalid = 0;
constexpr uint32_t kValid = 1;

struct Link {
  uint32_t x0, y0, x1, y1; // the receivers' rectangle (NoC coordinates)
  uint32_t num_receivers;
  uint32_t sender_x, sender_y; // the sender (NoC coordinates)
};

Link read_link(uint32_t first_arg) {
  Link l;
  l.x0 = get_arg_val<uint32_t>(first_arg);
  l.y0 = get_arg_val<uint32_t>(first_arg + 1);
  l.x1 = get_arg_val<uint32_t>(first_arg + 2);
  l.y1 = get_arg_val<uint32_t>(first_arg + 3);
  l.num_receivers = get_arg_val<uint32_t>(first_arg + 4);
  l.sender_x = get_arg_val<uint32_t>(first_arg + 5);
  l.sender_y = get_arg_val<uint32_t>(first_arg + 6);
  return l;
}

// Sender side, after the block is in local L1 at `l1`.
void send_block(const Link& l, uint32_t l1, uint32_t bytes, uint32_t sender_sem_id, uint32_t receiver_sem_id) {
  if (l.num_receivers == 0) return;
  volatile uint32_t* sender_sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(sender_sem_id));
  const uint32_t valid_word = get_semaphore(receiver_sem_id); // holds VALID on a sender
  noc_semaphore_wait(sender_sem, l.num_receivers);
  noc_semaphore_set(sender_sem, 0);
  noc_async_write_multicast(l1, get_noc_multicast_addr(l.x0, l.y0, l.x1, l.y1, l1), bytes, l.num_receivers);
  noc_async_writes_flushed();
  noc_semaphore_set_multicast(valid_word, get_noc_multicast_addr(l.x0, l.y0, l.x1, l.y1, valid_word), l.num_receivers);
}

// Receiver side, with the block's CB slot reserved.
void receive_block(const Link& l, uint32_t sender_sem_id, uint32_t receiver_sem_id) {
  volatile uint32_t* receiver_sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(receiver_sem_id));
  noc_semaphore_set(receiver_sem, kInvalid);
  noc_semaphore_inc(get_noc_addr(l.sender_x, l.sender_y, get_semaphore(sender_sem_id)), 1);
  noc_semaphore_wait(receiver_sem, kValid);
}
} // namespace

void kernel_main() {
  const uint32_t a_addr = get_arg_val<uint32_t>(0);
  const uint32_t b_addr = get_arg_val<uint32_t>(1);
  const uint32_t Kt = get_arg_val<uint32_t>(2);
  const uint32_t Nt = get_arg_val<uint32_t>(3);
  const uint32_t m0 = get_arg_val<uint32_t>(4);
  const uint32_t n0 = get_arg_val<uint32_t>(5);
  const Link in0_link = read_link(6);
  const Link in1_link = read_link(13);

  constexpr auto a_args = TensorAccessorArgs<0>();
  constexpr auto b_args = TensorAccessorArgs<a_args.next_compile_time_args_offset()>();
  constexpr uint32_t cta = b_args.next_compile_time_args_offset();
  constexpr bool in0_sender = get_compile_time_arg_val(cta) != 0;
  constexpr bool in1_sender = get_compile_time_arg_val(cta + 1) != 0;
  constexpr uint32_t per_core_M = get_compile_time_arg_val(cta + 2);
  constexpr uint32_t per_core_N = get_compile_time_arg_val(cta + 3);
  constexpr uint32_t in0_block_w = get_compile_time_arg_val(cta + 4);
  constexpr uint32_t in0_sender_sem = get_compile_time_arg_val(cta + 5);
  constexpr uint32_t in0_receiver_sem = get_compile_time_arg_val(cta + 6);
  constexpr uint32_t in1_sender_sem = get_compile_time_arg_val(cta + 7);
  constexpr uint32_t in1_receiver_sem = get_compile_time_arg_val(cta + 8);
  constexpr uint32_t in0_block_tiles = per_core_M * in0_block_w;
  constexpr uint32_t in1_block_tiles = in0_block_w * per_core_N;
  constexpr uint32_t cb_in0 = 0;
  constexpr uint32_t cb_in1 = 1;

  const uint32_t in0_tile_bytes = get_tile_size(cb_in0);
  const uint32_t in1_tile_bytes = get_tile_size(cb_in1);
  const auto a = TensorAccessor(a_args, a_addr, in0_tile_bytes);
  const auto b = TensorAccessor(b_args, b_addr, in1_tile_bytes);
  // A sender's own receiver semaphore is the VALID word it multicasts.
  if constexpr (in0_sender)
    noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(get_semaphore(in0_receiver_sem)), kValid);
  if constexpr (in1_sender)
    noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(get_semaphore(in1_receiver_sem)), kValid);

  for (uint32_t kb = 0; kb < Kt / in0_block_w; ++kb) {
    const uint32_t k0 = kb * in0_block_w;

    cb_reserve_back(cb_in0, in0_block_tiles);
    const uint32_t in0_l1 = get_write_ptr(cb_in0);
    if constexpr (in0_sender) {
      uint32_t l1 = in0_l1;
      for (uint32_t m = 0; m < per_core_M; ++m)
        for (uint32_t k = 0; k < in0_block_w; ++k) {
          noc_async_read_tile((m0 + m) * Kt + k0 + k, a, l1);
          l1 += in0_tile_bytes;
        }
      noc_async_read_barrier();
      send_block(in0_link, in0_l1, in0_block_tiles * in0_tile_bytes, in0_sender_sem, in0_receiver_sem);
    } else {
      receive_block(in0_link, in0_sender_sem, in0_receiver_sem);
    }
    cb_push_back(cb_in0, in0_block_tiles);

    cb_reserve_back(cb_in1, in1_block_tiles);
    const uint32_t in1_l1 = get_write_ptr(cb_in1);
    if constexpr (in1_sender) {
      uint32_t l1 = in1_l1;
      for (uint32_t k = 0; k < in0_block_w; ++k)
        for (uint32_t n = 0; n < per_core_N; ++n) {
          noc_async_read_tile((k0 + k) * Nt + n0 + n, b, l1);
          l1 += in1_tile_bytes;
        }
      noc_async_read_barrier();
      send_block(in1_link, in1_l1, in1_block_tiles * in1_tile_bytes, in1_sender_sem, in1_receiver_sem);
    } else {
      receive_block(in1_link, in1_sender_sem, in1_receiver_sem);
    }
    cb_push_back(cb_in1, in1_block_tiles);
  }
  noc_async_write_barrier();
}
