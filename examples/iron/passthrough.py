"""IRON's passthrough_kernel on tessel: 4096 uint8 elements from the host
through one worker (1024-element objects, ping-pong fifos) and back,
checked element by element."""

import sys

import numpy as np

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, Worker

N = 4096
LINE = 1024


def build(n=N, line=LINE, device=None):
    vector_ty = np.ndarray[(n,), np.dtype[np.uint8]]
    line_ty = np.ndarray[(line,), np.dtype[np.uint8]]
    of_in = ObjectFifo(line_ty, name="in")
    of_out = ObjectFifo(line_ty, name="out")
    passthrough = iron.kernels.passthrough(line, np.uint8)

    def core_fn(of_in, of_out, kernel):
        elem_out = of_out.acquire(1)
        elem_in = of_in.acquire(1)
        kernel(elem_in, elem_out, line)
        of_in.release(1)
        of_out.release(1)

    worker = Worker(core_fn, [of_in.cons(), of_out.prod(), passthrough])

    def sequence(a_in, b_out, in_h, out_h):
        in_h.fill(a_in)
        out_h.drain(b_out, wait=True)

    rt = Runtime(sequence, [vector_ty, vector_ty, of_in.prod(), of_out.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


def main():
    design = build()
    a = np.arange(N, dtype=np.uint8)
    b = np.zeros(N, dtype=np.uint8)
    design(a, b)
    errors = int(np.count_nonzero(a != b))
    if errors:
        print(f"passthrough: {errors} of {N} elements wrong")
        return 1
    print(f"passthrough: PASS ({N} uint8 elements through one worker)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
