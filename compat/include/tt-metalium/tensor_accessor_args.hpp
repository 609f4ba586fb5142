// TT-Metalium's host TensorAccessorArgs: the compile-time args a kernel's
// TensorAccessorArgs<CTA> reads for an interleaved buffer (two words; see
// include/tessel/tensor_accessor_args.hpp), from a Buffer or a MeshBuffer.
// Metalium's ArgsConfig (args passed at run time instead) is not provided:
// every value is a compile-time arg and there are no common runtime args.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tessel/tensor_accessor_args.hpp"
#include "tt-metalium/buffer.hpp"

namespace tt::tt_metal {

namespace distributed {
class MeshBuffer;
}

class TensorAccessorArgs {
public:
  explicit TensorAccessorArgs(const Buffer& buffer) : args_(buffer.native()) {}
  explicit TensorAccessorArgs(const Buffer* buffer);
  explicit TensorAccessorArgs(const std::shared_ptr<Buffer>& buffer) : TensorAccessorArgs(buffer.get()) {}
  explicit TensorAccessorArgs(const distributed::MeshBuffer& buffer);
  explicit TensorAccessorArgs(const std::shared_ptr<distributed::MeshBuffer>& buffer);

  void append_to(std::vector<uint32_t>& compile_time_args) const { args_.append_to(compile_time_args); }
  void append_args(std::vector<uint32_t>& compile_time_args) const { args_.append_to(compile_time_args); }
  void append_args(std::vector<uint32_t>& compile_time_args, std::vector<uint32_t>& common_runtime_args) const {
    args_.append_to(compile_time_args);
    const std::vector<uint32_t> crta = args_.get_common_runtime_args();
    common_runtime_args.insert(common_runtime_args.end(), crta.begin(), crta.end());
  }
  std::vector<uint32_t> get_compile_time_args() const { return args_.get_compile_time_args(); }
  std::vector<uint32_t> get_common_runtime_args() const { return args_.get_common_runtime_args(); }

private:
  tessel::TensorAccessorArgs args_;
};

} // namespace tt::tt_metal
