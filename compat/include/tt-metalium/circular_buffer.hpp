#pragma once

#include "tt-metalium/circular_buffer_config.hpp"
