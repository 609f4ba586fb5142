// The AIE API on tessel: sliding multiplication (aie::sliding_mul_ops and its
// _x/_y/_xy forms, aie::sliding_mul), the multi-lane multiply of FIR filters
// and convolutions:
//
//   out[l] = sum over p < Points of
//            coeff[cs + p * CoeffStep] * data[ds + l * DataStepY + p * DataStepX]
//
// for each of Lanes lanes, cs = coeff_start and ds = data_start. Indices
// wrap around their vector (the AIE indexes the coefficients modulo the
// vector length, as IRON's kernels rely on; the data the same way). Each lane
// adds its products in p order onto the accumulator (mac) or onto zero (mul);
// negmul/negmac subtract them. Numerics as multiply.hpp says: integer lanes
// exact with wrap-around at the lane width, float lanes fp32 rounded after
// each addition (the AIE's adder tree may group them otherwise).
#ifndef TESSEL_AIE_API_DETAIL_SLIDING_MUL_HPP
#define TESSEL_AIE_API_DETAIL_SLIDING_MUL_HPP

#include "aie_api/detail/multiply.hpp"

namespace aie {

template <unsigned Lanes, unsigned Points, int CoeffStep = 1, int DataStepX = 1, int DataStepY = DataStepX,
          typename CoeffType = int16, typename DataType = int16, typename AccumTag = void>
struct sliding_mul_ops {
  static_assert(Lanes >= 1 && Points >= 1, "aie::sliding_mul_ops: Lanes and Points must be at least 1");
  using accum_tag = detail::product_tag_t<AccumTag, CoeffType, DataType>;
  using accum_type = accum<accum_tag, Lanes>;
  using coeff_type = CoeffType;
  using data_type = DataType;
  static constexpr unsigned lanes = Lanes, points = Points;

  template <unsigned NC, unsigned ND>
  static accum_type mul(const vector<CoeffType, NC>& coeff, unsigned coeff_start, const vector<DataType, ND>& data,
                        unsigned data_start) {
    return slide(accum_type(), coeff, coeff_start, data, data_start, 1);
  }
  template <unsigned NC, unsigned ND>
  static accum_type mac(const accum_type& acc, const vector<CoeffType, NC>& coeff, unsigned coeff_start,
                        const vector<DataType, ND>& data, unsigned data_start) {
    return slide(acc, coeff, coeff_start, data, data_start, 1);
  }
  template <unsigned NC, unsigned ND>
  static accum_type negmul(const vector<CoeffType, NC>& coeff, unsigned coeff_start, const vector<DataType, ND>& data,
                           unsigned data_start) {
    return slide(accum_type(), coeff, coeff_start, data, data_start, -1);
  }
  template <unsigned NC, unsigned ND>
  static accum_type negmac(const accum_type& acc, const vector<CoeffType, NC>& coeff, unsigned coeff_start,
                           const vector<DataType, ND>& data, unsigned data_start) {
    return slide(acc, coeff, coeff_start, data, data_start, -1);
  }

private:
  static unsigned wrap(int64_t i, unsigned n) { return unsigned(((i % int64_t(n)) + int64_t(n)) % int64_t(n)); }

  template <unsigned NC, unsigned ND>
  static accum_type slide(accum_type r, const vector<CoeffType, NC>& coeff, unsigned coeff_start,
                               const vector<DataType, ND>& data, unsigned data_start, int sign) {
    detail::check_product_types<accum_tag, CoeffType, DataType>();
    for (unsigned l = 0; l < Lanes; ++l)
      for (unsigned p = 0; p < Points; ++p) {
        const CoeffType c = coeff.elems_[wrap(int64_t(coeff_start) + int64_t(p) * CoeffStep, NC)];
        const DataType d =
            data.elems_[wrap(int64_t(data_start) + int64_t(l) * DataStepY + int64_t(p) * DataStepX, ND)];
        const auto prod = detail::product<accum_tag>(c, d);
        r.add_lane(l, sign > 0 ? prod : -prod);
      }
    return r;
  }
};

template <unsigned Lanes, unsigned Points, int CoeffStep, int DataStepX, typename CoeffType, typename DataType,
          typename AccumTag = void>
using sliding_mul_x_ops = sliding_mul_ops<Lanes, Points, CoeffStep, DataStepX, 1, CoeffType, DataType, AccumTag>;
template <unsigned Lanes, unsigned Points, int CoeffStep, int DataStepY, typename CoeffType, typename DataType,
          typename AccumTag = void>
using sliding_mul_y_ops = sliding_mul_ops<Lanes, Points, CoeffStep, 1, DataStepY, CoeffType, DataType, AccumTag>;
template <unsigned Lanes, unsigned Points, int CoeffStep, int DataStepXY, typename CoeffType, typename DataType,
          typename AccumTag = void>
using sliding_mul_xy_ops =
    sliding_mul_ops<Lanes, Points, CoeffStep, DataStepXY, DataStepXY, CoeffType, DataType, AccumTag>;

// The function forms: sliding_mul<Lanes, Points, CoeffStep, DataStepX, DataStepY>(coeff, cs, data, ds).
template <unsigned Lanes, unsigned Points, int CoeffStep = 1, int DataStepX = 1, int DataStepY = DataStepX,
          typename AccumTag = void, typename C, unsigned NC, typename D, unsigned ND>
auto sliding_mul(const vector<C, NC>& coeff, unsigned coeff_start, const vector<D, ND>& data, unsigned data_start) {
  return sliding_mul_ops<Lanes, Points, CoeffStep, DataStepX, DataStepY, C, D, AccumTag>::mul(coeff, coeff_start, data,
                                                                                              data_start);
}
template <unsigned Lanes, unsigned Points, int CoeffStep = 1, int DataStepX = 1, int DataStepY = DataStepX,
          typename Tag, typename C, unsigned NC, typename D, unsigned ND>
accum<Tag, Lanes> sliding_mac(const accum<Tag, Lanes>& acc, const vector<C, NC>& coeff, unsigned coeff_start,
                              const vector<D, ND>& data, unsigned data_start) {
  return sliding_mul_ops<Lanes, Points, CoeffStep, DataStepX, DataStepY, C, D, Tag>::mac(acc, coeff, coeff_start, data,
                                                                                         data_start);
}

} // namespace aie

#endif
