"""The spec's `copy` with a dispatch-time count: one compiled design copies
`count` tiles of `tile_size` elements from a to b, the count given per call
(`count=6`) or by default (3), or fixed into the design by specialize(count=3).
The stream loops `count` times over a TaskGroup (fill a tile, drain it),
so a new count needs no new build."""

import sys

import numpy as np

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, Worker, range_

CAPACITY_TILES = 8


@iron.jit
def copy(a: iron.In, b: iron.Out, *, count: iron.DispatchTime[np.int32] = 3,
         tile_size: iron.CompileTime[int] = 256):
    n = a.numel() if hasattr(a, "numel") else a.size
    tensor_ty = np.ndarray[(n,), np.dtype[np.int32]]
    tile_ty = np.ndarray[(tile_size,), np.dtype[np.int32]]
    of_in = ObjectFifo(tile_ty, name="in")
    of_out = ObjectFifo(tile_ty, name="out")
    k = iron.kernels.passthrough(tile_size, np.int32)

    def core_fn(of_in, of_out, k):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, tile_size)
        of_in.release(1)
        of_out.release(1)

    worker = Worker(core_fn, [of_in.cons(), of_out.prod(), k])

    def seq(a_buf, b_buf, count_value, in_h, out_h):
        for i in range_(count_value):
            tg = TaskGroup()
            in_h.fill(a_buf, offset=i * tile_size, sizes=[tile_size], strides=[1], group=tg)
            out_h.drain(b_buf, offset=i * tile_size, sizes=[tile_size], strides=[1], group=tg, wait=True)
            tg.finish()

    rt = Runtime(seq, [tensor_ty, tensor_ty, count, of_in.prod(), of_out.cons()])
    return Program(None, rt, workers=[worker]).resolve_program()


def run(count=None, specialized=False, tile=256):
    a = iron.arange(CAPACITY_TILES * tile, dtype=np.int32)
    b = iron.zeros(CAPACITY_TILES * tile, dtype=np.int32)
    if specialized:
        copy.specialize(count=count)(a, b)
    elif count is None:
        copy(a, b)
    else:
        copy(a, b, count=count)
    return a.numpy(), b.numpy()


def check(name, a, b, count, tile=256):
    want = np.where(np.arange(a.size) < count * tile, a, 0)
    ok = np.array_equal(b, want)
    print(f"copy ({name}): {'PASS' if ok else 'FAIL'}")
    return ok


def main():
    ok = check("default count=3", *run(), 3)
    ok &= check("count=6", *run(6), 6)
    ok &= check("specialize(count=3)", *run(3, specialized=True), 3)
    print(f"copy: {len(copy._kernel_cache)} design(s) built for the dynamic count")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
