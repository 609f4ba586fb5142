// A Metal 2.0 data-movement kernel with a scratchpad binding, for
// tessel compile --scratch.
#include "api/dataflow/noc.h"
#include "api/scratchpad.h"
#include "experimental/kernel_args.h"

void kernel_main() {
  Scratchpad<uint32_t> pad(scratch::pad);
  for (uint32_t i = 0; i < pad.size(); ++i)
    pad[i] = get_arg(args::value);
}
