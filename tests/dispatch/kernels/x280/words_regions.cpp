// Reads its words and the region "input", writes "output" (input + word 0),
// logs, prints, and returns what the C helper computes from its words.
#include "tessel/x280.h"

#include <cstdio>

extern "C" uint32_t sum_words(void); // words_regions_helper.c

static uint32_t run() {
  x280::Region in = x280::region("input");
  x280::Region out = x280::region("output");
  x280::Region absent = x280::region("absent"); // a program region this thread did not declare
  if (absent.data != nullptr || absent.size_bytes != 0) x280::fail("an undeclared region was found");
  if (in.data == nullptr || out.data == nullptr || out.size_bytes < in.size_bytes) x280::fail("a region is missing");
  for (uint64_t i = 0; i < in.size_bytes; ++i)
    out.data[i] = uint8_t(in.data[i] + x280::word(0));
  char line[64];
  std::snprintf(line, sizeof line, "cluster %u words %u", x280::cluster(), x280::word_count());
  x280::log(line);
  x280::log("two\nlines");
  std::printf("hello from the thread\n");
  return sum_words();
}

TESSEL_X280_THREAD(run)
