"""forward(obj_type=...) of another size: the staging core cuts the stream
of elements into the new fifo's objects, as IRON's vector_scalar_add (64 in,
32 to the worker, 64 out) and ext_to_core_L2 (24 to 8 and back) designs do."""

import numpy as np
import pytest

from tessel.iron import ObjectFifo, Program, Runtime, Worker
from tessel.iron.controlflow import range_

from .common import fill_drain


def ty(n):
    return np.ndarray[(n,), np.dtype[np.int32]]


def add_one(n):
    def core_body(of_in, of_out):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        for i in range_(n):
            y[i] = x[i] + 1
        of_in.release(1)
        of_out.release(1)

    return core_body


@pytest.mark.parametrize("outer, inner", [(64, 32), (24, 8), (8, 24), (24, 16)])
def test_a_forward_to_another_size_cuts_the_stream_anew(device, outer, inner):
    """(24, 16): neither size divides the other; the worker sees 16-element
    objects made of one and a half, then half and one, 24-element ones."""
    total = 48 * 4
    of_in0 = ObjectFifo(ty(outer), name="in")
    of_in1 = of_in0.cons().forward(obj_type=ty(inner))
    of_out0 = ObjectFifo(ty(inner), name="out")
    of_out1 = of_out0.cons().forward(obj_type=ty(outer))
    rt = Runtime(fill_drain, [ty(total), ty(total), of_in0.prod(), of_out1.cons()])
    worker = Worker(add_one(inner), [of_in1.cons(), of_out0.prod()])
    design = Program(device, rt, workers=[worker]).resolve_program()
    a = np.arange(total, dtype=np.int32) * 3
    b = np.zeros_like(a)
    design(a, b)
    np.testing.assert_array_equal(b, a + 1)
    design(a[::-1].copy(), b)  # the next call starts where this one left the cuts
    np.testing.assert_array_equal(b, a[::-1] + 1)


def test_a_forward_to_another_element_type_is_an_error():
    f = ObjectFifo(ty(16))
    with pytest.raises(TypeError, match="obj_type holds int16, of.* holds int32"):
        f.cons().forward(obj_type=np.ndarray[(8,), np.dtype[np.int16]])


def test_forward_takes_its_placement_positionally_or_by_name(device):
    from tessel.iron import AnyComputeTile, AnyMemTile, Tile

    f = ObjectFifo(ty(16), name="a")
    g = f.cons().forward(AnyComputeTile)  # IRON's dma_transpose
    h = ObjectFifo(ty(16), name="b")
    k = h.cons().forward(placement=Tile(3, 3), name="b_fwd")
    assert [lk.tile for lk in (g._prod.endpoint, k._prod.endpoint)] == [AnyMemTile, Tile(3, 3)]


def test_consumer_handles_the_runtime_gets_again_and_again_are_one_host_end(device):
    """IRON's getting_started matmul calls fifo.cons() at every drain; the Runtime merges them."""
    f = ObjectFifo(ty(16), name="a")
    g = f.cons().forward(name="g")

    def seq(a, c, in_h, out_1, out_2):
        in_h.fill(a)
        out_1.drain(c, offset=0, sizes=[1, 1, 1, 32], strides=[0, 0, 0, 1], wait=True)
        out_2.drain(c, offset=32, sizes=[1, 1, 1, 32], strides=[0, 0, 0, 1], wait=True)

    rt = Runtime(seq, [ty(64), ty(64), f.prod(), g.cons(), g.cons()])
    design = Program(device, rt).resolve_program()
    a = np.arange(64, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, a)


def test_handles_a_body_creates_itself_are_the_runtimes(device):
    """IRON's programming guide: Runtime(body, [types]) and `of_in.prod().fill(a)` in the body."""
    of_in = ObjectFifo(ty(24), name="in")
    of_out = ObjectFifo(ty(24), name="out")
    worker = Worker(add_one(24), [of_in.cons(), of_out.prod()])

    def sequence(a, c):
        of_in.prod().fill(a)
        of_out.cons().drain(c, wait=True)

    design = Program(device, Runtime(sequence, [ty(48), ty(48)]), workers=[worker]).resolve_program()
    a = np.arange(48, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, c)
    np.testing.assert_array_equal(c, a + 1)
