// UMD's xy_pair, which TT-Metalium's CoreCoord is: here tessel's CoreCoord
// (ordered by x then y, hashable, formatted by fmt as "(x=1,y=2)").
#pragma once

#include "tessel/core_coord.hpp"

namespace tt::umd {
using xy_pair = ::tessel::CoreCoord;
} // namespace tt::umd

using tt_xy_pair = ::tessel::CoreCoord;
