// TT-Metalium's MathFidelity and UnpackToDestMode (global, as Metalium
// declares them): tessel's enums with the same values.
#pragma once

#include "tessel/program.hpp"

using MathFidelity = tessel::MathFidelity;
using UnpackToDestMode = tessel::UnpackToDestMode;
