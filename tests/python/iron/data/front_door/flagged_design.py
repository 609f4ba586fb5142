# An older-API design whose kernel object (add_by.o) its Makefile builds with
# -DADD_BY=7: run it with `--kernel-flags add_by.o=-DADD_BY=7`.
import sys

import numpy as np

from aie.iron import Kernel, ObjectFifo, Program, Runtime, Worker
from aie.iron.controlflow import range_
from aie.iron.device import NPU1Col1
from aie.iron.placers import SequentialPlacer

n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
tile = 64
tensor_ty = np.ndarray[(n,), np.dtype[np.int32]]
tile_ty = np.ndarray[(tile,), np.dtype[np.int32]]
add_by = Kernel("add_by", "add_by.o", [tile_ty, tile_ty, np.int32])
of_in = ObjectFifo(tile_ty, name="in")
of_out = ObjectFifo(tile_ty, name="out")


def core_body(of_in, of_out, k):
    for _ in range_(n // tile):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, tile)
        of_in.release(1)
        of_out.release(1)


worker = Worker(core_body, fn_args=[of_in.cons(), of_out.prod(), add_by])
rt = Runtime()
with rt.sequence(tensor_ty, tensor_ty) as (a, c):
    rt.start(worker)
    rt.fill(of_in.prod(), a)
    rt.drain(of_out.cons(), c, wait=True)

print(Program(NPU1Col1(), rt).resolve_program(SequentialPlacer()))
