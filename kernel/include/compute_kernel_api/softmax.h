// The earlier spelling of api/compute/softmax.h.
#pragma once
#include "api/compute/softmax.h"
