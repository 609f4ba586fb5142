// A ready queue of fibers: a ring buffer sized once per run (no allocation
// while fibers run). A fiber is in at most one queue at a time, so a
// capacity of the run's fiber count never overflows.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace tessel::sim {

struct Fiber;

class RunQueue {
public:
  void reserve(size_t fibers) {
    if (ring_.size() < fibers) ring_.resize(fibers * 2);
  }
  void clear() { head_ = count_ = 0; }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  void push_back(Fiber* f) {
    ring_[(head_ + count_) % ring_.size()] = f;
    ++count_;
  }
  void push_front(Fiber* f) {
    head_ = (head_ + ring_.size() - 1) % ring_.size();
    ring_[head_] = f;
    ++count_;
  }
  // Moves the k-th queued fiber (k < size()) to the front.
  void swap_front(size_t k) { std::swap(ring_[head_], ring_[(head_ + k) % ring_.size()]); }
  Fiber* pop_front() {
    if (count_ == 0) return nullptr;
    Fiber* f = ring_[head_];
    head_ = (head_ + 1) % ring_.size();
    --count_;
    return f;
  }

private:
  std::vector<Fiber*> ring_;
  size_t head_ = 0, count_ = 0;
};

} // namespace tessel::sim
