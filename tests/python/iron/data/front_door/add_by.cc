// A kernel built by a Makefile with -DADD_BY=<k> (as IRON's transpose.cc
// needs -DDIM_m/-DDIM_n): the design names only its object, add_by.o.
#include <stdint.h>
#ifndef ADD_BY
#error "add_by.cc: build with -DADD_BY=<k>"
#endif
extern "C" void add_by(int32_t* in, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + ADD_BY;
}
