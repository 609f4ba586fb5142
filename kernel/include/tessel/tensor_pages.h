// Iterating a tensor's pages, as Metalium's TensorAccessor offers it:
//   for (const auto& page : accessor.pages(start, end))   pages start..end-1
//   for (const auto& page : accessor.shard_pages(shard))  a sharded tensor's
//                                                         shard, in row-major
//                                                         order within it
// Each page is a tensor_accessor::Page: page_id() and noc_addr() (what
// accessor.get_noc_addr(page_id) gives); a Page is also a Noc source or
// destination (noc_object.h). Iterators step with ++ and += n.
//
// A shard at the tensor's edge may hang over it (the tensor's shape is not
// a multiple of the shard's); its positions outside the tensor hold no page
// and are skipped. Included by tessel/dataflow.h.
#ifndef TESSEL_TENSOR_PAGES_H
#define TESSEL_TENSOR_PAGES_H

#include "tessel/kernel_common.h"

namespace tensor_accessor {

class Page {
public:
  constexpr Page() = default;
  constexpr Page(uint32_t page_id, uint64_t noc_addr) : page_id_(page_id), noc_addr_(noc_addr) {}
  uint32_t page_id() const { return page_id_; }
  uint64_t noc_addr() const { return noc_addr_; }

private:
  uint32_t page_id_ = 0;
  uint64_t noc_addr_ = 0;
};

// Consecutive page ids [start, end).
template <typename Accessor>
class PagesIterator {
public:
  PagesIterator(const Accessor* accessor, uint32_t page_id, uint8_t noc, const char* file, uint32_t line)
      : accessor_(accessor), page_id_(page_id), noc_(noc), file_(file), line_(line) {}
  const Page& operator*() const {
    page_ = Page(page_id_, accessor_->get_noc_addr(page_id_, 0, noc_, file_, line_));
    return page_;
  }
  const Page* operator->() const { return &**this; }
  PagesIterator& operator++() {
    ++page_id_;
    return *this;
  }
  PagesIterator& operator+=(uint32_t n) {
    page_id_ += n;
    return *this;
  }
  bool operator==(const PagesIterator& other) const { return page_id_ == other.page_id_; }
  bool operator!=(const PagesIterator& other) const { return page_id_ != other.page_id_; }

private:
  const Accessor* accessor_;
  uint32_t page_id_;
  uint8_t noc_;
  const char* file_;
  uint32_t line_;
  mutable Page page_;
};

template <typename Iterator>
struct PageRange {
  Iterator first;
  Iterator last;
  Iterator begin() const { return first; }
  Iterator end() const { return last; }
};

// The positions [start, end) of one shard, row-major within the shard,
// skipping positions outside the tensor.
template <typename Accessor>
class ShardPagesIterator {
  using Args = typename Accessor::ArgsType;

public:
  ShardPagesIterator(const Accessor* accessor, uint32_t shard_id, uint32_t position, uint32_t end, uint8_t noc,
                     const char* file, uint32_t line)
      : accessor_(accessor), shard_id_(shard_id), position_(position), end_(end), noc_(noc), file_(file), line_(line) {
    skip_outside();
  }
  const Page& operator*() const {
    const uint32_t id = page_id_at(position_);
    page_ = Page(id, accessor_->get_noc_addr(id, 0, noc_, file_, line_));
    return page_;
  }
  const Page* operator->() const { return &**this; }
  ShardPagesIterator& operator++() {
    ++position_;
    skip_outside();
    return *this;
  }
  ShardPagesIterator& operator+=(uint32_t n) {
    for (uint32_t i = 0; i < n && position_ < end_; ++i)
      ++*this;
    return *this;
  }
  bool operator==(const ShardPagesIterator& other) const { return position_ == other.position_; }
  bool operator!=(const ShardPagesIterator& other) const { return position_ != other.position_; }

private:
  // The tensor page at `position` of the shard, or ~0u outside the tensor.
  uint32_t page_id_at(uint32_t position) const {
    uint32_t shard = shard_id_, rest = position, page = 0, page_stride = 1;
    for (int d = int(Args::rank) - 1; d >= 0; --d) {
      const uint32_t t = Args::tensor_shape(uint32_t(d)), w = Args::shard_shape(uint32_t(d));
      const uint32_t grid = (t + w - 1) / w;
      const uint32_t coord = shard % grid * w + rest % w;
      if (coord >= t) return ~0u;
      shard /= grid;
      rest /= w;
      page += coord * page_stride;
      page_stride *= t;
    }
    return page;
  }
  void skip_outside() {
    while (position_ < end_ && page_id_at(position_) == ~0u)
      ++position_;
  }

  const Accessor* accessor_;
  uint32_t shard_id_;
  uint32_t position_;
  uint32_t end_;
  uint8_t noc_;
  const char* file_;
  uint32_t line_;
  mutable Page page_;
};

} // namespace tensor_accessor

#endif // TESSEL_TENSOR_PAGES_H
