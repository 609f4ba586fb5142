// The fabric bindings' part of an execution's cache identity (fabric.cpp).
// Internal to the resources layer.
#pragma once

#include <string>

#include "tessel/runtime_resources.hpp"

namespace tessel::resources {

// Appends to `out` what of the bindings joins the program-cache identity:
// claim identity, ABI identity, endpoints, worker nodes and fixed links.
void fabric_identity(std::string& out, const ProgramRuntimeResources& resources);

} // namespace tessel::resources
