"""Shim pins: prod(tile=...) / cons(tile=...) put a fifo's host end on that
shim tile or fail naming the tile, the handle and why; Tile and the Any*
placeholders import from tessel.iron.device as in IRON."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, SequentialPlacer, Worker

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


def build(device, count, in_tiles, out_tiles=None, placer=None):
    ins, outs, ws = workers_and_fifos(count)
    out_tiles = out_tiles or [None] * count
    rt = Runtime(sequence_of(count), [vec] * (2 * count) + [f.prod(tile=t) for f, t in zip(ins, in_tiles)] +
                 [f.cons(tile=t) for f, t in zip(outs, out_tiles)])
    return Program(device, rt, ws).resolve_program(placer)


def run_and_check(design, count):
    """Each pipeline i adds i + 1 to its buffer."""
    bufs = [np.arange(N, dtype=np.int32) * (i + 1) for i in range(count)] + [np.zeros(N, np.int32)
                                                                            for _ in range(count)]
    design(*bufs)
    for i in range(count):
        np.testing.assert_array_equal(bufs[count + i], bufs[i] + i + 1)


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
    run_and_check(design, 4)
    design.close()


def test_pins_are_placed_before_unpinned_ends_declared_earlier(device):
    from tessel.iron.device import Tile

    # The workers sit in column 0, every end's home column. in2 is pinned
    # to Tile(0, 0) after the unpinned in0 and in1, and out2 after the
    # unpinned out1: the pinned ends take the column's channels first and
    # the unpinned ones fill what is left, moving right.
    design = build(device, 3, [None, None, Tile(0, 0)], [Tile(0, 0), None, Tile(0, 0)])
    names = [ch[0] for ch in design.spec["channels"]]
    assert names == ["in0 fill (shim (0,0) MM2S 1)", "in1 fill (shim (1,0) MM2S 0)", "in2 fill (shim (0,0) MM2S 0)",
                     "out0 drain (shim (0,0) S2MM 0)", "out1 drain (shim (1,0) S2MM 0)",
                     "out2 drain (shim (0,0) S2MM 1)"]
    run_and_check(design, 3)
    design.close()


def test_a_design_without_pins_is_placed_in_declaration_order(device):
    design = build(device, 3, [None] * 3)
    names = [ch[0] for ch in design.spec["channels"]]
    assert names == ["in0 fill (shim (0,0) MM2S 0)", "in1 fill (shim (0,0) MM2S 1)", "in2 fill (shim (1,0) MM2S 0)",
                     "out0 drain (shim (0,0) S2MM 0)", "out1 drain (shim (0,0) S2MM 1)",
                     "out2 drain (shim (1,0) S2MM 0)"]
    run_and_check(design, 3)
    design.close()


class FourArgumentPlacer(SequentialPlacer):
    """A placer written for place_shim(column, kind, used, grid_x), where
    `used` counts the channels taken per (column, kind), which puts every
    host end it is asked about one column further right."""

    def __init__(self):
        super().__init__()
        self.asked = []

    def place_shim(self, column, kind, used, grid_x):
        self.asked.append((column, kind))
        col = (column + 1) % grid_x
        channel = used.get((col, kind), 0)
        used[(col, kind)] = channel + 1
        return col, channel


def test_a_placer_with_the_four_argument_place_shim_still_places_unpinned_ends(device):
    placer = FourArgumentPlacer()
    design = build(device, 2, [None, None], placer=placer)
    assert placer.asked == [(0, "fill"), (0, "fill"), (0, "drain"), (0, "drain")]
    names = [ch[0] for ch in design.spec["channels"]]
    assert names == ["in0 fill (shim (1,0) MM2S 0)", "in1 fill (shim (1,0) MM2S 1)",
                     "out0 drain (shim (1,0) S2MM 0)", "out1 drain (shim (1,0) S2MM 1)"]
    run_and_check(design, 2)
    design.close()


def test_a_pin_with_a_placer_that_cannot_take_it_names_the_new_signature(device):
    from tessel.iron.device import Tile

    with pytest.raises(iron.IronRuntimeError) as e:
        build(device, 2, [None, Tile(2, 0)], placer=FourArgumentPlacer())
    assert str(e.value) == (
        "in1.prod() is pinned to Tile(2, 0), but the placer's FourArgumentPlacer.place_shim(column, kind, used, "
        "grid_x) takes no pin: give it the parameters handle=None, pinned=None (place_shim(self, column, kind, used, "
        "grid_x, handle=None, pinned=None), as SequentialPlacer's), or leave the handle unpinned")


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
