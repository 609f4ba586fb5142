# A design whose worker divides each element by (element + 50): the testbench's
# first element is -50, so its first run divides by zero.
import numpy as np

from aie.iron import ObjectFifo, Program, Runtime, Worker
from aie.iron.controlflow import range_
from aie.iron.device import NPU1Col1
from aie.iron.placers import SequentialPlacer

n = 128
ty = np.ndarray[(n,), np.dtype[np.int32]]
of_in, of_out = ObjectFifo(ty, name="in"), ObjectFifo(ty, name="out")


def core_body(of_in, of_out):
    x = of_in.acquire(1)
    y = of_out.acquire(1)
    for i in range_(n):
        y[i] = x[i] // (x[i] + 50)
    of_in.release(1)
    of_out.release(1)


rt = Runtime()
with rt.sequence(ty, ty) as (a, c):
    rt.start(Worker(core_body, fn_args=[of_in.cons(), of_out.prod()]))
    rt.fill(of_in.prod(), a)
    rt.drain(of_out.cons(), c, wait=True)

print(Program(NPU1Col1(), rt).resolve_program(SequentialPlacer()))
