// TT-Metalium spelling of the NoC endpoints (UnicastEndpoint, MulticastEndpoint, AllocatorBank).
#pragma once
#include "tessel/noc_endpoints.h"
