// expect: aie::bit_and: bit operations take integer vectors
#include <aie_api/aie.hpp>
auto f(aie::vector<float, 16> a) { return aie::bit_and(a, a); }
