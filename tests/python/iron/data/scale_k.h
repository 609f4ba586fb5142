#pragma once
static inline int32_t scale_k(int32_t v) { return v * SCALE + BIAS; }
