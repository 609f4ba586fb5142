// One player of semaphore ping-pong: two cores pass a token back and forth
// num_hops times. Hop h (1-based) is made by the starter when h is odd and by
// the responder when h is even. A hop writes h into the peer's inbox word
// (noc_async_write, then a write barrier so the data lands first) and then
// increments the peer's semaphore. The receiver waits on its own semaphore:
// the starter with noc_semaphore_wait_min on a running count, the responder
// with noc_semaphore_wait(1) and a reset to 0, so both wait forms are used.
//
// Mailbox CB page (the same L1 address on both cores):
//   +0  inbox: the peer's last hop number
//   +16 outbox: the word this core sends
//   +32 result record, written to DRAM page result_page at the end:
//       [last hop number received, tokens received, mismatches, final semaphore]
//
// Compile-time args: TensorAccessorArgs of the result buffer (2), semaphore id.
// Runtime args: peer NoC x, peer NoC y, hops, is_starter, result address, result page.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t peer_x = get_arg_val<uint32_t>(0);
  const uint32_t peer_y = get_arg_val<uint32_t>(1);
  const uint32_t num_hops = get_arg_val<uint32_t>(2);
  const bool is_starter = get_arg_val<uint32_t>(3) != 0;
  const uint32_t result_addr = get_arg_val<uint32_t>(4);
  const uint32_t result_page = get_arg_val<uint32_t>(5);

  constexpr auto result_args = TensorAccessorArgs<0>();
  constexpr uint32_t sem_id = get_compile_time_arg_val(result_args.next_compile_time_args_offset());
  constexpr uint32_t mailbox_cb = 0;

  const uint32_t sem_addr = get_semaphore(sem_id);
  volatile uint32_t* sem = reinterpret_cast<volatile uint32_t*>(sem_addr);
  const uint64_t peer_sem = get_noc_addr(peer_x, peer_y, sem_addr);

  const uint32_t mailbox = get_write_ptr(mailbox_cb);
  const uint32_t inbox_addr = mailbox;
  const uint32_t outbox_addr = mailbox + 16;
  const uint32_t record_addr = mailbox + 32;
  volatile uint32_t* inbox = reinterpret_cast<volatile uint32_t*>(inbox_addr);
  volatile uint32_t* outbox = reinterpret_cast<volatile uint32_t*>(outbox_addr);
  const uint64_t peer_inbox = get_noc_addr(peer_x, peer_y, inbox_addr);

  uint32_t last = 0, received = 0, mismatches = 0;
  for (uint32_t hop = 1; hop <= num_hops; ++hop) {
    const bool my_turn = ((hop & 1) == 1) == is_starter;
    if (my_turn) {
      *outbox = hop;
      noc_async_write(outbox_addr, peer_inbox, 4);
      noc_async_write_barrier();
      noc_semaphore_inc(peer_sem, 1);
    } else {
      ++received;
      if (is_starter) {
        noc_semaphore_wait_min(sem, received);
      } else {
        noc_semaphore_wait(sem, 1);
        noc_semaphore_set(sem, 0);
      }
      last = *inbox;
      if (last != hop) ++mismatches;
    }
  }

  volatile uint32_t* record = reinterpret_cast<volatile uint32_t*>(record_addr);
  record[0] = last;
  record[1] = received;
  record[2] = mismatches;
  record[3] = *sem;
  const auto result = TensorAccessor(result_args, result_addr, 16);
  noc_async_write_page(result_page, result, record_addr);
  noc_async_write_barrier();
}
