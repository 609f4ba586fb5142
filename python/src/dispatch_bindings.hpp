// What tessel.dispatch's two binding files share: the Run class object, which
// the engines' calls are added to, and the engine event as a tuple.
#pragma once

#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "tessel/dispatch/engines.hpp"
#include "tessel/dispatch/run.hpp"

namespace tessel::python {

void bind_engines(nb::module_& m, nb::class_<dispatch::Run>& run);
// Raise tessel.dispatch.errors.<name>(message, **facts) (for an exception translator).
void raise_dispatch_error(const char* name, const char* message, nb::dict facts);
// (kind, value, registers, reason, reason_name, pc, node)
nb::tuple engine_event_tuple(const dispatch::EngineEvent& e);

} // namespace tessel::python
