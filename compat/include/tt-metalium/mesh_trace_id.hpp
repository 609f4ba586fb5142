// TT-Metalium's MeshTraceId: the id of a captured trace (a tessel trace id).
#pragma once

#include <cstdint>

namespace tt::tt_metal::distributed {

struct MeshTraceId {
  uint32_t value = 0;
  uint32_t operator*() const { return value; }
  uint32_t get() const { return value; }
  friend bool operator==(const MeshTraceId&, const MeshTraceId&) = default;
};

} // namespace tt::tt_metal::distributed
