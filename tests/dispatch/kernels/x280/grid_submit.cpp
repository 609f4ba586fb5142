// On a loaded run: sends word(0) commands of handler word(1) (the basic
// program's `result`: 2 * arg0 + the core's index) to group (word(2),
// word(3)) with KM_FLAG_RESULT, several in flight, and checks each result;
// then one command whose group lies outside the grid (word(4) cores), which
// the kernel answers with KM_X280_REJECTED. Sums region "in" (uint32 values)
// into region "out". Returns the commands whose result was right.
#include "tessel/x280.h"

static uint32_t run() {
  const uint32_t n = x280::word(0), handler = x280::word(1), first = x280::word(2), count = x280::word(3);
  uint32_t tickets[64];
  uint32_t right = 0;
  for (uint32_t base = 0; base < n; base += 8) {
    const uint32_t batch = n - base < 8 ? n - base : 8;
    for (uint32_t i = 0; i < batch; ++i)
      tickets[i] = x280::submit(handler, first, count, {base + i}, KM_FLAG_RESULT);
    for (uint32_t i = 0; i < batch; ++i) {
      uint32_t result = 0;
      if (!x280::wait(tickets[i], &result)) return 0xdead;
      right += result == 2 * (base + i);
    }
  }
  uint32_t result = 0;
  if (!x280::wait(x280::submit(handler, 0, x280::word(4) + 1, {1}, 0), &result) || result != KM_X280_REJECTED)
    return 0xbad;
  const x280::Region in = x280::region("in"), out = x280::region("out");
  uint64_t sum = 0;
  for (uint64_t i = 0; i < in.size_bytes / 4; ++i)
    sum += reinterpret_cast<const uint32_t*>(in.data)[i];
  *reinterpret_cast<uint64_t*>(out.data) = sum;
  return right;
}

TESSEL_X280_THREAD(run)
