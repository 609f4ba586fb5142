// The tessel host API in one include (link tessel::resources for the operation
// headers: operation.hpp, runtime_resources.hpp, runner.hpp).
#pragma once

#include "tessel/buffer.hpp"
#include "tessel/command_queue.hpp"
#include "tessel/core_coord.hpp"
#include "tessel/data_format.hpp"
#include "tessel/device.hpp"
#include "tessel/error.hpp"
#include "tessel/event.hpp"
#include "tessel/interrupt.hpp"
#include "tessel/operation.hpp"
#include "tessel/program.hpp"
#include "tessel/program_cache.hpp"
#include "tessel/program_descriptor.hpp"
#include "tessel/runner.hpp"
#include "tessel/runtime_resources.hpp"
#include "tessel/tensor_accessor_args.hpp"
#include "tessel/tile.hpp"
#include "tessel/timing.hpp"
#include "tessel/trace_stats.hpp"
#include "tessel/work_split.hpp"
