// Commands the kernel rejects, and one it runs, of handler word(0):
//  1. to group (word(1), word(2)), which lies outside the grid;
//  2. queued (a count of 1) and exclusive at once;
//  3. to core word(3) alone with KM_FLAG_RESULT and argument 21.
// Writes the three result words into region "out" (uint32) and returns the
// first, which the kernel answers with KM_X280_REJECTED.
#include "tessel/x280.h"

static uint32_t run() {
  const uint32_t handler = x280::word(0);
  const uint32_t tickets[3] = {
      x280::submit(handler, x280::word(1), x280::word(2), {7}, KM_FLAG_RESULT),
      x280::submit(handler, 0, 1, {7}, KM_FLAG_QUEUE | KM_FLAG_EXCLUSIVE),
      x280::submit(handler, x280::word(3), 1, {21}, KM_FLAG_RESULT),
  };
  const x280::Region out = x280::region("out");
  if (out.size_bytes < sizeof tickets) x280::fail("rejected: region \"out\" holds fewer than 12 bytes");
  auto* results = reinterpret_cast<uint32_t*>(out.data);
  for (int i = 0; i < 3; ++i)
    if (!x280::wait(tickets[i], &results[i])) return 0xdead;
  return results[0];
}

TESSEL_X280_THREAD(run)
