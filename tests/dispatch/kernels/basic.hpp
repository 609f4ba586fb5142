// Handlers of the dispatch tests' basic program (shared by its kernels and
// the tests).
#pragma once
#include <stdint.h>

constexpr uint32_t kHandlerFill = 1;   // writer: page (index in group) of a uint32 DRAM buffer = value + page
constexpr uint32_t kHandlerSpin = 2;   // reader: waits on a CB nobody fills (never returns)
constexpr uint32_t kHandlerResult = 3; // writer: returns arg0 * 2 + the core's index in the group
constexpr uint32_t kHandlerFault = 4;  // compute: dereferences a null pointer
constexpr uint32_t kHandlerCount = 5;  // reader: counts commands in its state (L1 scratch) and returns the count
constexpr uint32_t kHandlerNap = 6;    // reader: sleeps arg0 milliseconds (a slow command)
constexpr uint32_t kScratchCb = 0;     // one page of 64 bytes
