"""The mover's address walk against the taps' own oracle: what a fill
streams is source[tap.flat_indices()], and a drain writes its stream to
dest[tap.flat_indices()]."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, TensorAccessPattern, TensorTiler2D, Worker

ROWS, COLS = 32, 48
N = ROWS * COLS


def design(device, fill_tap, drain_tap, obj, dtype):
    vec = np.ndarray[(N,), np.dtype[dtype]]
    line = np.ndarray[(obj,), np.dtype[dtype]]
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    k = iron.kernels.passthrough(obj, dtype)

    def core_fn(i, o, k):
        x = i.acquire(1)
        y = o.acquire(1)
        k(x, y, obj)
        i.release(1)
        o.release(1)

    def seq(a, c, in_h, out_h):
        in_h.fill(a, tap=fill_tap)
        out_h.drain(c, tap=drain_tap, wait=True)

    rt = Runtime(seq, [vec, vec, of_in.prod(), of_out.cons()])
    return Program(device, rt, [Worker(core_fn, [of_in.cons(), of_out.prod(), k])]).resolve_program()


TRANSPOSE = TensorAccessPattern((ROWS, COLS), 0, [COLS, ROWS], [1, COLS])
LINEAR = TensorAccessPattern((ROWS, COLS), 0, [ROWS, COLS], [COLS, 1])
TILES = TensorTiler2D.group_tiler((ROWS, COLS), (8, 16), (ROWS // 8, COLS // 16))[0]
SLICED = TensorAccessPattern((ROWS, COLS), 5, [4, 6, 64], [0, 130, 1])  # repeats, strided rows, odd offset
HEAD = TensorAccessPattern((ROWS, COLS), 0, [4 * 6 * 64], [1])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32])
@pytest.mark.parametrize("fill,drain,obj", [(TRANSPOSE, LINEAR, 96), (TILES, TRANSPOSE, 128), (LINEAR, TILES, 48),
                                            (SLICED, HEAD, 96)])
def test_the_stream_follows_the_tap(device, dtype, fill, drain, obj):
    assert fill.element_count() == drain.element_count()
    a = (np.arange(N) * 7 % 251).astype(dtype)
    c = np.zeros(N, dtype)
    design(device, fill, drain, obj, dtype)(a, c)
    stream = a[fill.flat_indices()]
    want = np.zeros(N, dtype)
    want[drain.flat_indices()] = stream
    np.testing.assert_array_equal(c, want)
