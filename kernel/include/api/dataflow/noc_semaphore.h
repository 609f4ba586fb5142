// TT-Metalium spelling of the Semaphore object.
#pragma once
#include "tessel/semaphore_object.h"
