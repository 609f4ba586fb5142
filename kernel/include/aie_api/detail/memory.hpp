// The AIE API on tessel: vector loads and stores.
//
// Alignment rule (the AIE-ML's): load_v and store_v need the address aligned
// to the vector's size in bytes, capped at 32 bytes (128-bit accesses align
// on 16 bytes, 256-bit on 32; a 512- or 1024-bit access is done as 256-bit
// ones). A misaligned address silently reads or writes the wrong bytes on
// the AIE; here it stops the kernel with a report naming the call site.
// load_unaligned_v/store_unaligned_v need element alignment only.
#ifndef TESSEL_AIE_API_DETAIL_MEMORY_HPP
#define TESSEL_AIE_API_DETAIL_MEMORY_HPP

#include "aie_api/detail/vector.hpp"

namespace aie {

// For `alignas(aie::vector_decl_align)` on arrays a kernel loads vectors from.
inline constexpr unsigned vector_decl_align = 32;

namespace detail {
template <typename T, unsigned N>
constexpr unsigned vector_align_bytes() {
  return N * sizeof(T) < 32 ? N * sizeof(T) : 32;
}

template <typename T, unsigned N>
inline void check_vector_aligned(const char* what, const char* unaligned, const void* p,
                                 const std::source_location& at) {
  constexpr unsigned align = vector_align_bytes<T, N>();
  if (reinterpret_cast<uintptr_t>(p) % align == 0) return;
  char message[256];
  std::snprintf(message, sizeof message,
                "%s of %u x %s: address 0x%lx is not aligned to %u bytes (the AIE aligns vector accesses to the "
                "vector's size, at most 32 bytes; use %s for element-aligned data)",
                what, N, type_name<T>(), report_address(p), align, unaligned);
  fail(message, at.file_name(), at.line());
}

template <typename T, unsigned N>
constexpr unsigned elems_or_native() {
  return N ? N : 512 / (8 * sizeof(T));
}
} // namespace detail

template <unsigned N = 0, typename T>
vector<std::remove_const_t<T>, detail::elems_or_native<T, N>()>
load_v(const T* p, std::source_location at = std::source_location::current()) {
  using E = std::remove_const_t<T>;
  constexpr unsigned n = detail::elems_or_native<T, N>();
  detail::check_vector_aligned<E, n>("aie::load_v", "aie::load_unaligned_v", p, at);
  vector<E, n> r;
  std::memcpy(r.elems_, p, sizeof r.elems_);
  return r;
}

template <unsigned N = 0, typename T>
vector<std::remove_const_t<T>, detail::elems_or_native<T, N>()> load_unaligned_v(const T* p,
                                                                                 unsigned aligned_elems = 1) {
  (void)aligned_elems;
  vector<std::remove_const_t<T>, detail::elems_or_native<T, N>()> r;
  std::memcpy(r.elems_, p, sizeof r.elems_);
  return r;
}

template <typename T, typename U, unsigned N>
requires std::is_same_v<T, U> T* store_v(T* p, const vector<U, N>& v,
                                         std::source_location at = std::source_location::current()) {
  detail::check_vector_aligned<T, N>("aie::store_v", "aie::store_unaligned_v", p, at);
  std::memcpy(p, v.elems_, sizeof v.elems_);
  return p;
}

template <typename T, typename U, unsigned N>
requires std::is_same_v<T, U> T* store_unaligned_v(T* p, const vector<U, N>& v, unsigned aligned_elems = 1) {
  (void)aligned_elems;
  std::memcpy(p, v.elems_, sizeof v.elems_);
  return p;
}

// Iterators over memory by whole vectors (aie::begin_vector<N>(p)): *it
// loads (aligned), *it = v stores, ++it moves by N elements.
template <typename T, unsigned N>
class vector_iterator {
  T* p_;

public:
  using E = std::remove_const_t<T>;
  // *it: the vector it points at (loaded when dereferenced, so it passes to
  // aie::add and the other functions as a vector does), and through which
  // `*it = v` stores.
  struct ref : vector<E, N> {
    T* p;
    explicit ref(T* at) : vector<E, N>(load_v<N>(at)), p(at) {}
    ref& operator=(const vector<E, N>& v) {
      store_v(p, v);
      static_cast<vector<E, N>&>(*this) = v;
      return *this;
    }
    ref& operator=(const ref& r) { return *this = static_cast<const vector<E, N>&>(r); }
  };
  explicit vector_iterator(T* p) : p_(p) {}
  ref operator*() const { return ref(p_); }
  vector_iterator& operator++() {
    p_ += N;
    return *this;
  }
  vector_iterator operator++(int) {
    vector_iterator old = *this;
    p_ += N;
    return old;
  }
  vector_iterator& operator+=(int n) {
    p_ += n * int(N);
    return *this;
  }
  friend bool operator==(const vector_iterator& a, const vector_iterator& b) { return a.p_ == b.p_; }
};

template <unsigned N, typename T>
vector_iterator<T, N> begin_vector(T* p) {
  return vector_iterator<T, N>(p);
}
template <unsigned N, typename T>
vector_iterator<const T, N> cbegin_vector(const T* p) {
  return vector_iterator<const T, N>(p);
}
// The restrict forms promise the compiler no aliasing; on a host build they
// are the same iterators.
template <unsigned N, typename T>
vector_iterator<T, N> begin_restrict_vector(T* p) {
  return vector_iterator<T, N>(p);
}
template <unsigned N, typename T>
vector_iterator<const T, N> cbegin_restrict_vector(const T* p) {
  return vector_iterator<const T, N>(p);
}

} // namespace aie

#endif
