# RUN: rm -rf %t && %python %s %inputs/pages.hpp %t | FileCheck %s
#
# What ttl.emit_runner writes: tessel.ttl's manifest (the grid and launch
# range, each tensor's layout), the C++ runner's manifest, and the kernels
# with the header copied beside them and included by its copy's name.
import json
import os
import sys

import tessel
import tessel.ttl as ttl

HEADER, OUT = sys.argv[1], sys.argv[2]
worker = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)


@ttl.operation(grid=(2, 1))
def copy(src, dst):
    ttl.call_extern_func(HEADER, "touch_all", func_args=[src, dst], kernel=worker)


with tessel.Device.open(grid=(2, 1)) as device:
    src = ttl.Tensor.allocate(device, (32, 64), buffer_type="l1", shard=ttl.ShardSpec((1, 2), (1, 1), (0, 1)))
    dst = ttl.Tensor.allocate(device, (32, 64))
    ttl.emit_runner(copy, OUT, tensors=[src, dst])

print(sorted(os.listdir(OUT)))
print(sorted(os.listdir(os.path.join(OUT, "operation"))))
with open(os.path.join(OUT, "ttl-runner.json")) as f:
    print(json.dumps(json.load(f), sort_keys=True))
for name in ("manifest.txt", "kernel0-worker.cpp"):
    with open(os.path.join(OUT, "operation", name)) as f:
        print(f.read())

# CHECK: ['operation', 'runner.py', 'ttl-runner.json']
# CHECK: ['kernel0-worker.cpp', 'manifest.txt', 'pages.hpp']
# CHECK: "format": "tessel.ttl runner"
# CHECK-SAME: "grid": [2, 1]
# CHECK-SAME: "headers": ["pages.hpp"]
# CHECK-SAME: "kernels": [{"kernel": "worker", "kind": "DATA_MOVEMENT"}]
# CHECK-SAME: "launch": {{\[\[}}0, 0, 1, 0]]
# CHECK-SAME: "operation": "copy"
# CHECK-SAME: "tensors": [{"common_runtime_args": 0, "compile_time_args": 10, "layout": "L1 sharded", "name": "src", "page_size": 2048, "same_as": null}, {"common_runtime_args": 0, "compile_time_args": 2, "layout": "DRAM interleaved", "name": "dst", "page_size": 2048, "same_as": null}]
# CHECK-SAME: "version": 2

# CHECK:      tessel-runner 1
# CHECK-NEXT: operation "copy"
# CHECK-NEXT: kernel captured "worker" DataMovement
# CHECK-NEXT:   source "kernel0-worker.cpp"
# CHECK-NEXT:   config data_movement RISCV_0 NOC_0

# CHECK:      #include "pages.hpp"
# CHECK:      constexpr auto tensor0_args = TensorAccessorArgs<0, 2>();
# CHECK:      constexpr auto tensor1_args = TensorAccessorArgs<10, 2>();
