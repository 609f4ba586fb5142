// tessel.formats over the C++ packers (tile.hpp): the same code, so the
// same bits.
#include <nanobind/ndarray.h>

#include <cstring>

#include "bindings.hpp"
#include "tessel/tile.hpp"

namespace tessel::python {

namespace {

template <typename T>
using In = nb::ndarray<const T, nb::c_contig, nb::device::cpu>;
template <typename T>
using Out = nb::ndarray<nb::numpy, T, nb::ndim<1>>;

template <typename T>
Out<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return Out<T>(heap->data(), {heap->size()}, owner);
}

template <typename T>
std::span<const T> span_of(const In<T>& a) {
  return {a.data(), a.size()};
}

template <typename T>
void bind_layout(nb::module_& m) {
  m.def("tilize", [](In<T> a, uint32_t rows, uint32_t cols) { return to_numpy(tilize(span_of(a), rows, cols)); });
  m.def("untilize", [](In<T> a, uint32_t rows, uint32_t cols) { return to_numpy(untilize(span_of(a), rows, cols)); });
}

} // namespace

void bind_formats(nb::module_& top) {
  nb::module_ m = top.def_submodule("formats");
  m.def("bf16_bits", [](In<float> a) {
    std::vector<uint16_t> out(a.size());
    const float* src = a.data();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = float_to_bf16(src[i]);
    return to_numpy(std::move(out));
  });
  m.def("bf16_values", [](In<uint16_t> a) {
    std::vector<float> out(a.size());
    const uint16_t* src = a.data();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = bf16_to_float(src[i]);
    return to_numpy(std::move(out));
  });
  bind_layout<float>(m);
  bind_layout<uint32_t>(m);
  bind_layout<int32_t>(m);
  bind_layout<uint16_t>(m);
  bind_layout<uint8_t>(m);
  m.def("pack_tiles",
        [](In<float> tilized, uint8_t format) { return to_numpy(pack_tiles(span_of(tilized), DataFormat(format))); });
  m.def("unpack_tiles",
        [](In<uint8_t> packed, uint8_t format) { return to_numpy(unpack_tiles(span_of(packed), DataFormat(format))); });
  m.def("tile_size", [](uint8_t format) { return tile_size(DataFormat(format)); });
  m.def("is_packable", [](uint8_t format) { return is_packable(DataFormat(format)); });
}

} // namespace tessel::python
