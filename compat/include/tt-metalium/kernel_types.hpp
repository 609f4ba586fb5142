// TT-Metalium's kernel configurations, with Metalium's fields in Metalium's
// order (so designated initializers such as
// DataMovementConfig{.processor = ..., .noc = ..., .compile_args = ...}
// compile unchanged). CreateKernel converts them to tessel's configs:
//  - opt_level: the kernel is built with that level's flag (-O0 .. -O3, -Os,
//    -Ofast, -Oz);
//  - noc_mode is accepted and has no effect (see data_types.hpp);
//  - bfp8_pack_precise reaches the compute kernel (TESSEL_BFP8_PACK_PRECISE)
//    and has no other effect: tessel packs Bfp8_b with round to nearest even
//    either way (docs/numerics.md, docs/deviations.md).
// EthernetConfig exists so code naming it compiles; CreateKernel rejects it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "tt-metalium/base_types.hpp"
#include "tt-metalium/data_types.hpp"

namespace tt::tt_metal {

// Unique plus common runtime args per kernel per core.
inline constexpr uint32_t max_runtime_args = 341;

using KernelHandle = tessel::KernelHandle;

enum class KernelBuildOptLevel : uint8_t { O1, O2, O3, O0, Os, Ofast, Oz };

struct DataMovementConfig {
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  NOC noc = NOC::RISCV_0_default;
  NOC_MODE noc_mode = NOC_MODE::DM_DEDICATED_NOC;
  std::vector<uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2;
};

// The conventional reader: NCRISC (RISCV_1) on NoC 0.
struct ReaderDataMovementConfig : public DataMovementConfig {
  ReaderDataMovementConfig(std::vector<uint32_t> compile_args = {}, std::map<std::string, std::string> defines = {},
                           std::unordered_map<std::string, uint32_t> named_compile_args = {},
                           KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2)
      : DataMovementConfig{DataMovementProcessor::RISCV_1,
                           NOC::NOC_0,
                           NOC_MODE::DM_DEDICATED_NOC,
                           std::move(compile_args),
                           std::move(defines),
                           std::move(named_compile_args),
                           opt_level} {}
};

// The conventional writer: BRISC (RISCV_0) on NoC 1.
struct WriterDataMovementConfig : public DataMovementConfig {
  WriterDataMovementConfig(std::vector<uint32_t> compile_args = {}, std::map<std::string, std::string> defines = {},
                           std::unordered_map<std::string, uint32_t> named_compile_args = {},
                           KernelBuildOptLevel opt_level = KernelBuildOptLevel::O2)
      : DataMovementConfig{DataMovementProcessor::RISCV_0,
                           NOC::NOC_1,
                           NOC_MODE::DM_DEDICATED_NOC,
                           std::move(compile_args),
                           std::move(defines),
                           std::move(named_compile_args),
                           opt_level} {}
};

struct ComputeConfig {
  MathFidelity math_fidelity = MathFidelity::HiFi4;
  bool fp32_dest_acc_en = false;
  bool dst_full_sync_en = false;
  std::vector<UnpackToDestMode> unpack_to_dest_mode;
  bool bfp8_pack_precise = false;
  bool math_approx_mode = false;
  std::vector<uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::O3;
};

enum class Eth : uint8_t { SENDER = 0, RECEIVER = 1, IDLE = 2 };

struct EthernetConfig {
  Eth eth_mode = Eth::SENDER;
  NOC noc = NOC::NOC_0;
  DataMovementProcessor processor = DataMovementProcessor::RISCV_0;
  std::vector<uint32_t> compile_args;
  std::map<std::string, std::string> defines;
  std::unordered_map<std::string, uint32_t> named_compile_args;
  KernelBuildOptLevel opt_level = KernelBuildOptLevel::Os;
};

} // namespace tt::tt_metal
