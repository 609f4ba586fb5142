#include "sim/trace_buffer.hpp"

#include <algorithm>
#include <cstring>

#include "base/trace_file.hpp"

namespace tessel::sim {

namespace {
constexpr size_t kFirstRingSlots = 256;
} // namespace

TraceBuffer::TraceBuffer(base::TraceFile* file, uint64_t ring_events) : file_(file), ring_events_(ring_events) {}

void TraceBuffer::allocate() {
  if (ring_events_ == 0) {
    storage_ = std::make_unique_for_overwrite<char[]>(kChunkBytes);
    return;
  }
  scratch_ = std::make_unique_for_overwrite<char[]>(kMaxEventBytes);
  slots_ = size_t(std::min<uint64_t>(ring_events_, kFirstRingSlots));
  store_bytes_ = std::max(slots_ * kRingBytesPerEvent, kMaxEventBytes);
  storage_ = std::make_unique_for_overwrite<char[]>(store_bytes_);
  entries_ = std::make_unique<Entry[]>(slots_);
}

void TraceBuffer::flush() {
  if (ring_events_ != 0 || used_ == 0) return;
  file_->write(storage_.get(), used_);
  used_ = 0;
}

void TraceBuffer::drop_oldest() {
  first_ = (first_ + 1) % slots_;
  --count_;
  ++dropped_;
  if (count_ == 0) first_ = write_at_ = 0;
}

void TraceBuffer::grow() {
  const size_t slots = size_t(std::min<uint64_t>(ring_events_, uint64_t(slots_) * 2));
  const size_t bytes = std::max(slots * kRingBytesPerEvent, kMaxEventBytes);
  auto storage = std::make_unique_for_overwrite<char[]>(bytes);
  auto entries = std::make_unique<Entry[]>(slots);
  size_t at = 0;
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[(first_ + i) % slots_];
    std::memcpy(storage.get() + at, storage_.get() + e.offset, e.size_bytes);
    entries[i] = {uint32_t(at), e.size_bytes};
    at += e.size_bytes;
  }
  storage_ = std::move(storage);
  entries_ = std::move(entries);
  slots_ = slots;
  store_bytes_ = bytes;
  first_ = 0;
  write_at_ = at;
}

void TraceBuffer::keep(size_t n) {
  // Grow first while the ring may still hold more events than it has room for.
  if (slots_ < ring_events_ && (count_ == slots_ || write_at_ + n > store_bytes_)) grow();
  if (count_ == slots_) drop_oldest();
  size_t at = write_at_;
  if (at + n > store_bytes_) {
    // Wrap: the events stored above write_at_ are the oldest; then those at 0 up.
    while (count_ && entries_[first_].offset >= write_at_)
      drop_oldest();
    at = 0;
  }
  // The oldest live event is the only one that can lie where this one goes.
  while (count_ && entries_[first_].offset < at + n && entries_[first_].offset + entries_[first_].size_bytes > at)
    drop_oldest();
  std::memcpy(storage_.get() + at, scratch_.get(), n);
  entries_[(first_ + count_) % slots_] = {uint32_t(at), uint32_t(n)};
  ++count_;
  write_at_ = at + n;
}

void TraceBuffer::write_ring() {
  if (ring_events_ == 0 || count_ == 0) return;
  // Oldest first, in as few writes as the store's layout allows.
  size_t run_begin = entries_[first_].offset, run_end = run_begin;
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[(first_ + i) % slots_];
    if (e.offset != run_end) {
      file_->write(storage_.get() + run_begin, run_end - run_begin);
      run_begin = e.offset;
    }
    run_end = e.offset + e.size_bytes;
  }
  file_->write(storage_.get() + run_begin, run_end - run_begin);
  first_ = count_ = write_at_ = 0;
}

} // namespace tessel::sim
