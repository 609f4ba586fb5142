// expect: aie::vector: the element type must be int8, uint8, int16, uint16, int32, uint32, bfloat16 or float
#include <aie_api/aie.hpp>
aie::vector<double, 8> v;
