// TT-Metalium's mesh_config.hpp: MeshDeviceConfig (tt-metalium/mesh_device.hpp).
#pragma once
#include "tt-metalium/mesh_device.hpp"
