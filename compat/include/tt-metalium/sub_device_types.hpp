// TT-Metalium's sub-device ids. tessel devices have no sub-devices: calls
// that take a span of ids accept only an empty one.
#pragma once

#include <cstdint>

namespace tt::tt_metal {

using SubDeviceId = uint8_t;
using SubDeviceManagerId = uint64_t;

} // namespace tt::tt_metal
