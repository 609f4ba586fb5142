// Values TT-Metalium's host and device code share (hostdevcommon).
#pragma once

#include <stddef.h>
#include <stdint.h>

constexpr static uint32_t INVALID = 0;
constexpr static uint32_t VALID = 1;
constexpr static size_t DEFAULT_L1_SMALL_SIZE = 0;
constexpr static size_t DEFAULT_TRACE_REGION_SIZE = 0;
