// TT-Metalium's RuntimeArgsData: a view of one kernel's runtime args on one
// core (or its common args), for changing words in place between enqueues.
// Indexing past size() throws tessel::ValidationError.
//
// A view returned by GetRuntimeArgs stays valid until SetRuntimeArgs changes
// that kernel's arg count on that core, or the Program is destroyed; calling
// GetRuntimeArgs again refreshes it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tt::tt_metal {

struct RuntimeArgsData {
  uint32_t* rt_args_data = nullptr;
  size_t rt_args_count = 0;

  uint32_t& operator[](size_t index) { return at(index); }
  const uint32_t& operator[](size_t index) const { return at(index); }
  uint32_t& at(size_t index);
  const uint32_t& at(size_t index) const;
  size_t size() const { return rt_args_count; }
  uint32_t* data() { return rt_args_data; }
  const uint32_t* data() const { return rt_args_data; }
};

} // namespace tt::tt_metal
