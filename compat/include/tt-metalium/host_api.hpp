// TT-Metalium's host API over tessel: devices, programs, kernels, circular
// buffers, semaphores, buffers and runtime args, plus the legacy
// command-queue calls (command_queue.hpp). Include this (and, for meshes,
// distributed.hpp) in place of Metalium's tt-metalium/host_api.hpp. As
// Metalium's does, it also brings in TT_FATAL/TT_THROW, fmt and the
// tt-logger calls (assert.hpp), bfloat16, tt::constants, <iostream>,
// <cstring> and <chrono>.
//
// Every call validates its arguments and throws tessel::ValidationError
// before changing anything; kernel build and run failures surface from the
// enqueue calls as tessel::ProgramError, tessel::KernelError and friends
// (docs/guide.md, "Debugging").
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "tt-metalium/assert.hpp"
#include "tt-metalium/base_types.hpp"
#include "tt-metalium/bfloat16.hpp"
#include "tt-metalium/buffer.hpp"
#include "tt-metalium/buffer_types.hpp"
#include "tt-metalium/circular_buffer_config.hpp"
#include "tt-metalium/command_queue.hpp"
#include "tt-metalium/constants.hpp"
#include "tt-metalium/core_coord.hpp"
#include "tt-metalium/data_types.hpp"
#include "tt-metalium/device.hpp"
#include "tt-metalium/event.hpp"
#include "tt-metalium/kernel_types.hpp"
#include "tt-metalium/program.hpp"
#include "tt-metalium/runtime_args_data.hpp"
#include "tt-metalium/tt_backend_api_types.hpp"
#include "tt-metalium/tt_metal_profiler.hpp"

namespace tt::tt_metal {

using CoreSpec = std::variant<CoreCoord, CoreRange, CoreRangeSet>;
using KernelConfig = std::variant<DataMovementConfig, ComputeConfig, EthernetConfig>;

Program CreateProgram();

// A kernel from a file: absolute, relative to the working directory, or
// relative to a directory of $TESSEL_KERNEL_PATH (Metalium's TT_METAL_HOME /
// TT_METAL_KERNEL_PATH fallbacks do not apply).
KernelHandle CreateKernel(Program& program, const std::string& file_name, const CoreSpec& core_spec,
                          const KernelConfig& config);
KernelHandle CreateKernelFromString(Program& program, const std::string& kernel_src_code, const CoreSpec& core_spec,
                                    const KernelConfig& config);

CBHandle CreateCircularBuffer(Program& program, const CoreSpec& core_spec, const CircularBufferConfig& config);

// Returns the semaphore id kernels pass to get_semaphore(). Worker cores only.
uint32_t CreateSemaphore(Program& program, const std::variant<CoreRange, CoreRangeSet>& core_spec,
                         uint32_t initial_value, CoreType core_type = CoreType::WORKER);

// Interleaved DRAM or L1 buffers (buffer.hpp); other buffer types throw.
// No placement at a given address.
std::shared_ptr<Buffer> CreateBuffer(const InterleavedBufferConfig& config);
// Sharded DRAM or L1 buffers (buffer.hpp has the layout and its rules).
std::shared_ptr<Buffer> CreateBuffer(const ShardedBufferConfig& config);
void DeallocateBuffer(Buffer& buffer);
// Keeps `buffer` alive at least as long as `program`.
void AssignGlobalBufferToProgram(const std::shared_ptr<Buffer>& buffer, Program& program);

void SetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreSpec& core_spec,
                    std::span<const uint32_t> runtime_args);
void SetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreSpec& core_spec,
                    std::initializer_list<uint32_t> runtime_args);
// runtime_args[i] goes to core_spec[i].
void SetRuntimeArgs(const Program& program, KernelHandle kernel, const std::vector<CoreCoord>& core_spec,
                    const std::vector<std::vector<uint32_t>>& runtime_args);
void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel, std::span<const uint32_t> runtime_args);
void SetCommonRuntimeArgs(const Program& program, KernelHandle kernel, std::initializer_list<uint32_t> runtime_args);

// Views of args already set, for changing words in place (runtime_args_data.hpp).
RuntimeArgsData& GetRuntimeArgs(const Program& program, KernelHandle kernel, const CoreCoord& logical_core);
RuntimeArgsData& GetCommonRuntimeArgs(const Program& program, KernelHandle kernel);

} // namespace tt::tt_metal
