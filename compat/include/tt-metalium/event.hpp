// TT-Metalium's legacy Event: tessel's (include/tessel/event.hpp), created
// with std::make_shared<Event>() and recorded with EnqueueRecordEvent.
#pragma once

#include "tessel/event.hpp"

namespace tt::tt_metal {

using Event = tessel::Event;

} // namespace tt::tt_metal
