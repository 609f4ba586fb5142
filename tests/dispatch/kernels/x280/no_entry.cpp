// A source without TESSEL_X280_THREAD.
#include "tessel/x280.h"

uint32_t not_an_entry() { return 1; }
