// TT-Metalium's dfb_access.h: the dataflow-buffer access patterns
// (dfb::AccessPattern, which only Quasar's DataflowBuffer takes as template
// arguments), the DFB_TEMPLATE_DECL / DFB_CLASS spellings helpers use to be
// generic over DataflowBuffer, DataflowBufferAnyPattern and
// is_dataflow_buffer_v. On Wormhole and Blackhole, as here, DataflowBuffer
// is one class.
#pragma once

#include <stdint.h>

namespace dfb {
enum AccessPattern : uint8_t {
  STRIDED,
  ALL,
  BLOCKED,
  UNKNOWN,
};
} // namespace dfb

class DataflowBuffer;
#define DFB_TEMPLATE_DECL
#define DFB_CLASS DataflowBuffer
using DataflowBufferAnyPattern = DataflowBuffer;

template <typename T>
inline constexpr bool is_dataflow_buffer_v = false;
template <>
inline constexpr bool is_dataflow_buffer_v<DataflowBuffer> = true;
