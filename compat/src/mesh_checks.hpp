// Argument checks shared by the mesh calls. Each throws
// tessel::ValidationError whose message starts with `call` and says what
// was expected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "tt-metalium/mesh_buffer.hpp"
#include "tt-metalium/mesh_coord.hpp"
#include "tt-metalium/mesh_device.hpp"

namespace tt::tt_metal::distributed::checks {

// Throws tessel::ValidationError("<call>: <what>").
[[noreturn]] void fail(const char* call, const std::string& what);
MeshDevice& non_null(MeshDevice* device, const char* call);
// The row-major index of the chip at `coord`.
size_t chip_index(const MeshDevice& device, const MeshCoordinate& coord, const char* call);
void range_in_mesh(const MeshDevice& device, const MeshCoordinateRange& range, const char* call);
void command_queue_id(std::optional<uint8_t> cq_id, uint32_t num_command_queues, const char* call);
void no_sub_devices(std::span<const SubDeviceId> sub_device_ids, const char* call);
// `mesh_buffer`, which must be non-null, allocated, and on `device`.
const MeshBuffer& buffer_on(const MeshDevice& device, const MeshBuffer* mesh_buffer, const char* call);

} // namespace tt::tt_metal::distributed::checks
