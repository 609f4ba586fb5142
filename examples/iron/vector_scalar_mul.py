"""IRON's vector_scalar_mul on tessel: 2048 int16 elements in tiles of 512
multiplied by a factor, checked against numpy.

Two variants: the factor through a 1-element fifo (IRON's example), and the
factor as a runtime parameter (a Buffer written by the sequence body) that
the worker reads after a WorkerRuntimeBarrier."""

import sys

import numpy as np

import tessel.iron as iron
from tessel.iron import Buffer, ObjectFifo, Program, Runtime, Worker, WorkerRuntimeBarrier, range_

N = 2048
TILE = 512


def build_fifo(n=N, tile=TILE, device=None):
    tensor_ty = np.ndarray[(n,), np.dtype[np.int16]]
    tile_ty = np.ndarray[(tile,), np.dtype[np.int16]]
    scalar_ty = np.ndarray[(1,), np.dtype[np.int32]]
    of_in = ObjectFifo(tile_ty, name="in")
    of_factor = ObjectFifo(scalar_ty, name="infactor")
    of_out = ObjectFifo(tile_ty, name="out")
    scale = iron.kernels.scale(tile, np.int16)

    def core_fn(of_in, of_factor, of_out, scale):
        elem_factor = of_factor.acquire(1)
        for _ in range_(n // tile):
            elem_in = of_in.acquire(1)
            elem_out = of_out.acquire(1)
            scale(elem_in, elem_out, elem_factor, tile)
            of_in.release(1)
            of_out.release(1)
        of_factor.release(1)

    worker = Worker(core_fn, [of_in.cons(), of_factor.cons(), of_out.prod(), scale])

    def sequence(a, f, c, in_h, factor_h, out_h):
        in_h.fill(a)
        factor_h.fill(f)
        out_h.drain(c, wait=True)

    rt = Runtime(sequence, [tensor_ty, scalar_ty, tensor_ty, of_in.prod(), of_factor.prod(), of_out.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


SCALE_BY_VALUE = """
extern "C" void scale_by(int16_t* in, int16_t* out, int32_t factor, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = int16_t(in[i] * factor);
}
"""


def build_rtp(factor, n=N, tile=TILE, device=None):
    tensor_ty = np.ndarray[(n,), np.dtype[np.int16]]
    tile_ty = np.ndarray[(tile,), np.dtype[np.int16]]
    of_in = ObjectFifo(tile_ty, name="in")
    of_out = ObjectFifo(tile_ty, name="out")
    rtp = Buffer(np.ndarray[(16,), np.dtype[np.int32]], name="rtp", use_write_rtp=True)
    barrier = WorkerRuntimeBarrier()
    scale_by = iron.ExternalFunction("scale_by", source_string=SCALE_BY_VALUE,
                                     arg_types=[tile_ty, tile_ty, np.int32, np.int32])

    def core_fn(of_in, of_out, rtp, barrier, scale_by):
        barrier.wait_for_value(1)
        for _ in range_(n // tile):
            elem_in = of_in.acquire(1)
            elem_out = of_out.acquire(1)
            scale_by(elem_in, elem_out, rtp[0], tile)
            of_in.release(1)
            of_out.release(1)

    worker = Worker(core_fn, [of_in.cons(), of_out.prod(), rtp, barrier, scale_by])

    def sequence(a, c, in_h, out_h):
        rtp[0] = factor
        barrier.set(1)
        in_h.fill(a)
        out_h.drain(c, wait=True)

    rt = Runtime(sequence, [tensor_ty, tensor_ty, of_in.prod(), of_out.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


def check(name, a, c, factor):
    expected = (a.astype(np.int32) * factor).astype(np.int16)
    errors = int(np.count_nonzero(c != expected))
    print(f"vector_scalar_mul ({name}): " + (f"{errors} of {a.size} wrong" if errors else "PASS"))
    return errors


def main():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 100, N, dtype=np.int16)
    c = np.zeros(N, dtype=np.int16)
    build_fifo()(a, np.array([3], dtype=np.int32), c)
    errors = check("factor fifo", a, c, 3)
    c2 = np.zeros(N, dtype=np.int16)
    build_rtp(5)(a, c2)
    errors += check("RTP + barrier", a, c2, 5)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
