// tt-llk spelling: the LLK header behind copy_dest_values.h, which ttnn's
// kernel library includes ahead of it. Declares the compute API's
// copy_dest_values (tessel/sfpu_bitwise.h); tt-llk's own copy_dest_value
// function is not provided.
#pragma once
#include "tessel/sfpu_bitwise.h"
