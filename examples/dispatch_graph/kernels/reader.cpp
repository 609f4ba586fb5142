// graph, reader: the four handlers, each a read-modify-write of the rows of
// its group's cores (the norm's leader reads them all).
#include "api/dataflow/dataflow_api.h"
#include "graph.hpp"
#include "tessel/persistent.h"

namespace {

InterleavedAddrGen<true> rows(uint32_t state) { return {.bank_base_address = state, .page_size = kRowBytes}; }

template <typename F>
void update_row(uint32_t state, uint32_t row, F f) {
  const uint32_t l1 = get_write_ptr(kCbRow);
  volatile uint32_t* x = reinterpret_cast<volatile uint32_t*>(l1);
  const uint64_t at = get_noc_addr(row, rows(state));
  noc_async_read(at, l1, kRowBytes);
  noc_async_read_barrier();
  for (uint32_t j = 0; j < kWords; ++j)
    x[j] = f(x[j]);
  noc_async_write(l1, at, kRowBytes);
  noc_async_write_barrier();
}

uint32_t row_of(const persistent::Command& c) { return c.first_core + c.index; }

} // namespace

void step(const persistent::Command& c) {
  const uint32_t add = c.arg(1) + 1;
  update_row(c.arg(0), row_of(c), [&](uint32_t x) { return x + add; });
}

void left(const persistent::Command& c) {
  update_row(c.arg(0), row_of(c), [](uint32_t x) { return x * 2; });
}

void right(const persistent::Command& c) {
  update_row(c.arg(0), row_of(c), [](uint32_t x) { return x + x / 2; });
}

uint32_t norm(const persistent::Command& c) {
  if (!c.leader()) return 0;
  const uint32_t l1 = get_write_ptr(kCbRow);
  const volatile uint32_t* x = reinterpret_cast<const volatile uint32_t*>(l1);
  uint64_t sum = 0;
  for (uint32_t r = 0; r < c.arg(1); ++r) {
    noc_async_read(get_noc_addr(r, rows(c.arg(0))), l1, kRowBytes);
    noc_async_read_barrier();
    for (uint32_t j = 0; j < kWords; ++j)
      sum += x[j];
  }
  return sum > 0xFFFFFFFFull ? 0xFFFFFFFFu : uint32_t(sum);
}

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerStep, step), TESSEL_HANDLER(kHandlerLeft, left),
                         TESSEL_HANDLER(kHandlerRight, right), TESSEL_HANDLER(kHandlerNorm, norm))
