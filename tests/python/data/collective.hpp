// collective_sender: the external function of the spec's make_collective
// example (tests/python/test_ttl_collective.py), written to tessel.ttl's
// calling convention (docs/python.md, "tessel.ttl"): one TensorAccessor per
// tensor argument, runtime args and defines from the runtime resource factory.
//
// Two cores run it. Runtime args: 0 = the caller semaphore's id, 1 = this
// core's index in the collective (0 sends, 1 receives). The output is an L1
// tensor whose page i lives on core (i, 0), at the accessor's base address in
// that core's L1: an L1-interleaved tensor (L1 bank b is logical core
// (b % grid_x, b / grid_x)) or one sharded a page per core over banks 0, 1.
//
// The sender reads input page 0 into its own output page, then raises the
// receiver's semaphore; the receiver waits for it, then reads the sender's
// output page into its own. Without the semaphore the receiver could copy
// the page before it is written. The factory's define FABRIC_2D must be 1.
#pragma once

#include "api/dataflow/dataflow_api.h"

#if !defined(FABRIC_2D) || FABRIC_2D != 1
#error "collective_sender needs the runtime resource factory's define FABRIC_2D=1"
#endif

template <typename Input, typename Output>
void collective_sender(const Input& input, const Output& output) {
  const uint32_t semaphore = get_arg_val<uint32_t>(0);
  const uint32_t index = get_arg_val<uint32_t>(1);
  const uint32_t own_page = output.bank_base_address; // this core's output page, in its own L1
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(semaphore));
  if (index == 0) {
    noc_async_read_page(0, input, own_page);
    noc_async_read_barrier();
    // L1 bank 1 is the receiver, core (1, 0).
    noc_semaphore_inc(get_noc_addr_from_bank_id<false>(1, get_semaphore(semaphore)), 1);
    noc_async_atomic_barrier();
  } else {
    noc_semaphore_wait(flag, 1);
    noc_semaphore_set(flag, 0);
    noc_async_read_page(0, output, own_page);
    noc_async_read_barrier();
  }
}
