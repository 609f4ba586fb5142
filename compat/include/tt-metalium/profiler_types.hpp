// TT-Metalium's profiler enums, as host programs pass them to the profiler
// reads (tt_metal_profiler.hpp). tessel reads every core the same way
// whatever the state: the values are accepted and otherwise ignored.
#pragma once

#include <cstdint>

namespace tt::tt_metal {

enum class ProfilerReadState { NORMAL, ONLY_DISPATCH_CORES, LAST_FD_READ };
enum class ProfilerSyncState { INIT, CLOSE_DEVICE };
enum class ProfilerDataBufferSource { L1, DRAM, DRAM_AND_L1 };

} // namespace tt::tt_metal
