// fmt 11's <fmt/base.h>, which Metalium host programs include, over the fmt
// that Debian ships (fmt 9, which has no base.h): its core formatting API.
#pragma once

#include <fmt/core.h>
