// reduce_max.cc (tessel's kernel library): the largest of n elements.
//   reduce_max_vector(int32 in, out, n), reduce_max_scalar(...)
//   reduce_max_vector_bfloat16(bfloat16 in, out, n), reduce_max_scalar_bfloat16(...)
//   compute_max(a, b, out), compute_max_bfloat16(a, b, out): *out = max(*a, *b)
// REDUCE_MAX_ELEMS, when defined, replaces n.
#include "../reduce_extreme.h"

#ifdef REDUCE_MAX_ELEMS
#define TESSEL_REDUCE_MAX_COUNT(n) REDUCE_MAX_ELEMS
#else
#define TESSEL_REDUCE_MAX_COUNT(n) (n)
#endif

extern "C" {

void reduce_max_vector(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  reduce_extreme_vector<true>(a_in, c_out, TESSEL_REDUCE_MAX_COUNT(input_size));
}
void reduce_max_scalar(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  reduce_extreme_scalar<true>(a_in, c_out, TESSEL_REDUCE_MAX_COUNT(input_size));
}
void reduce_max_vector_bfloat16(bfloat16* a_in, bfloat16* c_out, int32_t input_size) {
  reduce_extreme_vector<true>(a_in, c_out, TESSEL_REDUCE_MAX_COUNT(input_size));
}
void reduce_max_scalar_bfloat16(bfloat16* a_in, bfloat16* c_out, int32_t input_size) {
  reduce_extreme_scalar<true>(a_in, c_out, TESSEL_REDUCE_MAX_COUNT(input_size));
}
void compute_max(int32_t* a_in, int32_t* b_in, int32_t* c_out) { *c_out = pick_extreme<true>(*a_in, *b_in); }
void compute_max_bfloat16(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  *c_out = pick_extreme<true>(*a_in, *b_in);
}

} // extern "C"

#undef TESSEL_REDUCE_MAX_COUNT
