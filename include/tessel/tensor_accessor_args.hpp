// Host side of TensorAccessorArgs: the compile-time arguments a kernel's
// TensorAccessorArgs<CTA, CRTA> reads for a buffer. An interleaved buffer
// takes two words: [flags (bit 1 = DRAM, bit 0 = sharded), aligned page
// size]. A sharded one takes 4 + 2 * rank + banks words: [flags, aligned
// page size, rank, number of banks, tensor shape in pages (rank words,
// outermost first), shard shape in pages (rank words), the banks in shard
// order] (include/tessel/buffer.hpp has the layout). Append them to a
// kernel's compile args, then chain the next accessor at
// next_compile_time_args_offset() in the kernel.
#pragma once

#include <cstdint>
#include <vector>

namespace tessel {

class Buffer;

class TensorAccessorArgs {
public:
  explicit TensorAccessorArgs(const Buffer& buffer);
  void append_to(std::vector<uint32_t>& compile_args) const;
  std::vector<uint32_t> get_compile_time_args() const { return args_; }
  std::vector<uint32_t> get_common_runtime_args() const { return {}; }

  static constexpr uint32_t kSharded = 1u << 0;
  static constexpr uint32_t kIsDram = 1u << 1;

private:
  std::vector<uint32_t> args_;
};

} // namespace tessel
