// TT-Metalium's Lock<ReleaseFunc>: a scope guard that calls its release
// function when it goes out of scope (what scoped_lock calls return).
// Neither copied nor moved: a scoped_lock's result is kept by value
// (`auto lock = mem.scoped_lock(n);`, guaranteed copy elision).
#pragma once

template <typename ReleaseFunc>
class Lock {
public:
  Lock(ReleaseFunc release) : release_(release) {}
  ~Lock() { release_(); }
  Lock(const Lock&) = delete;
  Lock(Lock&&) = delete;
  Lock& operator=(const Lock&) = delete;
  Lock& operator=(Lock&&) = delete;

private:
  ReleaseFunc release_;
};
