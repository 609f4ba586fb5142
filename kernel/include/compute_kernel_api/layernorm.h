// The earlier spelling of api/compute/layernorm.h.
#pragma once
#include "api/compute/layernorm.h"
