"""Designs give the same results under every scheduling policy: a design's
fifos are bounded channels between agents that only wait on locks, so
neither results nor deadlocks depend on the interleaving."""

import numpy as np
import pytest

import tessel
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, Worker

from .common import add_kernel, per_object

N, LINE = 2048, 256
vec = np.ndarray[(N,), np.dtype[np.int32]]
line = np.ndarray[(LINE,), np.dtype[np.int32]]
part = np.ndarray[(LINE // 2,), np.dtype[np.int32]]

def build(device):
    """A broadcast to a split branch and a plain branch, in two task groups."""
    a, b, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="b"), ObjectFifo(line, name="c")
    halves = a.cons().split([0, LINE // 2], obj_types=[part, part])
    joined = b.prod().join([0, LINE // 2], obj_types=[part, part])
    w = [Worker(per_object(10 * (i + 1), LINE // 2), [halves[i].cons(), joined[i].prod(), add_kernel(LINE // 2)])
         for i in range(2)]
    w.append(Worker(per_object(-1, LINE), [a.cons(depth=3), c.prod(), add_kernel(LINE)]))

    def seq(x, y, z, a_h, b_h, c_h):
        for g in range(2):
            tg = TaskGroup()
            half = N // 2
            a_h.fill(x, offset=g * half, sizes=[half], strides=[1], group=tg)
            b_h.drain(y, offset=g * half, sizes=[half], strides=[1], group=tg, wait=True)
            c_h.drain(z, offset=g * half, sizes=[half], strides=[1], group=tg, wait=True)
            tg.finish()

    return Program(device, Runtime(seq, [vec, vec, vec, a.prod(), b.cons(), c.cons()]), w).resolve_program()


@pytest.mark.parametrize("policy", ["deterministic", "random:1", "random:2", "random:3", "parallel:2", "parallel:3"])
def test_a_broadcast_split_join_design_under_every_policy(policy):
    with tessel.Device.open(grid=(4, 4), policy=policy) as device:
        design = build(device)
        x = np.arange(N, dtype=np.int32)
        for _ in range(2):
            y, z = np.zeros(N, np.int32), np.zeros(N, np.int32)
            design(x, y, z)
            np.testing.assert_array_equal(y, x + np.where(np.arange(N) % LINE < LINE // 2, 10, 20))
            np.testing.assert_array_equal(z, x - 1)
        design.close()
