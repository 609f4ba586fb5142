"""Designs without workers are legal: a sequence over DispatchTime values
only (nothing on the grid), and one that only moves data between host
buffers through a forward link. A design with nothing on its grid runs its
loops on the host, in time for its timeout and Ctrl-C."""

import threading
import time

import numpy as np
import pytest

import tessel
import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, range_

T, TILES = 256, 4
tile = np.ndarray[(T,), np.dtype[np.int32]]
vec = np.ndarray[(T * TILES,), np.dtype[np.int32]]


def test_the_specs_two_dispatch_values_forwarded_to_a_design_with_no_workers(device):
    @iron.jit
    def design(*, bar: iron.DispatchTime[np.int32], baz: iron.DispatchTime[np.int32]):
        def seq(baz_value, bar_value):
            for _ in range_(baz_value):
                for _ in range_(bar_value):
                    pass

        rt = iron.Runtime(seq, fn_args=[baz, bar])
        return Program(device, rt).resolve_program()

    for bar, baz in ((1, 2), (5, 0), (3, 7)):
        design(bar=np.int32(bar), baz=np.int32(baz))
    assert len(design._kernel_cache) == 1
    (built,) = design._kernel_cache.values()
    assert built.design.calls == 3
    # baz's value (fn_args[0]) is register 0, bar's register 1: the loops
    # run over baz, then over bar.
    loops = [(op[4], op[6][0], [tuple(t) for t in op[6][1]]) for op in built.design.spec["ops"] if op[0] == 6]
    assert loops == [(1, 0, [(0, 1)]), (1, 0, [(1, 1)])]


def test_a_design_that_only_moves_data_between_host_buffers(device):
    @iron.jit
    def design(a: iron.In, c: iron.Out, *, n: iron.DispatchTime[np.int32] = TILES):
        of_in = ObjectFifo(tile, name="in")
        of_out = of_in.cons().forward(name="out")

        def seq(a, c, n, in_h, out_h):
            for i in range_(n):
                f = in_h.fill(a, offset=i * T, sizes=[T], strides=[1], managed=False)
                d = out_h.drain(c, offset=i * T, sizes=[T], strides=[1], wait=True, managed=False)
                d.await_()
                f.free()
                d.free()

        return Program(device, Runtime(seq, [vec, vec, n, of_in.prod(), of_out.cons()])).resolve_program()

    for n in (TILES, 2):
        a = np.arange(T * TILES, dtype=np.int32) * 5 + n
        c = np.zeros_like(a)
        design(a, c, n=n)
        np.testing.assert_array_equal(c, np.where(np.arange(a.size) < n * T, a, 0))


INT32_MAX = 2**31 - 1


def loops_design(device, triangle):
    """A design with nothing on its grid over DispatchTime n: for i in
    range_(n): for j in range_(n) (or range_(i, n) when `triangle`: the
    inner loop reads the outer index, so the host iterates the outer loop)."""

    @iron.jit
    def design(*, n: iron.DispatchTime[np.int32]):
        def seq(n_value):
            for i in range_(n_value):
                for _ in range_(i if triangle else 0, n_value):
                    pass

        return Program(device, Runtime(seq, fn_args=[n])).resolve_program()

    design(n=np.int32(1))
    (built,) = design._kernel_cache.values()
    return built.design


def test_the_specs_two_dispatch_values_at_their_largest_end_at_once(device):
    design = loops_design(device, triangle=False)
    start = time.perf_counter()
    design.run([], {"n": INT32_MAX}, timeout_s=60.0)
    assert time.perf_counter() - start < 1.0


def test_a_gridless_call_past_its_timeout_is_a_flow_error(device):
    design = loops_design(device, triangle=True)
    with pytest.raises(tessel.FlowError) as e:
        design.run([], {"n": INT32_MAX}, timeout_s=0.05)
    assert str(e.value) == (f"design 'seq': call {design.calls} did not end within 0.050000 s; its sequence's loops, "
                            "run on the host (the design has nothing on its grid), were stopped")
    design.run([], {"n": 100})  # the design is still usable


def test_ctrl_c_ends_a_gridless_call(device):
    design = loops_design(device, triangle=True)
    returned = threading.Event()

    def ctrl_c():  # request until the call returns: the call clears requests made before it starts
        while not returned.is_set():
            tessel.request_interrupt()

    t = threading.Thread(target=ctrl_c)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            design.run([], {"n": INT32_MAX}, timeout_s=600.0)
    finally:
        returned.set()
        t.join()
        tessel._tessel.clear_interrupt()
    design.run([], {"n": 100})
