import argparse
import sys

import numpy as np

from aie.iron import ExternalFunction, ObjectFifo, Program, Runtime, Worker
from aie.iron.controlflow import range_
from aie.iron.device import NPU1Col1, NPU2
from aie.iron.placers import SequentialPlacer

ADD = """
extern "C" void add_k(int32_t* in, int32_t* out, int32_t k, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + k;
}
"""

p = argparse.ArgumentParser()
p.add_argument("-d", "--dev", required=True, dest="device")
p.add_argument("-n", type=int, default=256)
opts = p.parse_args(sys.argv[1:])
dev = NPU1Col1() if opts.device == "npu" else NPU2()
n, tile = opts.n, 64
tensor_ty = np.ndarray[(n,), np.dtype[np.int32]]
tile_ty = np.ndarray[(tile,), np.dtype[np.int32]]
add = ExternalFunction("add_k", source_string=ADD, arg_types=[tile_ty, tile_ty, np.int32, np.int32])
of_in = ObjectFifo(tile_ty, name="in")
of_out = ObjectFifo(tile_ty, name="out")


def core_body(of_in, of_out, k):
    for _ in range_(n // tile):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, 7, tile)
        of_in.release(1)
        of_out.release(1)


worker = Worker(core_body, fn_args=[of_in.cons(), of_out.prod(), add])
rt = Runtime()
with rt.sequence(tensor_ty, tensor_ty) as (a, c):
    rt.enable_trace(0)
    rt.start(worker)
    tg = rt.task_group()
    rt.fill(of_in.prod(), a, task_group=tg)
    rt.drain(of_out.cons(), c, task_group=tg, wait=True)
    rt.finish_task_group(tg)

module = Program(dev, rt).resolve_program(SequentialPlacer())
res = module.operation.verify()
print(module)
