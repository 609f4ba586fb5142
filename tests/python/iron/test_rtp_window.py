"""The runtime-parameter window: a worker reading a parameter the sequence
writes, with no WorkerRuntimeBarrier set after the write and waited for
before the read, is a race: a RaceWarning naming the worker, the buffer and
both lines (an error under TESSEL_STRICT=1). Seeded random schedules show
the old value; deterministic runs show the value written; a barrier set
after the write and waited for before the read always shows the new one."""

import os
import warnings

import numpy as np
import pytest

import tessel
import tessel.iron as iron
from tessel.iron import Buffer, ObjectFifo, Program, Runtime, Worker, WorkerRuntimeBarrier

from .common import add_kernel

N = 256
VALUE = 1000
vec = np.ndarray[(N,), np.dtype[np.int32]]
HERE = os.path.basename(__file__)


def line_of(marker):
    """The line of this file holding `# <marker>`."""
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if text.rstrip().endswith(f"# {marker}"):
                return n
    raise AssertionError(marker)


def build(device, order, initial_value=0, waits=(1,), value_set=1, releases=()):
    """A worker adding rtp[0] to one object per call. order: "none" (no
    barrier), "before" (the barrier set before the write) or "after". The
    barrier starts at initial_value; the worker releases each value of
    `releases`, then waits for each value of `waits` before the read, and
    the sequence sets value_set."""
    rtp = Buffer(np.ndarray[(4,), np.dtype[np.int32]], name="rtp", use_write_rtp=True)
    barrier = WorkerRuntimeBarrier(initial_value)
    of_in, of_out = ObjectFifo(vec, name="in"), ObjectFifo(vec, name="out")

    def core_fn(i, o, rtp, barrier, k):
        if order != "none":
            for v in releases:
                barrier.release_with_value(v)
            for v in waits:
                barrier.wait_for_value(v)  # the wait
        x = i.acquire(1)
        y = o.acquire(1)
        k(x, y, rtp[0], N)  # the read
        i.release(1)
        o.release(1)

    def seq(a, c, in_h, out_h):
        if order == "before":
            barrier.set(value_set)
        rtp[0] = VALUE  # the write
        if order == "after":
            barrier.set(value_set)
        in_h.fill(a)
        out_h.drain(c, wait=True)

    w = Worker(core_fn, [of_in.cons(), of_out.prod(), rtp, barrier, add_kernel(N)], name="scaler")
    rt = Runtime(seq, [vec, vec, of_in.prod(), of_out.cons()])
    return Program(device, rt, [w]).resolve_program()


def race_warnings(device, order, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        design = build(device, order, **kw)
    return design, [str(x.message) for x in w if issubclass(x.category, iron.RaceWarning)]


def expected_message():
    return (f"worker 'scaler' reads runtime parameter 'rtp'[0] at {HERE}:{line_of('the read')} with no "
            f"WorkerRuntimeBarrier between the read and the sequence's write at {HERE}:{line_of('the write')} (one "
            "the sequence sets after the write and the worker waits for before the read): the write may reach the "
            "core after the read, which then sees the old value")


def call(design):
    a = np.arange(N, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, c)
    return c - a  # the parameter the worker read, per element


@pytest.mark.parametrize("order", ["none", "before"])
def test_a_read_without_a_barrier_after_the_write_warns_naming_worker_buffer_and_lines(device, order):
    design, msgs = race_warnings(device, order)
    assert msgs == [expected_message()]
    design.close()


@pytest.mark.parametrize("order", ["none", "before"])
def test_strict_makes_the_race_an_error(device, order, monkeypatch):
    monkeypatch.setenv("TESSEL_STRICT", "1")
    with pytest.raises(iron.IronRuntimeError) as e:
        build(device, order)
    assert str(e.value) == expected_message() + " (TESSEL_STRICT=1 makes this an error)"


@pytest.mark.parametrize("policy", ["deterministic"] + [f"random:{s}" for s in range(1, 9)] + ["parallel:2"])
def test_a_barrier_set_after_the_write_and_waited_before_the_read_is_no_race(policy, monkeypatch):
    monkeypatch.setenv("TESSEL_STRICT", "1")
    with tessel.Device.open(grid=(2, 2), policy=policy) as device:
        design, msgs = race_warnings(device, "after")
        assert msgs == []
        for _ in range(2):
            np.testing.assert_array_equal(call(design), VALUE)
        design.close()


def test_random_schedules_show_the_old_value_and_deterministic_the_new():
    """Without a barrier the worker reads either the value written or the
    one before it (0 on the first call); some seed of a bounded set shows
    the old one, and a deterministic run always shows the new one."""
    seen = {}
    for seed in range(1, 17):
        with tessel.Device.open(grid=(2, 2), policy=f"random:{seed}") as device:
            design, _ = race_warnings(device, "none")
            read = call(design)
            assert (read == read[0]).all() and read[0] in (0, VALUE), (seed, read)
            seen[seed] = int(read[0])
            # The write has landed by the end of the call: the next reads it.
            np.testing.assert_array_equal(call(design), VALUE)
            design.close()
    assert 0 in seen.values(), seen
    with tessel.Device.open(grid=(2, 2), policy="deterministic") as device:
        design, _ = race_warnings(device, "none")
        np.testing.assert_array_equal(call(design), VALUE)
        design.close()


@pytest.mark.parametrize("initial_value, waits", [(1, (1,)), (5, (3,)), (2, (1, 1))])
def test_a_wait_the_barriers_initial_value_already_passes_orders_nothing(device, initial_value, waits):
    """The barrier starts at or above what the worker takes before the read:
    its waits pass at once, before the sequence's set, so the barrier set
    after the write orders nothing."""
    design, msgs = race_warnings(device, "after", initial_value=initial_value, waits=waits, value_set=waits[-1])
    assert msgs == [expected_message() + f"; the worker's wait_for_value({waits[-1]}) at {HERE}:{line_of('the wait')} "
                    f"passes at once, before any set: the barrier starts at {initial_value} "
                    f"(WorkerRuntimeBarrier(initial_value={initial_value})), enough for every wait before the read, "
                    "so it orders nothing"]
    design.close()


def test_a_wait_the_workers_own_release_already_passes_orders_nothing(device):
    design, msgs = race_warnings(device, "after", releases=(2,), waits=(1, 1))
    assert msgs == [expected_message() + f"; the worker's wait_for_value(1) at {HERE}:{line_of('the wait')} passes at "
                    "once, before any set: the barrier starts at 0 (WorkerRuntimeBarrier(initial_value=0)) and the "
                    "worker's release_with_value calls before it give 2, enough for every wait before the read, so "
                    "it orders nothing"]
    design.close()


def test_strict_makes_a_wait_the_initial_value_passes_an_error(device, monkeypatch):
    monkeypatch.setenv("TESSEL_STRICT", "1")
    with pytest.raises(iron.IronRuntimeError) as e:
        build(device, "after", initial_value=1)
    assert str(e.value).endswith("so it orders nothing (TESSEL_STRICT=1 makes this an error)")


@pytest.mark.parametrize("initial_value, waits, value_set, releases",
                         [(1, (2,), 2, ()), (1, (1, 1), 1, ()), (63, (63, 1), 1, ()), (0, (2, 1), 1, (2,))])
def test_a_wait_beyond_the_barriers_initial_value_orders_the_read(initial_value, waits, value_set, releases,
                                                                  monkeypatch):
    """A wait the initial value (and the worker's releases) cannot pass
    needs the sequence's set: it orders the read after the write on every
    schedule."""
    monkeypatch.setenv("TESSEL_STRICT", "1")
    for policy in ["deterministic"] + [f"random:{s}" for s in range(1, 5)]:
        with tessel.Device.open(grid=(2, 2), policy=policy) as device:
            design, msgs = race_warnings(device, "after", initial_value=initial_value, waits=waits,
                                         value_set=value_set, releases=releases)
            assert msgs == []
            np.testing.assert_array_equal(call(design), VALUE)
            design.close()
