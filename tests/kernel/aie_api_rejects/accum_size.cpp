// expect: aie::accum: the lane count must be a power of two and 128 to 4096 bits in all
#include <aie_api/aie.hpp>
aie::accum<acc64, 128> a;
