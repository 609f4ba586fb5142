// aie_api/aie_adf.hpp on tessel: the AIE API (aie.hpp). ADF's stream and
// window types are not part of IRON kernels and are not provided.
#ifndef TESSEL_AIE_API_AIE_ADF_HPP
#define TESSEL_AIE_API_AIE_ADF_HPP
#include "aie_api/aie.hpp"
#endif
