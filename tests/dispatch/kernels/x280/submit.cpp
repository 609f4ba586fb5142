// Submits word(0) commands of handler 7 (more than fit in flight), then
// waits for each and checks its result (the card answers args[0] + args[1]);
// then one command of handler 8 with ten arguments, awaited with wait_all.
// Returns word(0) when every result was right.
#include "tessel/x280.h"

static uint32_t run() {
  const uint32_t n = x280::word(0);
  uint32_t tickets[256];
  if (n > 256) x280::fail("at most 256 commands");
  for (uint32_t i = 0; i < n; ++i)
    tickets[i] = x280::submit(7, i % 4, 1, {i, 3 * i}, KM_FLAG_RESULT);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t result = 0;
    if (!x280::wait(tickets[i], &result)) return 0xdead;
    if (result != 4 * i) ++wrong;
  }
  const uint32_t args[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const uint32_t ticket = x280::submit(8, 2, 3, args, 10, KM_FLAG_EXCLUSIVE);
  if (!x280::wait_all()) return 0xdead;
  uint32_t result = 0;
  if (!x280::wait(ticket, &result) || result != 55) ++wrong;
  return wrong == 0 ? n : 0xbad00000u + wrong;
}

TESSEL_X280_THREAD(run)
