// TT-Metalium's Program over a tessel::Program: kernels, circular buffers and
// semaphores placed on cores, with their runtime args. Build one with
// CreateProgram() (or Program{}) and the host_api.hpp calls; run it with
// EnqueueProgram, detail::LaunchProgram or a MeshWorkload.
//
// Ownership: a value type, movable, not copyable. RuntimeArgsData views it
// hands out point into it (runtime_args_data.hpp says how long).
// Thread-safety: thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "tessel/program.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/kernel_types.hpp"
#include "tt-metalium/runtime_args_data.hpp"

namespace tt::tt_metal {

class Buffer;

class Program {
public:
  Program() = default;
  Program(Program&&) noexcept = default;
  Program& operator=(Program&&) noexcept = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  uint32_t num_kernels() const { return program_.num_kernels(); }
  // An id the program carries for the caller (Metalium's profiler reports it); 0 until set.
  void set_runtime_id(uint64_t id) { runtime_id_ = id; }
  uint64_t get_runtime_id() const { return runtime_id_; }

  // The tessel program. Mutable through a const Program because Metalium's
  // runtime-arg calls take const Program&: the words they change are
  // dispatch values, not the program's structure.
  tessel::Program& native() const { return program_; }

  // For GetRuntimeArgs / GetCommonRuntimeArgs: a view refreshed on each call,
  // stored here so callers may hold a reference to it.
  RuntimeArgsData& runtime_args_view(KernelHandle kernel, CoreCoord core) const;
  RuntimeArgsData& common_runtime_args_view(KernelHandle kernel) const;
  // For AssignGlobalBufferToProgram: keeps `buffer` alive as long as the program.
  void hold(std::shared_ptr<Buffer> buffer) { held_buffers_.push_back(std::move(buffer)); }

private:
  mutable tessel::Program program_;
  mutable std::map<std::tuple<KernelHandle, uint32_t, uint32_t>, RuntimeArgsData> views_;
  mutable std::map<KernelHandle, RuntimeArgsData> common_views_;
  std::vector<std::shared_ptr<Buffer>> held_buffers_;
  uint64_t runtime_id_ = 0;
};

} // namespace tt::tt_metal
