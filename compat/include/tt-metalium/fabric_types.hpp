// Older spelling of tt-metalium/experimental/fabric/fabric_types.hpp.
#pragma once
#include "tt-metalium/experimental/fabric/fabric_types.hpp"
