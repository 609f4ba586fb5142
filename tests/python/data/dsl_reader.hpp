// An external data-movement function for tessel.ttl's DSL tests
// (test_ttl_dsl.py): it fills CB 0, the operation's first dataflow buffer,
// with page 0 of `src`, as a reader kernel function would.
#pragma once

#include "api/dataflow/dataflow_api.h"

template <typename Src>
void read_first_tile_into_cb0(const Src& src) {
  cb_reserve_back(0, 1);
  noc_async_read_page(0, src, get_write_ptr(0));
  noc_async_read_barrier();
  cb_push_back(0, 1);
}
