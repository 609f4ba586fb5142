// expect: aie multiply: both operands must be integer or both floating point
#include <aie_api/aie.hpp>
auto f(aie::vector<int16_t, 16> a, aie::vector<bfloat16, 16> b) { return aie::mul(a, b); }
