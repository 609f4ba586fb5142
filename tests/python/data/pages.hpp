// External functions for tessel.ttl's operation tests (test_ttl_operation.py),
// written to its calling convention (docs/python.md, "tessel.ttl").
//
// The output tensor `out` is L1-interleaved on a 2x1 grid: L1 bank b is
// core (b, 0), so core x holds out's pages x (at the accessor's base address,
// "slot 0") and x + 2 (one page further, "slot 1"), in its own L1. Reading a
// page through an accessor into a slot is then a plain local NoC read, and
// whether the right page arrives depends on that accessor's compile-time args
// being read at the right offset.
#pragma once

#include "api/dataflow/dataflow_api.h"

// Runtime args [page_a, page_b]: a's page_a to slot 0, b's page_b to slot 1.
// Define ADD_TO_PAGE_A (optional) is added to page_a.
template <typename A, typename B, typename Out>
void copy_pages(const A& a, const B& b, const Out& out) {
  uint32_t page_a = get_arg_val<uint32_t>(0);
  const uint32_t page_b = get_arg_val<uint32_t>(1);
#ifdef ADD_TO_PAGE_A
  page_a += ADD_TO_PAGE_A;
#endif
  const uint32_t slot0 = out.bank_base_address;
  noc_async_read_page(page_a, a, slot0);
  noc_async_read_page(page_b, b, slot0 + out.get_page_size());
  noc_async_read_barrier();
}

// No runtime args: core x copies src's page x to its slot 0.
template <typename Src, typename Out>
void copy_own_page(const Src& src, const Out& out) {
  noc_async_read_page(get_absolute_logical_x(), src, out.bank_base_address);
  noc_async_read_barrier();
}
