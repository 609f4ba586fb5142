// The older TT-Metalium spelling of the CircularBuffer object: experimental::CircularBuffer.
#pragma once
#include "tessel/circular_buffer_object.h"
