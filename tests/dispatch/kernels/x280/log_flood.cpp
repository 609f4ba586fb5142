// Logs one 300-character line, then word(0) short ones as fast as it can.
#include "tessel/x280.h"

#include <cstdio>
#include <string>

static uint32_t run() {
  x280::log(std::string(300, 'x').c_str());
  char line[32];
  for (uint32_t i = 0; i < x280::word(0); ++i) {
    std::snprintf(line, sizeof line, "line %u", i);
    x280::log(line);
  }
  return 0;
}

TESSEL_X280_THREAD(run)
