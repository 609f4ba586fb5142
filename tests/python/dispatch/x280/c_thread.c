/* A thread in C, through the tessel_x280 pointer: sends handler word(0) to
   core word(1) with KM_FLAG_RESULT and the sum of words 2.. as its argument,
   waits for it, and returns its result word (0xdead when asked to stop). */
#include "tessel/x280.h"

static uint32_t run(void) {
  uint32_t sum = 0;
  for (uint32_t i = 2; i < tessel_x280->word_count; ++i)
    sum += tessel_x280->word(i);
  const uint32_t ticket = tessel_x280->submit(tessel_x280->word(0), tessel_x280->word(1), 1, &sum, 1, KM_FLAG_RESULT);
  uint32_t result = 0;
  if (!tessel_x280->wait(ticket, &result)) return 0xdead;
  tessel_x280->log("c thread done");
  return result;
}

TESSEL_X280_THREAD(run)
