# RUN: %python %s %inputs/pages.hpp | FileCheck %s
#
# The generated kernel_main of a tessel.ttl operation whose tensors' accessors
# take different numbers of compile-time args: each tensor's offset is the sum
# of the real counts before it (tessel::TensorAccessorArgs), never an assumed
# per-tensor count; common-runtime-arg offsets chain from the address words.
import sys

import tessel
import tessel.ttl as ttl

HEADER = sys.argv[1]


@ttl.operation(grid=(2, 1))
def mixed(dram, l1, l1_sharded, dram_sharded, out):
    ttl.call_extern_func(HEADER, "touch_all", func_args=[dram, l1, l1_sharded, dram_sharded, out])


# The sharded tensor first: every offset after it moves.
@ttl.operation(grid=(2, 1))
def sharded_first(l1_sharded, dram, l1, dram_sharded, out):
    ttl.call_extern_func(HEADER, "touch_all", func_args=[l1_sharded, dram, l1, dram_sharded, out])


with tessel.Device.open(grid=(2, 1)) as device:
    dram = ttl.Tensor.allocate(device, (32, 64))
    l1 = ttl.Tensor.allocate(device, (32, 64), buffer_type="l1")
    # 4 + 2 * rank + banks args: rank 2 over 2 L1 banks, and rank 1 over 3 DRAM banks.
    l1_sharded = ttl.Tensor.allocate(device, (32, 64), buffer_type="l1", shard=ttl.ShardSpec((1, 2), (1, 1), (1, 0)))
    dram_sharded = ttl.Tensor.allocate(device, (32, 96), shard=ttl.ShardSpec((3,), (1,), (3, 5, 6)))
    out = ttl.Tensor.allocate(device, (64, 64))
    tensors = (dram, l1, l1_sharded, dram_sharded, out)
    print(mixed.generated_kernels(*tensors)[ttl.KernelKind.DATA_MOVEMENT])
    print(sharded_first.generated_kernels(l1_sharded, dram, l1, dram_sharded, out)[ttl.KernelKind.DATA_MOVEMENT])

# CHECK:      logical kernel DATA_MOVEMENT (canonical)
# CHECK:      tensors[0] dram          DRAM interleaved  2 args at 0
# CHECK-NEXT: tensors[1] l1            L1 interleaved    2 args at 2
# CHECK-NEXT: tensors[2] l1_sharded    L1 sharded        10 args at 4
# CHECK-NEXT: tensors[3] dram_sharded  DRAM sharded      9 args at 14
# CHECK-NEXT: tensors[4] out           DRAM interleaved  2 args at 23
# CHECK:      address at i (0..4); accessor common args from 5
# CHECK:      #include "api/dataflow/dataflow_api.h"
# CHECK-NEXT: #include "{{.*}}pages.hpp"
# CHECK:      static_assert(tessel_compile_time_arg_count == 25,
# CHECK:      constexpr auto tensor0_args = TensorAccessorArgs<0, 5>();
# CHECK-NEXT: static_assert(tensor0_args.next_compile_time_args_offset() == 2 &&
# CHECK-NEXT: tensor0_args.next_common_runtime_args_offset() == 5,
# CHECK:      const auto tensor0 = TensorAccessor(tensor0_args, get_common_arg_val<uint32_t>(0), 2048);
# CHECK:      constexpr auto tensor1_args = TensorAccessorArgs<2, 5>();
# CHECK-NEXT: static_assert(tensor1_args.next_compile_time_args_offset() == 4 &&
# CHECK:      const auto tensor1 = TensorAccessor(tensor1_args, get_common_arg_val<uint32_t>(1), 2048);
# CHECK:      constexpr auto tensor2_args = TensorAccessorArgs<4, 5>();
# CHECK-NEXT: static_assert(tensor2_args.next_compile_time_args_offset() == 14 &&
# CHECK:      "tessel.ttl: tensors[2] (l1_sharded) is not the L1 sharded tensor this kernel was generated for"
# CHECK:      const auto tensor2 = TensorAccessor(tensor2_args, get_common_arg_val<uint32_t>(2), 2048);
# CHECK:      constexpr auto tensor3_args = TensorAccessorArgs<14, 5>();
# CHECK-NEXT: static_assert(tensor3_args.next_compile_time_args_offset() == 23 &&
# CHECK:      const auto tensor3 = TensorAccessor(tensor3_args, get_common_arg_val<uint32_t>(3), 2048);
# CHECK:      constexpr auto tensor4_args = TensorAccessorArgs<23, 5>();
# CHECK-NEXT: static_assert(tensor4_args.next_compile_time_args_offset() == 25 &&
# CHECK:      const auto tensor4 = TensorAccessor(tensor4_args, get_common_arg_val<uint32_t>(4), 2048);
# CHECK-NEXT: touch_all(tensor0, tensor1, tensor2, tensor3, tensor4);
# CHECK-NEXT: }

# CHECK:      operation 'sharded_first'
# CHECK:      tensors[0] l1_sharded    L1 sharded        10 args at 0
# CHECK-NEXT: tensors[1] dram          DRAM interleaved  2 args at 10
# CHECK-NEXT: tensors[2] l1            L1 interleaved    2 args at 12
# CHECK-NEXT: tensors[3] dram_sharded  DRAM sharded      9 args at 14
# CHECK-NEXT: tensors[4] out           DRAM interleaved  2 args at 23
# CHECK:      constexpr auto tensor0_args = TensorAccessorArgs<0, 5>();
# CHECK-NEXT: static_assert(tensor0_args.next_compile_time_args_offset() == 10 &&
# CHECK:      constexpr auto tensor1_args = TensorAccessorArgs<10, 5>();
# CHECK:      constexpr auto tensor2_args = TensorAccessorArgs<12, 5>();
# CHECK:      constexpr auto tensor3_args = TensorAccessorArgs<14, 5>();
# CHECK:      constexpr auto tensor4_args = TensorAccessorArgs<23, 5>();
