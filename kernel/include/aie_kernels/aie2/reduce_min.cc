// reduce_min.cc (tessel's kernel library): the smallest of n elements.
//   reduce_min_vector(int32 in, out, n), reduce_min_scalar(...)
//   reduce_min_vector_bfloat16(bfloat16 in, out, n), reduce_min_scalar_bfloat16(...)
//   compute_min(a, b, out), compute_min_bfloat16(a, b, out): *out = min(*a, *b)
// REDUCE_MIN_ELEMS, when defined, replaces n.
#include "../reduce_extreme.h"

#ifdef REDUCE_MIN_ELEMS
#define TESSEL_REDUCE_MIN_COUNT(n) REDUCE_MIN_ELEMS
#else
#define TESSEL_REDUCE_MIN_COUNT(n) (n)
#endif

extern "C" {

void reduce_min_vector(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  reduce_extreme_vector<false>(a_in, c_out, TESSEL_REDUCE_MIN_COUNT(input_size));
}
void reduce_min_scalar(int32_t* a_in, int32_t* c_out, int32_t input_size) {
  reduce_extreme_scalar<false>(a_in, c_out, TESSEL_REDUCE_MIN_COUNT(input_size));
}
void reduce_min_vector_bfloat16(bfloat16* a_in, bfloat16* c_out, int32_t input_size) {
  reduce_extreme_vector<false>(a_in, c_out, TESSEL_REDUCE_MIN_COUNT(input_size));
}
void reduce_min_scalar_bfloat16(bfloat16* a_in, bfloat16* c_out, int32_t input_size) {
  reduce_extreme_scalar<false>(a_in, c_out, TESSEL_REDUCE_MIN_COUNT(input_size));
}
void compute_min(int32_t* a_in, int32_t* b_in, int32_t* c_out) { *c_out = pick_extreme<false>(*a_in, *b_in); }
void compute_min_bfloat16(bfloat16* a_in, bfloat16* b_in, bfloat16* c_out) {
  *c_out = pick_extreme<false>(*a_in, *b_in);
}

} // extern "C"

#undef TESSEL_REDUCE_MIN_COUNT
