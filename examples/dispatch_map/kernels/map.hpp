// The map program's handlers and buffers, shared by its kernels and drivers.
#pragma once
#include <stdint.h>

constexpr uint32_t kHandlerMap = 1; // args: input address, output address, first tile of the job
constexpr uint32_t kCbIn = 0;       // two bf16 tiles
constexpr uint32_t kCbOut = 16;     // two bf16 tiles
