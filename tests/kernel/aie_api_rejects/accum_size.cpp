// expect: aie::accum: the lane count must be a power of two and 128 to 2048 bits in all
#include <aie_api/aie.hpp>
aie::accum<acc64, 64> a;
