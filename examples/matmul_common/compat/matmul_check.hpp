// The check the Metalium-style matmul host programs share: C = A B in bf16
// (row-major a: M x K, b: K x N, c: M x N) against a float64 reference. It
// passes when PCC >= 0.999 and every value is within `roundings` bfloat16
// roundings (2^-8 each) of sum_k |a_ik b_kj|. Prints one line starting with
// `what`.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <tt-metalium/bfloat16.hpp>

inline bool check_bf16_matmul(const std::vector<bfloat16>& a, const std::vector<bfloat16>& b,
                              const std::vector<bfloat16>& c, uint32_t M, uint32_t N, uint32_t K, double roundings,
                              const char* what) {
  const double u = std::ldexp(1.0, -8) * roundings;
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  uint32_t outside = 0;
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double ref = 0, abs_sum = 0;
      for (uint32_t k = 0; k < K; ++k) {
        const double p = double(float(a[i * K + k])) * double(float(b[k * N + j]));
        ref += p;
        abs_sum += std::fabs(p);
      }
      const double got = float(c[i * N + j]);
      if (!(std::fabs(got - ref) <= u * abs_sum)) ++outside;
      sx += ref, sy += got, sxx += ref * ref, syy += got * got, sxy += ref * got;
    }
  const double n = double(M) * N;
  const double pcc = (sxy - sx * sy / n) / std::sqrt((sxx - sx * sx / n) * (syy - sy * sy / n));
  std::printf("%s: %u x %u x %u: PCC %.6f, %u values outside their bound\n", what, M, N, K, pcc, outside);
  return pcc >= 0.999 && outside == 0;
}
