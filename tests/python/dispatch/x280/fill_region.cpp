// Adds its cluster's number to every byte of region "buf" (each thread of a
// program has a copy of its own), logs one line naming its cluster and the
// region's size, and returns 100 * cluster + word(0).
#include "tessel/x280.h"

#include <cstdio>

static uint32_t run() {
  const x280::Region buf = x280::region("buf");
  if (buf.data == nullptr) x280::fail("fill_region: no region \"buf\"");
  const uint8_t add = uint8_t(x280::cluster());
  for (uint64_t i = 0; i < buf.size_bytes; ++i)
    buf.data[i] = uint8_t(buf.data[i] + add);
  char line[96];
  std::snprintf(line, sizeof line, "cluster %u filled %llu bytes", x280::cluster(), (unsigned long long)buf.size_bytes);
  x280::log(line);
  return 100 * x280::cluster() + x280::word(0);
}

TESSEL_X280_THREAD(run)
