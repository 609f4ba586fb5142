// The older TT-Metalium spelling of the Semaphore object: experimental::Semaphore.
#pragma once
#include "tessel/semaphore_object.h"
