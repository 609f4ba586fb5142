// expect: aie::vector: the size must be a power of two and 128 to 4096 bits in all
#include <aie_api/aie.hpp>
aie::vector<int32_t, 12> v;
