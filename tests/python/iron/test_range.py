"""range_ as IRON spells it: a start, a step and insert_yield, in a
sequence body (over constants and DispatchTime values) and in a core_fn."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, Worker, range_, yield_

from .test_sequences import TILES, T, chunk, passthrough

SIZE = T * TILES


def expected(a, tiles):
    """a where the tiles listed were moved, 0 elsewhere."""
    want = np.zeros_like(a)
    for t in tiles:
        want[t * T:(t + 1) * T] = a[t * T:(t + 1) * T]
    return want


def test_a_software_pipelined_loop_from_1_with_insert_yield_false(device):
    # IRON's spelling: issue step 0, then steps 1..n-1 in a loop that
    # finishes the step issued one iteration before.
    @iron.jit
    def design(a: iron.In, c: iron.Out, *, n: iron.DispatchTime[np.int32] = 4):
        def seq(a, c, n, in_h, out_h):
            prev = TaskGroup()
            chunk(in_h, "fill", a, 0, group=prev)
            chunk(out_h, "drain", c, 0, group=prev, wait=True)
            for i, prev, last in range_(1, n, iter_args=[prev], insert_yield=False):
                cur = TaskGroup()
                chunk(in_h, "fill", a, i, group=cur)
                chunk(out_h, "drain", c, i, group=cur, wait=True)
                prev.finish()
                yield_([cur])
            last.finish()

        return passthrough(device, seq, extra=[n])

    for n in (1, 2, 5, 8):
        a = np.arange(SIZE, dtype=np.int32) + 100 * n
        c = np.zeros_like(a)
        design(a, c, n=n)
        np.testing.assert_array_equal(c, expected(a, range(n)))
    assert len(design._kernel_cache) == 1


def test_a_start_and_a_step_over_constants(device):
    def seq(a, c, in_h, out_h):
        for i in range_(1, TILES, 3):
            tg = TaskGroup()
            chunk(in_h, "fill", a, i, group=tg)
            chunk(out_h, "drain", c, i, group=tg, wait=True)
            tg.finish()

    design = passthrough(device, seq)
    a = np.arange(SIZE, dtype=np.int32) - 7
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, expected(a, [1, 4, 7]))


def test_a_start_and_a_step_up_to_a_dispatch_value(device):
    @iron.jit
    def design(a: iron.In, c: iron.Out, *, n: iron.DispatchTime[np.int32] = 4):
        def seq(a, c, n, in_h, out_h):
            for i in range_(2, n, 2, insert_yield=False):
                tg = TaskGroup()
                chunk(in_h, "fill", a, i, group=tg)
                chunk(out_h, "drain", c, i, group=tg, wait=True)
                tg.finish()
                yield_([])

        return passthrough(device, seq, extra=[n])

    for n, tiles in ((7, [2, 4, 6]), (8, [2, 4, 6]), (3, [2]), (2, []), (0, [])):
        a = np.arange(SIZE, dtype=np.int32) * 3 + n
        c = np.zeros_like(a)
        design(a, c, n=n)
        np.testing.assert_array_equal(c, expected(a, tiles), err_msg=f"n={n}")


def test_unmanaged_tasks_carried_from_1_with_a_step(device):
    def seq(a, c, in_h, out_h):
        d0 = chunk(out_h, "drain", c, 0, managed=False, wait=True)
        f0 = chunk(in_h, "fill", a, 0, managed=False)
        for i, (pd, pf), (ld, lf) in range_(2, TILES, 2, iter_args=[d0, f0], insert_yield=False):
            f = chunk(in_h, "fill", a, i, managed=False)
            d = chunk(out_h, "drain", c, i, managed=False, wait=True)
            pd.await_()
            pd.free()
            pf.free()
            yield_([d, f])
        ld.await_()
        ld.free()
        lf.free()

    design = passthrough(device, seq)
    a = np.arange(SIZE, dtype=np.int32) + 1
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, expected(a, [0, 2, 4, 6]))


def message(device, seq):
    with pytest.raises((iron.IronRuntimeError, ValueError)) as e:
        passthrough(device, seq)
    return str(e.value)


def test_insert_yield_false_needs_the_yield_and_true_refuses_one(device):
    def missing(a, c, in_h, out_h):
        for i in range_(0, 2, insert_yield=False):
            pass

    assert message(device, missing) == ("range_(..., insert_yield=False): the loop body must end with "
                                        "yield_([])")

    def extra(a, c, in_h, out_h):
        for i in range_(0, 2):
            yield_([])

    assert message(device, extra) == ("yield_(): this range_ loop carries nothing and ends its iterations itself "
                                      "(insert_yield=True); pass insert_yield=False to end them with yield_([])")

    def backwards(a, c, in_h, out_h):
        for i in range_(4, 0, -1):
            pass

    assert message(device, backwards) == "range_ in a sequence body: step must be positive (an scf.for step), got -1"


def test_a_core_loop_with_a_start_a_step_and_insert_yield_false(device):
    # The worker takes objects in 3 rounds (range_(1, 6, 2): 1, 3, 5) per
    # iteration of its endless loop, adding the round's index.
    line = np.ndarray[(T,), np.dtype[np.int32]]
    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    add = iron.ExternalFunction("add_k", source_string="""
extern "C" void add_k(int32_t* in, int32_t* out, int32_t k, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] + k;
}
""", arg_types=[line, line, np.int32, np.int32])

    def core_fn(i_h, o_h, k):
        for r in range_(1, 6, 2, insert_yield=False):
            x = i_h.acquire(1)
            y = o_h.acquire(1)
            k(x, y, r, T)
            i_h.release(1)
            o_h.release(1)
            yield_([])

    vec = np.ndarray[(3 * T,), np.dtype[np.int32]]

    def seq(a, c, in_h, out_h):
        in_h.fill(a)
        out_h.drain(c, wait=True)

    rt = Runtime(seq, [vec, vec, of_in.prod(), of_out.cons()])
    design = Program(device, rt, [Worker(core_fn, [of_in.cons(), of_out.prod(), add])]).resolve_program()
    a = np.arange(3 * T, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, a + np.repeat([1, 3, 5], T))


def test_numpy_bounds_and_a_runtime_step(device):
    def seq(a, c, in_h, out_h):
        for i in range_(np.int32(1), np.int64(TILES), np.int32(4)):
            tg = TaskGroup()
            chunk(in_h, "fill", a, i, group=tg)
            chunk(out_h, "drain", c, i, group=tg, wait=True)
            tg.finish()

    design = passthrough(device, seq)
    a = np.arange(SIZE, dtype=np.int32) + 3
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, expected(a, [1, 5]))

    @iron.jit
    def stepped(a: iron.In, c: iron.Out, *, n: iron.DispatchTime[np.int32] = 2):
        def seq(a, c, n, in_h, out_h):
            for i in range_(0, TILES, n):
                pass

        return passthrough(device, seq, extra=[n])

    with pytest.raises(NotImplementedError) as e:
        stepped(np.zeros(SIZE, np.int32), np.zeros(SIZE, np.int32))
    assert str(e.value) == ("range_ in a sequence body: a step that is a runtime value is not supported yet; give an "
                            "integer")
