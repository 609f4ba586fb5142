// aie_api/utils.hpp on tessel: the AIE API (aie.hpp). The library's
// printing helpers (aie::print) are not provided: kernels do no I/O here.
#ifndef TESSEL_AIE_API_UTILS_HPP
#define TESSEL_AIE_API_UTILS_HPP
#include "aie_api/aie.hpp"
#endif
