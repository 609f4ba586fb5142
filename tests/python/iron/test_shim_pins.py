"""Shim pins: prod(tile=...) / cons(tile=...) put a fifo's host end on that
shim tile or fail naming the tile, the handle and why; Tile and the Any*
placeholders import from tessel.iron.device as in IRON."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, Worker

from .common import add_kernel, per_object

N = 256
vec = np.ndarray[(N,), np.dtype[np.int32]]


def workers_and_fifos(count):
    """count independent in -> add k -> out pipelines."""
    ins = [ObjectFifo(vec, name=f"in{i}") for i in range(count)]
    outs = [ObjectFifo(vec, name=f"out{i}") for i in range(count)]
    ws = [Worker(per_object(i + 1, N), [ins[i].cons(), outs[i].prod(), add_kernel(N)]) for i in range(count)]
    return ins, outs, ws


def sequence_of(count):
    def seq(*args):
        bufs, handles = args[:2 * count], args[2 * count:]
        for i in range(count):
            handles[i].fill(bufs[i])
        for i in range(count):
            handles[count + i].drain(bufs[count + i], wait=True)

    return seq


def build(device, count, in_tiles):
    ins, outs, ws = workers_and_fifos(count)
    rt = Runtime(sequence_of(count), [vec] * (2 * count) + [f.prod(tile=t) for f, t in zip(ins, in_tiles)] +
                 [f.cons() for f in outs])
    return Program(device, rt, ws).resolve_program()


def test_tile_and_the_any_placeholders_import_from_tessel_iron_device():
    from tessel.iron.device import AnyComputeTile, AnyMemTile, AnyShimTile, Tile

    assert Tile is iron.Tile and AnyShimTile is iron.AnyShimTile
    assert AnyMemTile is iron.AnyMemTile and AnyComputeTile is iron.AnyComputeTile
    assert repr(Tile(1, 0)) == "Tile(1, 0)"


def test_a_pin_outside_the_device_names_the_tile_and_the_handle(device):
    from tessel.iron.device import Tile

    with pytest.raises(iron.IronRuntimeError) as e:
        build(device, 1, [Tile(999, 0)])
    assert str(e.value) == ("in0.prod() is pinned to Tile(999, 0), which is outside the device: its shim tiles are "
                            "Tile(0, 0) to Tile(3, 0)")


def test_a_pin_to_a_tile_that_is_not_a_shim_tile_is_refused():
    from tessel.iron.device import Tile

    with pytest.raises(iron.IronRuntimeError) as e:
        ObjectFifo(vec, name="f").prod(tile=Tile(0, 2))
    assert str(e.value) == ("f.prod() is pinned to Tile(0, 2), which is not a shim tile: a fifo's host end sits on "
                            "a shim tile, Tile(col, 0)")
    with pytest.raises(iron.IronRuntimeError) as e:
        ObjectFifo(vec, name="g").cons(tile=Tile(1, 1))
    assert "g.cons() is pinned to Tile(1, 1), which is not a shim tile" in str(e.value)
    with pytest.raises(TypeError) as e:
        ObjectFifo(vec, name="h").prod(tile=iron.AnyMemTile)
    assert str(e.value) == "h.prod(tile=...) takes a shim Tile(col, 0) or AnyShimTile, got AnyMemTile"


def test_a_third_transfer_pinned_to_a_shim_tile_with_two_channels_is_an_error(device):
    from tessel.iron.device import Tile

    with pytest.raises(iron.IronRuntimeError) as e:
        build(device, 3, [Tile(1, 0)] * 3)
    assert str(e.value) == ("in2.prod() is pinned to Tile(1, 0), whose 2 fill (MM2S) channels are all taken (by "
                            "in0.prod(), in1.prod()): pin it to another shim tile, or leave it unpinned")


def test_pins_that_fit_are_honoured_and_unpinned_ends_move_right(device):
    from tessel.iron.device import AnyShimTile, Tile

    design = build(device, 4, [Tile(3, 0), AnyShimTile, None, None])
    names = [ch[0] for ch in design.spec["channels"]]
    fills = [n for n in names if " fill " in n]
    # The workers sit in column 0: the unpinned ends take its two fill
    # channels, and the third moves right to column 1.
    assert fills == ["in0 fill (shim (3,0) MM2S 0)", "in1 fill (shim (0,0) MM2S 0)", "in2 fill (shim (0,0) MM2S 1)",
                     "in3 fill (shim (1,0) MM2S 0)"]
    bufs = [np.arange(N, dtype=np.int32) * (i + 1) for i in range(4)] + [np.zeros(N, np.int32) for _ in range(4)]
    design(*bufs)
    for i in range(4):
        np.testing.assert_array_equal(bufs[4 + i], bufs[i] + i + 1)
    design.close()


def test_a_pin_on_a_handle_that_is_no_host_end_or_pinned_twice_is_an_error(device):
    from tessel.iron.device import Tile

    f = ObjectFifo(vec, name="f")
    f.prod(tile=Tile(1, 0))
    with pytest.raises(iron.IronRuntimeError) as e:
        f.prod(tile=Tile(2, 0))
    assert str(e.value) == ("f.prod() is pinned to Tile(1, 0) already, and now to Tile(2, 0): a host end sits on one "
                            "shim tile")

    ins, outs = [ObjectFifo(vec, name="in0")], [ObjectFifo(vec, name="out0")]
    # The worker's consumer handle is pinned: it is no host end.
    ws = [Worker(per_object(1, N), [ins[0].cons(tile=Tile(1, 0)), outs[0].prod(), add_kernel(N)], name="w")]
    rt = Runtime(sequence_of(1), [vec, vec, ins[0].prod(), outs[0].cons()])
    with pytest.raises(iron.IronRuntimeError) as e:
        Program(device, rt, ws).resolve_program()
    assert str(e.value) == ("in0.cons() is pinned to Tile(1, 0), but it is given to worker 'w': only a host end (a "
                            "handle given to the Runtime) sits on a shim tile")
