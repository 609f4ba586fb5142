// TT-Metalium's older spelling of api/compile_time_args.h.
#pragma once
#include "api/compile_time_args.h"
