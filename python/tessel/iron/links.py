"""split / join / forward: an ObjectFifoLink through a staging core.

A link's staging core (a Tensix core no worker uses, or the Tile given) holds
one pool whose object is the whole object, cut into segments, each with its
own lock pair. A split fills every segment at once and empties each through
its own output fifo; a join fills each segment from its own input fifo and
empties the whole object at once; a forward is a split into one. The copies
are the staging core's mover's; no worker takes part."""

import numpy as np

from .dataflow import ObjectFifo, stream_dims
from .errors import IronRuntimeError
from .placement import AnyComputeTile, AnyMemTile, Tile
from .types import array_type, element_count


class Link:
    def __init__(self, kind, source_handle, fifos, offsets, tile):
        self.kind = kind  # "split" or "join"
        self.source_handle = source_handle  # split: the cons handle split; join: the prod handle joined
        self.fifos = fifos
        self.offsets = offsets  # elements, per fifo
        self.tile = tile
        self.name = f"{kind} of {source_handle.fifo.name}"
        self.pool = None  # set when resolved

    @property
    def big(self):
        return self.source_handle.fifo


def _new_fifos(handle, offsets, obj_types, names, depths, verb):
    f = handle.fifo
    n = len(offsets)
    if n < 1:
        raise ValueError(f"{handle.name}.{verb}(): give at least one offset")
    obj_types = list(obj_types) if obj_types is not None else [f.obj_type] * n
    if len(obj_types) != n:
        raise ValueError(f"{handle.name}.{verb}(): {n} offsets but {len(obj_types)} obj_types")
    names = list(names) if names is not None else [f"{f.name}_{verb}{i}" for i in range(n)]
    depths = list(depths) if depths is not None else [f.depth] * n
    out, end = [], []
    for i, (off, t) in enumerate(zip(offsets, obj_types)):
        shape, dtype = array_type(t, f"{handle.name}.{verb}() obj_types[{i}]")
        if dtype != f.dtype:
            raise TypeError(f"{handle.name}.{verb}(): part {i} holds {dtype}, {f.name} holds {f.dtype}")
        count = element_count(shape)
        if not isinstance(off, int) or isinstance(off, bool) or off < 0 or off + count > f.count:
            raise ValueError(f"{handle.name}.{verb}(): part {i} ({count} elements at offset {off!r}) is outside "
                             f"the {f.count}-element object of {f.name}")
        out.append(ObjectFifo(t, depth=depths[i], name=names[i]))
        end.append((off, off + count))
    covered = sorted(end)
    if sum(b - a for a, b in covered) != f.count or any(covered[i][1] > covered[i + 1][0]
                                                         for i in range(len(covered) - 1)):
        raise ValueError(f"{handle.name}.{verb}(): the parts must tile the {f.count}-element object of {f.name} "
                         f"exactly, without overlap; they cover {covered}")
    return out


def _tile(tile, what):
    """The staging core: a Tile, or the placer's choice (AnyMemTile; a link
    IRON places on AnyComputeTile stages on a free core all the same)."""
    if tile is AnyComputeTile:
        return AnyMemTile
    if tile is not AnyMemTile and not isinstance(tile, Tile):
        raise TypeError(f"{what}: tile must be a Tile, AnyMemTile or AnyComputeTile, got {tile!r}")
    return tile


def split(handle, offsets, tile=AnyMemTile, depths=None, obj_types=None, names=None, dims_to_stream=None,
          placement=None, **unsupported):
    tile = _placement(tile, placement, unsupported)
    if unsupported:
        raise NotImplementedError(f"split(): {', '.join(sorted(unsupported))} not supported yet")
    if handle.producer:
        raise IronRuntimeError(f"{handle.name}.split(): only consumer handles can be split")
    if dims_to_stream is not None and len(dims_to_stream) != len(offsets):
        raise ValueError(f"{handle.name}.split(): {len(offsets)} offsets but {len(dims_to_stream)} dims_to_stream")
    offsets = _offsets(offsets)
    fifos = _new_fifos(handle, offsets, obj_types, names, depths, "split")
    for f, dims in zip(fifos, dims_to_stream or []):
        f.dims_to_stream = stream_dims(dims, f"{f.name} dims_to_stream")
    _claim(handle)
    link = Link("split", handle, fifos, list(offsets), _tile(tile, f"{handle.name}.split()"))
    handle.endpoint = link
    for f in fifos:
        f.prod().endpoint = link
    return fifos


def join(handle, offsets, tile=AnyMemTile, depths=None, obj_types=None, names=None, placement=None, **unsupported):
    tile = _placement(tile, placement, unsupported)
    if unsupported:
        raise NotImplementedError(f"join(): {', '.join(sorted(unsupported))} not supported yet")
    if not handle.producer:
        raise IronRuntimeError(f"{handle.name}.join(): only producer handles can be joined")
    _claim(handle)
    offsets = _offsets(offsets)
    fifos = _new_fifos(handle, offsets, obj_types, names, depths, "join")
    link = Link("join", handle, fifos, list(offsets), _tile(tile, f"{handle.name}.join()"))
    handle.endpoint = link
    for f in fifos:  # the link consumes every part
        f.cons().endpoint = link
    return fifos


def forward(handle, tile=AnyMemTile, obj_type=None, depth=None, name=None, dims_to_stream=None,
            dims_from_stream=None, placement=None, plio=False):
    """The objects of `handle`'s fifo through a staging core, into a new fifo
    (read from the staging pool in dims_to_stream's order, if given). An
    obj_type of another size re-chunks: the stream of elements is cut into
    the new fifo's objects (24-element objects in, 8-element ones out, or
    the other way). dims_from_stream is the new fifo's consumers' transform:
    element k of an object lands at the pattern's k-th position."""
    if plio:
        raise NotImplementedError(f"{handle.name}.forward(plio=True): PLIO (the programmable-logic stream "
                                  "interface) is not modelled")
    out = _forward(handle, placement if placement is not None else tile, obj_type, depth, name, dims_to_stream)
    if dims_from_stream is not None:
        out.dims_from_stream = stream_dims(dims_from_stream, f"{out.name} dims_from_stream")
    return out


def _forward(handle, tile, obj_type, depth, name, dims_to_stream):
    f = handle.fifo
    dims = None if dims_to_stream is None else [dims_to_stream]
    if obj_type is None or element_count(array_type(obj_type, f"{handle.name}.forward() obj_type")[0]) == f.count:
        return split(handle, [0], tile=tile, depths=[depth or f.depth], obj_types=[obj_type or f.obj_type],
                     names=[name or f"{f.name}_fwd"], dims_to_stream=dims)[0]
    shape, dtype = array_type(obj_type, f"{handle.name}.forward() obj_type")
    if dtype != f.dtype:
        raise TypeError(f"{handle.name}.forward(): obj_type holds {dtype}, {f.name} holds {f.dtype}")
    if handle.producer:
        raise IronRuntimeError(f"{handle.name}.forward(): only consumer handles can be forwarded")
    out = ObjectFifo(obj_type, depth=depth or f.depth, name=name or f"{f.name}_fwd",
                     dims_to_stream=dims_to_stream)
    _claim(handle)
    link = Link("split", handle, [out], [0], _tile(tile, f"{handle.name}.forward()"))
    link.rechunk = True
    handle.endpoint = link
    out.prod().endpoint = link
    return out


def _offsets(offsets):
    """Element offsets as Python ints (designs compute them with numpy)."""
    return [int(o) if isinstance(o, np.integer) else o for o in offsets]


def _placement(tile, placement, unsupported):
    """IRON names the staging tile `placement` (tessel also takes `tile`)."""
    if unsupported.pop("plio", False):
        raise NotImplementedError("PLIO (the programmable-logic stream interface) is not modelled")
    return placement if placement is not None else tile


def _claim(handle):
    if handle.endpoint is not None:
        raise IronRuntimeError(f"{handle.name} already belongs to {getattr(handle.endpoint, 'name', 'the Runtime')}")
