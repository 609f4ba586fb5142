// Several tensors' accessors at once, as TT-Metalium's kernels build them:
//   constexpr auto args = make_tensor_accessor_args_tuple<N, CTA_OFFSET>();
//       N TensorAccessorArgs, each at the compile-time args the previous
//       one ends at (next_compile_time_args_offset)
//   auto accessors = make_tensor_accessor_tuple(args, first_address_arg);
//       a TensorAccessor per args, its base address the runtime argument
//       first_address_arg + i
//   auto any = make_abstract_tensor_accessor_wrappers(accessors);
//       a std::array of AbstractTensorAccessorWrapper: any of them by a
//       run-time index, with get_noc_addr and get_page_size (also a Noc
//       source or destination, {.page_id, .offset_bytes})
// A wrapper refers to the accessor in the tuple: keep the tuple alive while
// the wrappers are used.
//
// These are std::tuple and std::array, so they come with the standard
// headers: the JIT defines TESSEL_KERNEL_STD for kernels that name them
// (src/jit/cache_key.cpp). Included by tessel/dataflow.h.
#ifndef TESSEL_TENSOR_TUPLES_H
#define TESSEL_TENSOR_TUPLES_H

#if defined(TESSEL_KERNEL_STD) && !defined(TESSEL_CROSS_ESTIMATE)

namespace tessel_detail {
template <uint32_t N, uint32_t CTA_OFFSET, uint32_t CRTA_OFFSET>
constexpr auto tensor_accessor_args_tuple() {
  if constexpr (N == 0) {
    return std::tuple<>();
  } else {
    using First = TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>;
    return std::tuple_cat(std::tuple<First>(First()),
                          tensor_accessor_args_tuple<N - 1, First::next_compile_time_args_offset(),
                                                     First::next_common_runtime_args_offset()>());
  }
}
} // namespace tessel_detail

template <uint32_t N, uint32_t CTA_OFFSET, uint32_t CRTA_OFFSET = 0>
constexpr auto make_tensor_accessor_args_tuple() {
  return tessel_detail::tensor_accessor_args_tuple<N, CTA_OFFSET, CRTA_OFFSET>();
}

template <typename... Args>
auto make_tensor_accessor_tuple(const std::tuple<Args...>& args, uint32_t address_rt_arg_index_start) {
  return [&]<uint32_t... I>(std::integer_sequence<uint32_t, I...>) {
    return std::make_tuple(TensorAccessor(std::get<I>(args), get_arg_val<uint32_t>(address_rt_arg_index_start + I))...);
  }
  (std::make_integer_sequence<uint32_t, sizeof...(Args)>());
}

class AbstractTensorAccessorWrapper {
public:
  AbstractTensorAccessorWrapper() = default;
  template <typename Accessor>
  AbstractTensorAccessorWrapper(const Accessor& accessor)
      : accessor_(&accessor),
        noc_addr_([](const void* a, uint32_t page_id, uint32_t offset, uint8_t noc, const char* file, uint32_t line) {
          return static_cast<const Accessor*>(a)->get_noc_addr(page_id, offset, noc, file, line);
        }),
        page_size_([](const void* a) { return static_cast<const Accessor*>(a)->get_page_size(); }) {}

  uint64_t get_noc_addr(uint32_t page_id, uint32_t offset = 0, uint8_t noc = noc_index, TESSEL_SITE_PARAMS) const {
    if (__builtin_expect(accessor_ == nullptr, 0)) {
      tessel_kernel_ctx* k = tessel_ctx();
      k->api->fail(k,
                   "AbstractTensorAccessorWrapper::get_noc_addr on a default-constructed wrapper (expected one made "
                   "from an accessor, as make_abstract_tensor_accessor_wrappers makes them)",
                   TESSEL_SITE);
    }
    return noc_addr_(accessor_, page_id, offset, noc, TESSEL_SITE);
  }
  uint32_t get_page_size() const { return accessor_ ? page_size_(accessor_) : 0; }

private:
  const void* accessor_ = nullptr;
  uint64_t (*noc_addr_)(const void*, uint32_t, uint32_t, uint8_t, const char*, uint32_t) = nullptr;
  uint32_t (*page_size_)(const void*) = nullptr;
};

template <typename... Accessors>
auto make_abstract_tensor_accessor_wrappers(const std::tuple<Accessors...>& accessors) {
  return std::apply(
      [](const auto&... a) {
        return std::array<AbstractTensorAccessorWrapper, sizeof...(Accessors)>{AbstractTensorAccessorWrapper(a)...};
      },
      accessors);
}

#endif

#endif // TESSEL_TENSOR_TUPLES_H
