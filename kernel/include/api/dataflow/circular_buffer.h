// TT-Metalium spelling of the CircularBuffer object.
#pragma once
#include "tessel/circular_buffer_object.h"
