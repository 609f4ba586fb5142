// Values TT-Metalium's host and device code share: the semaphore values a
// host program may pass as runtime arguments (VALID, INVALID), reached
// through the host API as in Metalium.
#pragma once

#include <cstdint>

constexpr static std::uint32_t INVALID = 0;
constexpr static std::uint32_t VALID = 1;
