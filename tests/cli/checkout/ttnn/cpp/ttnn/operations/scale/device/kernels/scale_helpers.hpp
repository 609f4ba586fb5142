#pragma once
#include "ttnn/cpp/ttnn/kernel/scale_common.hpp"
