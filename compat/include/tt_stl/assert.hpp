#pragma once

#include "tt-metalium/assert.hpp"
