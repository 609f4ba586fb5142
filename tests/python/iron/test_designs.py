"""Designs of several workers: core-to-core fifos, broadcast, a same-core
fifo, and results checked against numpy."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, Tile, Worker

N, LINE = 1024, 256
vec = np.ndarray[(N,), np.dtype[np.int32]]
line = np.ndarray[(LINE,), np.dtype[np.int32]]

AFFINE = """
extern "C" void affine(int32_t* in, int32_t* out, int32_t mul, int32_t add, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] * mul + add;
}
"""


def affine():
    return iron.ExternalFunction("affine", source_string=AFFINE, arg_types=[line, line, np.int32, np.int32, np.int32])


def stage(mul, add):
    def core_fn(of_in, of_out, k):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, mul, add, LINE)
        of_in.release(1)
        of_out.release(1)

    return core_fn


def test_a_pipeline_of_two_workers_moves_objects_core_to_core(device):
    a, b, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="b"), ObjectFifo(line, name="c")
    k = affine()
    w0 = Worker(stage(2, 0), [a.cons(), b.prod(), k], placement=Tile(0, 0))
    w1 = Worker(stage(1, 5), [b.cons(), c.prod(), k], placement=Tile(2, 1))

    def seq(x, y, a_h, c_h):
        a_h.fill(x)
        c_h.drain(y, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, a.prod(), c.cons()]), [w0, w1]).resolve_program()
    x = np.arange(N, dtype=np.int32) - 300
    for _ in range(2):
        y = np.zeros(N, np.int32)
        design(x, y)
        np.testing.assert_array_equal(y, x * 2 + 5)


def test_a_fifo_with_two_consumers_is_a_broadcast(device):
    a, b, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="b"), ObjectFifo(line, name="c")
    k = affine()
    w0 = Worker(stage(3, 0), [a.cons(), b.prod(), k])
    w1 = Worker(stage(-1, 7), [a.cons(depth=3), c.prod(), k])

    def seq(x, y, z, a_h, b_h, c_h):
        a_h.fill(x)
        b_h.drain(y, wait=True)
        c_h.drain(z, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, vec, a.prod(), b.cons(), c.cons()]), [w0, w1]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y, z = np.zeros(N, np.int32), np.zeros(N, np.int32)
    design(x, y, z)
    np.testing.assert_array_equal(y, x * 3)
    np.testing.assert_array_equal(z, 7 - x)


def test_a_worker_chaining_two_kernels_through_its_own_fifo(device):
    a, mid, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="mid"), ObjectFifo(line, name="c")
    k = affine()

    def core_fn(a_h, mid_p, mid_c, c_h, k):
        x = a_h.acquire(1)
        m = mid_p.acquire(1)
        k(x, m, 4, 1, LINE)
        a_h.release(1)
        mid_p.release(1)
        m2 = mid_c.acquire(1)
        y = c_h.acquire(1)
        k(m2, y, 1, -1, LINE)
        mid_c.release(1)
        c_h.release(1)

    w = Worker(core_fn, [a.cons(), mid.prod(), mid.cons(), c.prod(), k])

    def seq(x, y, a_h, c_h):
        a_h.fill(x)
        c_h.drain(y, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x * 4)


def test_a_program_enqueued_beside_a_design_stops_its_grid_and_the_design_goes_on(device):
    import tessel

    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    w = Worker(stage(1, 1), [a.cons(), c.prod(), affine()])

    def seq(x, y, a_h, c_h):
        a_h.fill(x)
        c_h.drain(y, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    p = tessel.Program()
    p.add_kernel_from_source("void kernel_main() {}", "empty", tessel.CoreRange((0, 0), (0, 0)),
                             tessel.DataMovementConfig())
    device.command_queue.enqueue_program(p)  # would run beside the design's grid: that grid stops first
    y[:] = 0
    design(x, y)
    np.testing.assert_array_equal(y, x + 1)
    assert design._native.launches == 2


def test_a_crashing_kernel_is_reported_with_its_line_and_the_design_goes_on(device):
    import tessel

    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    bad = iron.ExternalFunction("bad_kernel", source_string="""
extern "C" void bad_kernel(int32_t* in, int32_t* out, int32_t n) {
  if (in[0] == 13) { volatile int32_t* p = nullptr; *p = 1; }
  for (int32_t i = 0; i < n; ++i) out[i] = in[i];
}
""", arg_types=[line, line, np.int32])

    def core_fn(of_in, of_out, k):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, LINE)
        of_in.release(1)
        of_out.release(1)

    w = Worker(core_fn, [a.cons(), c.prod(), bad])

    def seq(x, y, a_h, c_h):
        a_h.fill(x)
        c_h.drain(y, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    x[LINE] = 13
    with pytest.raises(tessel.KernelFault) as e:
        design(x, np.zeros(N, np.int32))
    assert "bad_kernel.cc:3" in str(e.value), str(e.value)
    x[LINE] = 0
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x)
