"""split / join / forward through staging cores, checked against numpy."""

import numpy as np

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, Worker

N, LINE, PART = 1024, 256, 64
vec = np.ndarray[(N,), np.dtype[np.int32]]
line = np.ndarray[(LINE,), np.dtype[np.int32]]
part = np.ndarray[(PART,), np.dtype[np.int32]]

ADD = """
extern "C" void add_k(int32_t* in, int32_t* out, int32_t k, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + k;
}
"""


def adder(n):
    return iron.ExternalFunction("add_k", source_string=ADD,
                                 arg_types=[np.ndarray[(n,), np.dtype[np.int32]]] * 2 + [np.int32, np.int32])


def stage(k, n):
    def core_fn(of_in, of_out, kern):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        kern(x, y, k, n)
        of_in.release(1)
        of_out.release(1)

    return core_fn


def test_split_then_join_gives_each_part_to_its_worker(device):
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    parts_in = of_in.cons().split([0, 64, 128, 192], obj_types=[part] * 4)
    parts_out = of_out.prod().join([0, 64, 128, 192], obj_types=[part] * 4)
    kern = adder(PART)
    workers = [Worker(stage(100 * i, PART), [parts_in[i].cons(), parts_out[i].prod(), kern]) for i in range(4)]

    def seq(a, c, in_h, out_h):
        in_h.fill(a)
        out_h.drain(c, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, of_in.prod(), of_out.cons()]), workers).resolve_program()
    a = np.arange(N, dtype=np.int32)
    c = np.zeros(N, np.int32)
    design(a, c)
    want = a + 100 * ((np.arange(N) % LINE) // PART)
    np.testing.assert_array_equal(c, want)


def test_forward_copies_through_a_staging_core(device):
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    fwd = of_in.cons().forward()
    w = Worker(stage(1, LINE), [fwd.cons(), of_out.prod(), adder(LINE)])

    def seq(a, c, in_h, out_h):
        in_h.fill(a)
        out_h.drain(c, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, of_in.prod(), of_out.cons()]), [w]).resolve_program()
    a = np.arange(N, dtype=np.int32)
    c = np.zeros(N, np.int32)
    design(a, c)
    np.testing.assert_array_equal(c, a + 1)
