// Checks of host memory handed to tessel as a pointer and a size, so that a
// bad pair is an error instead of a crash in the host process.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::base {

// What is wrong with the host range [data, data + size_bytes), or "" when it
// is usable: a null or small-integer pointer, a range that wraps the address
// space, or one with unmapped pages (one mincore(2) call per 16 MiB).
std::string host_range_problem(const void* data, uint64_t size_bytes);

} // namespace tessel::base
