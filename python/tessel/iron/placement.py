"""Placement: Tile(col, row), the Any* markers, and the sequential placer.

A Worker's Tile(col, row) is the Tensix core at logical (col, row). The host
end of a fifo sits on a shim tile, Tile(col, 0) given to prod(tile=...) or
cons(tile=...): shim column col, with 2 fill (MM2S) and 2 drain (S2MM) DMA
channels and 16 descriptors per shim tile. A pinned shim end is a pin: a
tile outside the device, not in row 0, or whose channels of that direction
are taken is an error naming the tile and the handle. Pinned ends are placed
before unpinned ones, whatever their order.
"""

import inspect

from .errors import IronRuntimeError


class Tile:
    def __init__(self, col, row):
        for name, v in (("col", col), ("row", row)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise TypeError(f"Tile: {name} must be an integer >= 0, got {v!r}")
        self.col, self.row = col, row

    def __eq__(self, other):
        return isinstance(other, Tile) and (self.col, self.row) == (other.col, other.row)

    def __hash__(self):
        return hash((self.col, self.row))

    def __repr__(self):
        return f"Tile({self.col}, {self.row})"


class _AnyTile:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


AnyComputeTile = _AnyTile("AnyComputeTile")
AnyMemTile = _AnyTile("AnyMemTile")
AnyShimTile = _AnyTile("AnyShimTile")

SHIM_FILL_CHANNELS = 2
SHIM_DRAIN_CHANNELS = 2


class SequentialPlacer:
    """Places unplaced workers on free cores in row-major order
    (cores_per_col: rows used per column, default all), then puts each host
    end on the shim column of its core, moving right when that column's
    channels are taken. Like IRON's, it checks channel counts only."""

    def __init__(self, cores_per_col=None):
        self.cores_per_col = cores_per_col

    def place_workers(self, workers, grid):
        gx, gy = grid
        rows = gy if self.cores_per_col is None else min(gy, self.cores_per_col)
        taken = {w.tile for w in workers if isinstance(w.tile, Tile)}
        for t in taken:
            if t.col >= gx or t.row >= gy:
                raise ValueError(f"Tile({t.col}, {t.row}) is outside the {gx} x {gy} grid")
        free = [Tile(x, y) for x in range(gx) for y in range(rows) if Tile(x, y) not in taken]
        for w in workers:
            if not isinstance(w.tile, Tile):
                if not free:
                    raise ValueError(f"no free core left for worker '{w.name}' on the {gx} x {gy} grid")
                w.tile = free.pop(0)

    def place_shim(self, column, kind, used, grid_x, handle=None, pinned=None):
        """The (column, channel) of a host end near `column`, moving right
        when that column's channels are taken; a `pinned` Tile is that
        column or an IronRuntimeError naming it and the handle. `used` maps
        (column, kind) to the names of the handles on its channels."""
        limit = SHIM_FILL_CHANNELS if kind == "fill" else SHIM_DRAIN_CHANNELS
        if pinned is not None:
            check_shim_pin(pinned, handle, grid_x)
            taken = used.setdefault((pinned.col, kind), [])
            if len(taken) >= limit:
                raise IronRuntimeError(
                    f"{handle} is pinned to {pinned!r}, whose {limit} {_DIRECTION[kind]} channels are all taken "
                    f"(by {', '.join(taken)}): pin it to another shim tile, or leave it unpinned")
            taken.append(str(handle))
            return pinned.col, len(taken) - 1
        for col in list(range(column, grid_x)) + list(range(0, column)):
            taken = used.setdefault((col, kind), [])
            if len(taken) < limit:
                taken.append(str(handle))
                return col, len(taken) - 1
        raise IronRuntimeError(f"{handle}: every shim tile's {limit} {_DIRECTION[kind]} channels are taken")


_DIRECTION = {"fill": "fill (MM2S)", "drain": "drain (S2MM)"}


def place_host_ends(placer, ends, grid_x):
    """The (column, channel) of each host end, `ends` being (home column,
    "fill" or "drain", handle name, pinned Tile or None) in fifo order. The
    pinned ends are placed first, so an unpinned end declared earlier never
    takes a channel a pin needs; the unpinned ones follow in their order
    (the placement of a design without pins is the fifo order's)."""
    place = _place_shim_of(placer)
    used = {}
    out = [None] * len(ends)
    for pinned_pass in (True, False):
        for i, (home, kind, handle, pinned) in enumerate(ends):
            if (pinned is not None) == pinned_pass:
                out[i] = place(home, kind, used, grid_x, handle, pinned)
    return out


def _place_shim_of(placer):
    """placer.place_shim, called as place_shim(column, kind, used, grid_x,
    handle, pinned). A place_shim written before pins existed takes
    (column, kind, used, grid_x): it still places unpinned ends, and a pin
    it cannot be told about is an error naming the signature it needs."""
    method = placer.place_shim

    def old_style(column, kind, used, grid_x, handle, pinned):
        if pinned is not None:
            raise IronRuntimeError(
                f"{handle} is pinned to {pinned!r}, but the placer's {type(placer).__name__}.place_shim(column, kind, "
                "used, grid_x) takes no pin: give it the parameters handle=None, pinned=None (place_shim(self, "
                "column, kind, used, grid_x, handle=None, pinned=None), as SequentialPlacer's), or leave the handle "
                "unpinned")
        return method(column, kind, used, grid_x)

    try:
        inspect.signature(method).bind(0, "fill", {}, 1, None, None)
    except TypeError:
        return old_style
    except ValueError:  # no signature to read (a builtin): called the new way
        pass
    return method


def check_shim_pin(tile, handle, grid_x=None):
    """A Tile a handle's host end is pinned to must be a shim tile (row 0)
    of the device (column 0 to grid_x - 1, when known)."""
    if tile.row != 0:
        raise IronRuntimeError(f"{handle} is pinned to {tile!r}, which is not a shim tile: a fifo's host end sits "
                               "on a shim tile, Tile(col, 0)")
    if grid_x is not None and tile.col >= grid_x:
        raise IronRuntimeError(f"{handle} is pinned to {tile!r}, which is outside the device: its shim tiles are "
                               f"Tile(0, 0) to Tile({grid_x - 1}, 0)")
