// dispatch_thread's X280 thread: sums the uint32 values of region "values"
// into region "total" (a uint64), chunk by chunk, while the grid works on
// the host's commands. After each chunk it sends the grid a map job of its
// own (words: handler, first core, cores, input and output addresses, the
// job's first tile) and waits for it: a third source of the dispatcher's
// one sequence. Returns the chunks summed.
#include "tessel/x280.h"

static uint32_t reduce() {
  const x280::Region values = x280::region("values");
  const x280::Region total = x280::region("total");
  if (!values.data || !total.data || total.size_bytes < 8) x280::fail("regions 'values' and 'total' are needed");
  const uint32_t handler = x280::word(0), first = x280::word(1), cores = x280::word(2);
  const uint32_t src = x280::word(3), dst = x280::word(4), tile = x280::word(5), chunks = x280::word(6);
  const uint32_t* v = reinterpret_cast<const uint32_t*>(values.data);
  const uint64_t n = values.size_bytes / 4, per_chunk = (n + chunks - 1) / chunks;
  uint64_t sum = 0;
  uint32_t done = 0;
  for (uint64_t at = 0; at < n; at += per_chunk, ++done) {
    for (uint64_t i = at; i < at + per_chunk && i < n; ++i)
      sum += v[i];
    if (x280::stop_requested()) break;
    const uint32_t ticket = x280::submit(handler, first, cores, {src, dst, tile + done * cores});
    if (!x280::wait(ticket)) break;
  }
  for (int b = 0; b < 8; ++b)
    total.data[b] = uint8_t(sum >> (8 * b));
  return done;
}

TESSEL_X280_THREAD(reduce)
