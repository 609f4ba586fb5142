"""Pieces the tessel.iron tests share: a kernel adding a constant, a worker
body calling a kernel once per object, and the fill-then-drain sequence."""

from pathlib import Path

import numpy as np

import tessel.iron as iron

FRONT_DOOR_DATA = Path(__file__).parent / "data" / "front_door"
"""The IRON design and test programs the front-door tests run."""

ADD = """
extern "C" void add_k(int32_t* in, int32_t* out, int32_t k, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + k;
}
"""


def add_kernel(n):
    """add_k(in, out, k, n) over n int32 elements."""
    t = np.ndarray[(n,), np.dtype[np.int32]]
    return iron.ExternalFunction("add_k", source_string=ADD, arg_types=[t, t, np.int32, np.int32])


def per_object(*scalars):
    """A core_fn(of_in, of_out, kernel) calling kernel(in, out, *scalars) once per object."""

    def core_fn(of_in, of_out, kernel):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        kernel(x, y, *scalars)
        of_in.release(1)
        of_out.release(1)

    return core_fn


def add_k_worker(n, k):
    """(of_in, of_out, worker): fifos of n int32 objects named in and out, and
    a worker adding k to every object (add_kernel through per_object)."""
    ty = np.ndarray[(n,), np.dtype[np.int32]]
    of_in, of_out = iron.ObjectFifo(ty, name="in"), iron.ObjectFifo(ty, name="out")
    return of_in, of_out, iron.Worker(per_object(k, n), fn_args=[of_in.cons(), of_out.prod(), add_kernel(n)])


def fill_drain(x, y, in_h, out_h):
    """The sequence body of a one-in, one-out design."""
    in_h.fill(x)
    out_h.drain(y, wait=True)
