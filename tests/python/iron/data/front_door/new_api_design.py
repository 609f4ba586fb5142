# A new-API IRON design run as a program: checks what `python -m tessel.iron.run`
# gives it (argv, __name__, __file__, its directory on sys.path) and exits with
# the status its first argument names after checking its output.
import os
import sys

import numpy as np

import aie.iron as iron
from aie.helpers.taplib import TensorAccessPattern  # noqa: F401
from aie.iron import ExternalFunction, ObjectFifo, Program, Runtime, Worker
from aie.iron.device import NPU2Col1
from aie.utils.verify import assert_pass

assert __name__ == "__main__"
assert os.path.abspath(__file__) == os.path.abspath(sys.argv[0])
assert sys.path[0] == os.path.dirname(os.path.abspath(__file__))
assert iron.get_current_device().cols == 8  # NPU2(), the device designs start with

ADD = """
extern "C" void add_k(int32_t* in, int32_t* out, int32_t k, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + k;
}
"""
n = 64
ty = np.ndarray[(n,), np.dtype[np.int32]]
add = ExternalFunction("add_k", source_string=ADD, arg_types=[ty, ty, np.int32, np.int32])
of_in, of_out = ObjectFifo(ty, name="in"), ObjectFifo(ty, name="out")


def core(i, o, k):
    x, y = i.acquire(1), o.acquire(1)
    k(x, y, 1, n)
    i.release(1)
    o.release(1)


def seq(a, c, i, o):
    i.fill(a)
    o.drain(c, wait=True)


w = Worker(core, fn_args=[of_in.cons(), of_out.prod(), add])
rt = Runtime(seq, [ty, ty, of_in.prod(), of_out.cons()])
design = Program(NPU2Col1(), rt, workers=[w]).resolve_program()
a = iron.arange(n, dtype=np.int32)
c = iron.zeros_like(a)
design(a.numpy(), c.numpy())
assert_pass(c.numpy(), a.numpy() + 1)
sys.exit(int(sys.argv[1]))
