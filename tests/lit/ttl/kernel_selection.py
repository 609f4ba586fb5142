# RUN: %python %s %inputs/pages.hpp | FileCheck %s
#
# Calls become one kernel_main per logical kernel, in call order: a captured
# Kernel (named by its variable), the canonical kernels of each kind, scalar
# and template arguments, and raw addresses.
import sys

import tessel
import tessel.ttl as ttl

HEADER = sys.argv[1]
reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)


@ttl.operation(grid=(1, 1))
def three_kernels(src, dst):
    ttl.call_extern_func(HEADER, "touch_all", func_args=[src], kernel=reader)
    ttl.call_extern_func(HEADER, "set_word", func_args=[ttl.raw_addr(dst), 7], kernel=ttl.KernelKind.COMPUTE)
    ttl.call_extern_func(HEADER, "touch_all", func_args=[dst, -3, True, 4294967295], template_args=[2, False])
    ttl.call_extern_func(HEADER, "touch_all", func_args=[src, dst], kernel=reader)


with tessel.Device.open(grid=(1, 1)) as device:
    src = ttl.Tensor.allocate(device, (32, 32), ttl.DataFormat.Float32)
    dst = ttl.Tensor.allocate(device, (32, 32), ttl.DataFormat.Bfp8_b, buffer_type="l1")
    for source in three_kernels.generated_kernels(src, dst).values():
        print(source)

# CHECK:      operation 'three_kernels', logical kernel 'reader' (DATA_MOVEMENT).
# CHECK:      void kernel_main() {
# CHECK:      const auto tensor0 = TensorAccessor(tensor0_args, get_common_arg_val<uint32_t>(0), 4096);
# CHECK:      const auto tensor1 = TensorAccessor(tensor1_args, get_common_arg_val<uint32_t>(1), 1088);
# CHECK-NEXT: touch_all(tensor0);
# CHECK-NEXT: touch_all(tensor0, tensor1);
# CHECK-NEXT: }

# CHECK:      logical kernel COMPUTE (canonical).
# CHECK:      #include "api/compute/common.h"
# CHECK-NOT:  TensorAccessor
# CHECK:      static_assert(tessel_compile_time_arg_count == 4,
# CHECK-NEXT: set_word(get_common_arg_val<uint32_t>(1), 7);
# CHECK-NEXT: }

# CHECK:      logical kernel DATA_MOVEMENT (canonical).
# CHECK:      constexpr auto tensor1_args = TensorAccessorArgs<2, 2>();
# CHECK:      touch_all<2, false>(tensor1, (-3), true, 4294967295u);
