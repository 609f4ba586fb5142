#include "tessel/tensor_accessor_args.hpp"

#include "tessel/buffer.hpp"

namespace tessel {

TensorAccessorArgs::TensorAccessorArgs(const Buffer& buffer)
    : flags_(buffer.type() == BufferType::DRAM ? kIsDram : 0), aligned_page_size_(buffer.aligned_page_size()) {}

void TensorAccessorArgs::append_to(std::vector<uint32_t>& compile_args) const {
  compile_args.push_back(flags_);
  compile_args.push_back(aligned_page_size_);
}

std::vector<uint32_t> TensorAccessorArgs::get_compile_time_args() const { return {flags_, aligned_page_size_}; }

} // namespace tessel
