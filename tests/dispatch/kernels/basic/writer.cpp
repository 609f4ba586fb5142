#include "../basic.hpp"
#include "dataflow_api.h"
#include "tessel/persistent.h"

void fill(const persistent::Command& c) {
  const uint32_t address = c.arg(0), page_bytes = c.arg(1), value = c.arg(2);
  const uint32_t page = c.index;
  const InterleavedAddrGen<true> pages = {.bank_base_address = address, .page_size = page_bytes};
  const uint32_t l1 = get_write_ptr(kScratchCb);
  volatile uint32_t* words = reinterpret_cast<volatile uint32_t*>(l1);
  for (uint32_t i = 0; i < page_bytes / 4; ++i)
    words[i] = value + page;
  noc_async_write(l1, get_noc_addr(page, pages), page_bytes);
  noc_async_write_barrier();
}

uint32_t result(const persistent::Command& c) { return c.arg(0) * 2 + c.index; }

TESSEL_PERSISTENT_KERNEL(TESSEL_HANDLER(kHandlerFill, fill), TESSEL_HANDLER(kHandlerResult, result))
