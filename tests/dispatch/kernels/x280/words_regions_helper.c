/* The C half of words_regions: the API through the tessel_x280 pointer. */
#include "tessel/x280.h"

uint32_t sum_words(void) {
  uint32_t sum = 0;
  for (uint32_t i = 0; i < tessel_x280->word_count; ++i)
    sum += tessel_x280->words[i];
  return sum + 1000u * tessel_x280->cluster;
}
