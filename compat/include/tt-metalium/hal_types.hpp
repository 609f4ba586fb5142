// TT-Metalium's HAL kinds of memory and programmable cores.
#pragma once

#include <cstdint>

namespace tt::tt_metal {

enum class HalMemType : uint8_t { L1 = 0, DRAM = 1, HOST = 2 };
enum class HalProgrammableCoreType : uint8_t { TENSIX = 0, ACTIVE_ETH = 1, IDLE_ETH = 2 };
inline constexpr uint32_t NumHalProgrammableCoreTypes = 3;

} // namespace tt::tt_metal
