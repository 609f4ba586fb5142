// TT-Metalium's ProfilerOptionalMetadata: op names by (device id, runtime
// id), which Metalium's profiler reads take for their reports. tessel keeps
// the map for getOpName; its CSV does not use it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

class ProfilerOptionalMetadata {
  using DeviceID = uint32_t;
  using RuntimeID = uint32_t;

public:
  explicit ProfilerOptionalMetadata(std::map<std::pair<DeviceID, RuntimeID>, std::string>&& runtime_map)
      : runtime_id_to_opname_(std::move(runtime_map)) {}

  // The op name of (device_id, runtime_id), or "" when there is none.
  const std::string& getOpName(DeviceID device_id, RuntimeID runtime_id) const {
    static const std::string kNone;
    const auto it = runtime_id_to_opname_.find({device_id, runtime_id});
    return it == runtime_id_to_opname_.end() ? kNone : it->second;
  }

private:
  std::map<std::pair<DeviceID, RuntimeID>, std::string> runtime_id_to_opname_;
};
