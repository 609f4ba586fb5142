// TT-Metalium's processor, NoC and core-type names.
//
// DataMovementProcessor and NOC are tessel's enums: RISCV_0 (BRISC) and
// RISCV_1 (NCRISC); NOC_0 / NOC_1 and the per-RISC defaults. Quasar's
// RISCV_2..7 do not exist here.
#pragma once

#include <cstdint>

#include "tessel/program.hpp"

// Metalium declares CoreType globally; tessel runs Tensix worker cores only.
enum class CoreType { WORKER, ETH, DRAM };

namespace tt::tt_metal {

using DataMovementProcessor = tessel::DataMovementProcessor;
using NOC = tessel::NOC;
// The simulated NoC has no command buffers to split, so both modes behave alike.
enum class NOC_MODE : uint8_t { DM_DEDICATED_NOC = 0, DM_DYNAMIC_NOC = 1 };

} // namespace tt::tt_metal
