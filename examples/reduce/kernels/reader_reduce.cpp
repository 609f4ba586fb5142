// Fills the scaler CB, then feeds the input tiles this core reduces.
//
// Scaler (CB 2, one Float16_b tile): zeros, with the scaler in the first row
// of each face, as reduce_tile expects (it uses element [0][0]).
// Input (CB 0): for each of num_outputs outputs o, tiles_per_output tiles
// i, tile first + o * output_stride + i * input_stride of the input; the
// compute kernel reduces each output's tiles into one tile.
//
// Compile-time args: TensorAccessorArgs of the input.
// Runtime args: input address, scaler (bf16 bits), num_outputs,
// tiles_per_output, first tile, output_stride, input_stride.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  const uint32_t src_addr = get_arg_val<uint32_t>(0);
  const uint32_t scaler_bits = get_arg_val<uint32_t>(1);
  const uint32_t num_outputs = get_arg_val<uint32_t>(2);
  const uint32_t tiles_per_output = get_arg_val<uint32_t>(3);
  const uint32_t first = get_arg_val<uint32_t>(4);
  const uint32_t output_stride = get_arg_val<uint32_t>(5);
  const uint32_t input_stride = get_arg_val<uint32_t>(6);
  constexpr uint32_t cb_in = 0;
  constexpr uint32_t cb_scaler = 2;
  constexpr uint32_t kFaces = 4, kFaceHW = 256, kFaceWidth = 16;

  cb_reserve_back(cb_scaler, 1);
  volatile uint16_t* scaler = reinterpret_cast<volatile uint16_t*>(get_write_ptr(cb_scaler));
  for (uint32_t i = 0; i < kFaces * kFaceHW; ++i)
    scaler[i] = 0;
  for (uint32_t f = 0; f < kFaces; ++f)
    for (uint32_t c = 0; c < kFaceWidth; ++c)
      scaler[f * kFaceHW + c] = uint16_t(scaler_bits);
  cb_push_back(cb_scaler, 1);

  constexpr auto src_args = TensorAccessorArgs<0>();
  const auto src = TensorAccessor(src_args, src_addr, get_tile_size(cb_in));
  for (uint32_t o = 0; o < num_outputs; ++o)
    for (uint32_t i = 0; i < tiles_per_output; ++i) {
      cb_reserve_back(cb_in, 1);
      noc_async_read_tile(first + o * output_stride + i * input_stride, src, get_write_ptr(cb_in));
      noc_async_read_barrier();
      cb_push_back(cb_in, 1);
    }
}
