"""What IRON's older designs do that the newer API forbids or spells
otherwise: mixing the default task group with explicit ones in an older
`with rt.sequence` block, host tensors of another element type of the same
width as the fifo's (the DMA moves bytes), several links on one mem tile,
GlobalBuffer, and a consumer handle's own dims_from_stream."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import IronRuntimeError, ObjectFifo, Program, Runtime, Tile


def ty(n, dtype=np.int32):
    return np.ndarray[(n,), np.dtype[dtype]]



def test_the_older_block_mixes_the_default_and_explicit_task_groups(device):
    a, b = ObjectFifo(ty(16), name="a"), ObjectFifo(ty(16), name="b")
    a2, b2 = a.cons().forward(name="a2"), b.cons().forward(name="b2")
    rt = Runtime()
    with rt.sequence(ty(64), ty(64), ty(64), ty(64)) as (A, B, C, D):
        tg = rt.task_group()
        rt.fill(a.prod(), A)  # the default group
        rt.fill(b.prod(), B, task_group=tg)
        rt.drain(a2.cons(), C, wait=True, task_group=tg)
        rt.drain(b2.cons(), D, wait=True, task_group=tg)
        rt.finish_task_group(tg)
    with pytest.warns(iron.RaceWarning, match="the a fill is not awaited"):  # alone in the default group
        design = Program(device, rt).resolve_program()
    x, y = np.arange(64, dtype=np.int32), np.arange(64, dtype=np.int32) * 2
    c, d = np.zeros_like(x), np.zeros_like(x)
    design(x, y, c, d)
    np.testing.assert_array_equal(c, x)
    np.testing.assert_array_equal(d, y)


def test_the_newer_api_still_refuses_the_mix_by_default(device):
    a = ObjectFifo(ty(16), name="a")
    a2 = a.cons().forward(name="a2")

    def seq(A, C, a_h, c_h):
        tg = iron.TaskGroup()
        a_h.fill(A)
        c_h.drain(C, wait=True, group=tg)
        tg.finish()

    with pytest.raises(IronRuntimeError, match="uses both the default task group and explicit TaskGroups"):
        Program(device, Runtime(seq, [ty(64), ty(64), a.prod(), a2.cons()])).resolve_program()


def test_a_host_tensor_of_another_type_of_the_same_width_moves_its_bytes(device):
    """IRON's vision designs: int8 host tensors through uint8 lines."""
    of = ObjectFifo(ty(256, np.uint8), name="in")
    out = of.cons().forward(name="out")
    rt = Runtime()
    with rt.sequence(ty(1024, np.int8), ty(1024, np.int8)) as (i, o):
        rt.fill(of.prod(), i)
        rt.drain(out.cons(), o, wait=True)
    design = Program(device, rt).resolve_program()
    x = (np.arange(1024) % 256 - 128).astype(np.int8)
    y = np.zeros_like(x)
    design(x, y)
    np.testing.assert_array_equal(y, x)


def test_several_links_share_one_mem_tile_and_global_buffer_is_buffer(device):
    assert iron.GlobalBuffer is iron.Buffer
    a, b = ObjectFifo(ty(16), name="a"), ObjectFifo(ty(16), name="b")
    a2 = a.cons().forward(name="a2", placement=Tile(1, 1))
    b2 = b.cons().forward(name="b2", placement=Tile(1, 1))
    rt = Runtime()
    with rt.sequence(ty(32), ty(32), ty(32), ty(32)) as (A, B, C, D):
        rt.fill(a.prod(), A)
        rt.fill(b.prod(), B)
        rt.drain(a2.cons(), C, wait=True)
        rt.drain(b2.cons(), D, wait=True)
    design = Program(device, rt).resolve_program()
    x, y = np.arange(32, dtype=np.int32), -np.arange(32, dtype=np.int32)
    c, d = np.zeros_like(x), np.zeros_like(x)
    design(x, y, c, d)
    np.testing.assert_array_equal(c, x)
    np.testing.assert_array_equal(d, y)
