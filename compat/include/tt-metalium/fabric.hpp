// Older spelling of tt-metalium/experimental/fabric/fabric.hpp.
#pragma once
#include "tt-metalium/experimental/fabric/fabric.hpp"
