"""split / join / forward through staging cores, checked against numpy."""

import numpy as np

from tessel.iron import ObjectFifo, Program, Runtime, Worker

from .common import add_kernel, fill_drain, per_object

N, LINE, PART = 1024, 256, 64
vec = np.ndarray[(N,), np.dtype[np.int32]]
line = np.ndarray[(LINE,), np.dtype[np.int32]]
part = np.ndarray[(PART,), np.dtype[np.int32]]

def test_split_then_join_gives_each_part_to_its_worker(device):
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    parts_in = of_in.cons().split([0, 64, 128, 192], obj_types=[part] * 4)
    parts_out = of_out.prod().join([0, 64, 128, 192], obj_types=[part] * 4)
    kern = add_kernel(PART)
    workers = [Worker(per_object(100 * i, PART), [parts_in[i].cons(), parts_out[i].prod(), kern]) for i in range(4)]

    design = Program(device, Runtime(fill_drain, [vec, vec, of_in.prod(), of_out.cons()]), workers).resolve_program()
    a = np.arange(N, dtype=np.int32)
    c = np.zeros(N, np.int32)
    design(a, c)
    want = a + 100 * ((np.arange(N) % LINE) // PART)
    np.testing.assert_array_equal(c, want)


def test_forward_copies_through_a_staging_core(device):
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    fwd = of_in.cons().forward()
    w = Worker(per_object(1, LINE), [fwd.cons(), of_out.prod(), add_kernel(LINE)])

    design = Program(device, Runtime(fill_drain, [vec, vec, of_in.prod(), of_out.cons()]), [w]).resolve_program()
    a = np.arange(N, dtype=np.int32)
    c = np.zeros(N, np.int32)
    design(a, c)
    np.testing.assert_array_equal(c, a + 1)
