#include "tessel/tensor_accessor_args.hpp"

#include "tessel/buffer.hpp"

namespace tessel {

TensorAccessorArgs::TensorAccessorArgs(const Buffer& buffer) {
  const uint32_t flags = (buffer.type() == BufferType::DRAM ? kIsDram : 0) | (buffer.is_sharded() ? kSharded : 0);
  args_ = {flags, buffer.aligned_page_size()};
  if (const std::optional<ShardSpec>& spec = buffer.shard_spec()) {
    args_.push_back(uint32_t(spec->tensor_shape_in_pages.size()));
    args_.push_back(uint32_t(spec->banks.size()));
    args_.insert(args_.end(), spec->tensor_shape_in_pages.begin(), spec->tensor_shape_in_pages.end());
    args_.insert(args_.end(), spec->shard_shape_in_pages.begin(), spec->shard_shape_in_pages.end());
    args_.insert(args_.end(), spec->banks.begin(), spec->banks.end());
  }
}

void TensorAccessorArgs::append_to(std::vector<uint32_t>& compile_args) const {
  compile_args.insert(compile_args.end(), args_.begin(), args_.end());
}

} // namespace tessel
