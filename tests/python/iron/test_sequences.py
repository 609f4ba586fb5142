"""Sequence bodies: task groups, unmanaged tasks, loops over dispatch values
with carried tasks and groups, and the errors and reports of bad ones."""

import re
import warnings

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, Worker, range_, yield_

T = 256
TILES = 8
vec = np.ndarray[(T * TILES,), np.dtype[np.int32]]
tile = np.ndarray[(T,), np.dtype[np.int32]]


def passthrough(device, seq, extra=()):
    of_in, of_out = ObjectFifo(tile, name="in"), ObjectFifo(tile, name="out")
    k = iron.kernels.passthrough(T, np.int32)

    def core_fn(i, o, k):
        x = i.acquire(1)
        y = o.acquire(1)
        k(x, y, T)
        i.release(1)
        o.release(1)

    w = Worker(core_fn, [of_in.cons(), of_out.prod(), k])
    rt = Runtime(seq, [vec, vec, *extra, of_in.prod(), of_out.cons()])
    return Program(device, rt, [w]).resolve_program()


def chunk(h, verb, buf, i, **kw):
    return getattr(h, verb)(buf, offset=i * T, sizes=[T], strides=[1], **kw)


def run(design, tiles_expected, **scalars):
    a = np.arange(T * TILES, dtype=np.int32) + 1
    c = np.zeros_like(a)
    design.run([a, c], scalars)
    want = np.where(np.arange(a.size) < tiles_expected * T, a, 0)
    np.testing.assert_array_equal(c, want)


class FakeCount:
    pass


def test_explicit_groups_finished_one_behind(device):
    def seq(a, c, in_h, out_h):
        prev = None
        for i in range(TILES):
            tg = TaskGroup()
            chunk(in_h, "fill", a, i, group=tg)
            chunk(out_h, "drain", c, i, group=tg, wait=True)
            if prev:
                prev.finish()
            prev = tg
        prev.finish()

    run(passthrough(device, seq), TILES)


def test_unmanaged_tasks_awaited_and_freed_by_hand(device):
    def seq(a, c, in_h, out_h):
        for i in range(TILES):
            f = chunk(in_h, "fill", a, i, managed=False)
            d = chunk(out_h, "drain", c, i, managed=False, wait=True)
            d.await_()
            f.free()
            d.free()

    run(passthrough(device, seq), TILES)


def test_a_group_carried_through_a_loop_over_a_dispatch_count(device):
    @iron.jit
    def design(a: iron.In, c: iron.Out, *, n: iron.DispatchTime[np.int32] = 4):
        def seq(a, c, n, in_h, out_h):
            tg0 = TaskGroup()
            chunk(in_h, "fill", a, 0, group=tg0)
            chunk(out_h, "drain", c, 0, group=tg0, wait=True)
            for i, prev, last in range_(n - 1, iter_args=[tg0]):
                cur = TaskGroup()
                chunk(in_h, "fill", a, i + 1, group=cur)
                chunk(out_h, "drain", c, i + 1, group=cur, wait=True)
                prev.finish()
                yield_([cur])
            last.finish()

        return passthrough(device, seq, extra=[n])

    for n in (1, 4, 8, 3):
        a = np.arange(T * TILES, dtype=np.int32) + 1
        c = np.zeros_like(a)
        design(a, c, n=n)
        np.testing.assert_array_equal(c, np.where(np.arange(a.size) < n * T, a, 0))
    assert len(design._kernel_cache) == 1


def test_unmanaged_tasks_carried_through_a_loop(device):
    # A fill is freed only once the drain that depends on it is awaited: the
    # drain and its fill are carried to the next iteration together.
    def seq(a, c, in_h, out_h):
        d0 = chunk(out_h, "drain", c, 0, managed=False, wait=True)
        f0 = chunk(in_h, "fill", a, 0, managed=False)
        for i, (prev_d, prev_f), (last_d, last_f) in range_(TILES - 1, iter_args=[d0, f0]):
            f = chunk(in_h, "fill", a, i + 1, managed=False)
            d = chunk(out_h, "drain", c, i + 1, managed=False, wait=True)
            prev_d.await_()
            prev_d.free()
            prev_f.free()
            yield_([d, f])
        last_d.await_()
        last_d.free()
        last_f.free()

    run(passthrough(device, seq), TILES)


def rule(device, seq, error=iron.IronRuntimeError):
    with pytest.raises(error) as e:
        passthrough(device, seq)
    return str(e.value)


def test_mixing_default_and_explicit_groups_is_rejected(device):
    def seq(a, c, in_h, out_h):
        in_h.fill(a)
        tg = TaskGroup()
        out_h.drain(c, group=tg, wait=True)
        tg.finish()

    m = rule(device, seq)
    assert "this sequence uses both the default task group and explicit TaskGroups" in m


def test_an_unfinished_group_is_an_error_naming_its_line(device):
    def seq(a, c, in_h, out_h):
        tg = TaskGroup()  # noqa: F841
        in_h.fill(a, group=tg)
        out_h.drain(c, group=tg, wait=True)

    m = rule(device, seq)
    assert re.search(r"test_sequences.py:\d+: a TaskGroup created here is never finished", m), m


def test_await_of_a_task_without_wait_and_hand_freeing_managed_tasks(device):
    def no_wait(a, c, in_h, out_h):
        t = in_h.fill(a, managed=False)
        t.await_()

    assert "await_() needs a task issued with wait=True" in rule(device, no_wait)

    def managed_free(a, c, in_h, out_h):
        t = in_h.fill(a)
        out_h.drain(c, wait=True)
        t.free()

    assert "a managed task is freed by its TaskGroup; do not free it by hand" in rule(device, managed_free)


def test_a_yielded_group_of_another_shape_is_rejected(device):
    def seq(a, c, in_h, out_h):
        tg0 = TaskGroup()
        chunk(in_h, "fill", a, 0, group=tg0)
        chunk(out_h, "drain", c, 0, group=tg0, wait=True)
        for i, prev, last in range_(3, iter_args=[tg0]):
            cur = TaskGroup()
            chunk(in_h, "fill", a, 1, group=cur, wait=True)
            chunk(out_h, "drain", c, 1, group=cur, wait=True)
            prev.finish()
            yield_([cur])
        last.finish()

    m = rule(device, seq, ValueError)
    assert "has transfers waited [True, True] but the loop carries a group waited [False, True]" in m


def test_managed_default_group_tasks_in_a_loop_are_rejected(device):
    def seq(a, c, in_h, out_h):
        for i in range_(4):
            chunk(in_h, "fill", a, i)

    assert "a managed task in a range_ loop needs a TaskGroup created and finished in the same loop" in rule(
        device, seq)


def test_the_race_rule_warns_naming_both_tasks_and_strict_makes_it_an_error(device, monkeypatch):
    def seq(a, c, in_h, out_h):
        tg = TaskGroup()
        out_h.drain(c, group=tg)  # awaited by nobody, fed by nothing awaited
        in_h.fill(a, group=tg, wait=True)
        tg.finish()

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        passthrough(device, seq)
    msgs = [str(x.message) for x in w if issubclass(x.category, iron.RaceWarning)]
    assert len(msgs) == 1 and "the out drain is not awaited and no awaited task of its TaskGroup depends on it " \
        "(awaited: the in fill at line" in msgs[0], msgs
    monkeypatch.setenv("TESSEL_STRICT", "1")
    assert "(TESSEL_STRICT=1 makes this an error)" in rule(device, seq)


def test_a_drain_nobody_fills_is_a_deadlock_naming_the_sequence_line_and_the_worker(device):
    def seq(a, c, in_h, out_h):
        chunk(in_h, "fill", a, 0)
        out_h.drain(c, wait=True)  # 8 tiles wanted, 1 given

    design = passthrough(device, seq)
    a, c = np.ones(T * TILES, np.int32), np.zeros(T * TILES, np.int32)
    with pytest.raises(iron.DeadlockError) as e:
        design(a, c)
    m = str(e.value)
    assert re.search(r"the sequence waits at test_sequences.py:\d+ \(for the out drain \(shim \(0,0\) S2MM 0\) "
                     r"task of test_sequences.py:\d+ to finish\)", m), m
    assert re.search(r"worker 'worker\d+' on \(0,0\) waits for 1 full object\(s\) of in consumer on \(0,0\) "
                     r"\(it has 0\) at .*test_sequences.py:\d+", m), m
    # The design is still usable afterwards (a fresh grid at the next call).
    with pytest.raises(iron.DeadlockError):
        design(a, c)


def test_descriptor_exhaustion_names_the_shim_tile_and_every_holder(device):
    def seq(a, c, in_h, out_h):
        for i in range(TILES):
            chunk(in_h, "fill", a, i, managed=False)
            chunk(out_h, "drain", c, i, managed=False)
        for i in range(TILES):
            chunk(in_h, "fill", a, i, managed=False)

    design = passthrough(device, seq)
    a, c = np.ones(T * TILES, np.int32), np.zeros(T * TILES, np.int32)
    with pytest.raises(iron.FlowError) as e:
        design(a, c)
    m = str(e.value)
    assert "shim tile (0,0) has no free descriptor: all 16 are held by tasks not freed yet" in m, m
    assert m.count(", not awaited") == 16, m
    # Each holder by its line in the body (not the helper's).
    assert len(set(re.findall(r"task at test_sequences.py:(\d+), not", m))) == 2, m


def test_a_call_that_leaves_data_behind_is_a_warning_naming_it_once(device, monkeypatch):
    """Silicon ends the call (the host waits for its awaited tasks only), so
    data left on the grid is a likely bug, not a failure."""
    def seq(a, c, in_h, out_h):
        f = chunk(in_h, "fill", a, 0, managed=False, wait=True)
        f.await_()
        f.free()

    design = passthrough(device, seq)
    a, c = np.ones(T * TILES, np.int32), np.zeros(T * TILES, np.int32)
    with pytest.warns(iron.FlowWarning, match=r"out producer on \(0,0\): 1 object\(s\) filled and never taken"):
        design(a, c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        design2 = passthrough(device, seq)
        monkeypatch.setenv("TESSEL_STRICT", "1")
        with pytest.raises(iron.IronRuntimeError, match="(?s)not back at its starting state.*TESSEL_STRICT=1"):
            design2(a, c)


def test_reusing_the_descriptor_of_a_task_freed_while_it_still_ran_is_an_error(device):
    def seq(a, c, in_h, out_h):
        f = in_h.fill(a, managed=False)  # 8 tiles: still moving when freed
        f.free()
        d = chunk(out_h, "drain", c, 0, managed=False, wait=True)  # takes the same descriptor
        d.await_()
        d.free()

    design = passthrough(device, seq)
    a, c = np.ones(T * TILES, np.int32), np.zeros(T * TILES, np.int32)
    with pytest.raises(iron.FlowError) as e:
        design(a, c)
    m = str(e.value)
    assert re.search(r"out drain \(shim \(0,0\) S2MM 0\) task at test_sequences.py:\d+: it takes descriptor 0 of shim "
                     r"tile \(0,0\), which the in fill \(shim \(0,0\) MM2S 0\) task of test_sequences.py:\d+ still "
                     r"uses: that task was freed at test_sequences.py:\d+ before it finished", m), m
