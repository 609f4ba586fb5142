"""Tensors of the persistent-dispatch API (the spec's Tensors section): a
program's inputs and outputs on the card, over tessel.Buffer.

Layouts (what a kernel's TensorAccessor over the tensor sees):

- layout="row": a page per row (the last dimension), pages interleaved over
  the DRAM banks: page p in bank p % banks. page_bytes = last dim x element size.
- layout="tile": a page per 32 x 32 tile of four 16 x 16 faces (formats.tilize),
  the last two dimensions zero-padded to multiples of 32, tiles row-major over
  them (leading dimensions outermost), interleaved over the DRAM banks.
  page_bytes is one tile of the dtype (2048 B for bfloat16, 1088 B for bfloat8_b).
- shard_grid=(x, y): 2-D data [cores, words], one row in the L1 of each of the
  x * y cores (0, 0) .. (x - 1, y - 1), in row-major core order, at one address
  (a height-sharded L1 buffer, one page per core).

`shape` is the shape on the card (padded for "tile"); read() returns the whole
tensor in that shape (bfloat16 and the block formats as float32, integers as
their numpy type), in row-major element order. Tensor.write/read/read_bytes
first ask the session's `busy` callable: while a persistent run is loaded the
card's cores never return, so these would wait forever; they raise
DispatchError instead and name the reads that work then (session.read ...,
the module-level functions below), which read DRAM pages without waiting.

Partial reads: the tessel Python API reads a buffer whole (Buffer.read), so a
page range or a chunk is sliced from a whole read (read_chunks reads once for
all its chunks).
"""

from collections.abc import Callable, Iterator
from math import prod

import numpy as np
from numpy.typing import ArrayLike

from .. import _check
from ..device import Buffer, BufferType, Device, ShardSpec, TensorAccessorArgs
from . import formats
from .errors import DispatchError
from .formats import TILE

__all__ = ["Tensor", "LAYOUTS", "create", "read_pages", "read_bf16", "read_range", "read_chunks", "read_tiles_bf16"]

LAYOUTS = ("row", "tile")
_READ_HINT = ("the cores of a loaded run return only at its stop, so this would wait forever: use session.read(...) "
              "while a run is loaded, or read after run.stop()")
_WRITE_HINT = ("the cores of a loaded run return only at its stop, so this would wait forever: write before "
               "session.load(...) or after run.stop()")


class Tensor:
    """A tensor on the card: `address` (the same in every DRAM bank, or in every
    core's L1), `shape` (on the card, padded), `dtype`, `layout`, `page_bytes`,
    `aligned_page_bytes`, `pages`, `shard_grid`; its tessel.Buffer is `buffer`.
    Made by create() (session.tensor / session.empty); freed by free() or when
    the last reference goes."""

    __slots__ = ("_buffer", "_address", "_shape", "_dtype", "_layout", "_shard_grid", "_busy", "_freed")

    def __init__(self, *args, **kwargs):
        raise TypeError("use session.tensor(...) or session.empty(...) (tessel.dispatch.tensor.create) to make a "
                        "Tensor")

    @classmethod
    def _make(cls, buffer, shape, dtype, layout, shard_grid, busy):
        self = object.__new__(cls)
        self._buffer, self._address = buffer, buffer.address
        self._shape, self._dtype, self._layout, self._shard_grid = shape, dtype, layout, shard_grid
        self._busy, self._freed = busy, False
        return self

    address = property(lambda self: self._address)
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    layout = property(lambda self: self._layout)
    shard_grid = property(lambda self: self._shard_grid)
    page_bytes = property(lambda self: self._buffer.page_size)
    aligned_page_bytes = property(lambda self: self._buffer.aligned_page_size)
    pages = property(lambda self: self._buffer.num_pages)
    buffer = property(lambda self: self._buffer)
    device = property(lambda self: self._buffer.device)
    freed = property(lambda self: self._freed)

    def accessor_args(self) -> list[int]:
        """The compile-time args of a TensorAccessor over this tensor (for
        Program(compile_args=...)): 2 words interleaved, 4 + 2 * rank + banks sharded."""
        self._alive("Tensor.accessor_args")
        return TensorAccessorArgs(self._buffer).get_compile_time_args()

    def write(self, data: ArrayLike) -> None:
        """Write `data` (anything np.asarray takes, of this tensor's shape; for a
        tile tensor also a shape that pads to it) as dtype."""
        self._ready("Tensor.write", _WRITE_HINT)
        a = formats._asarray(data, "Tensor.write: data")
        _check_data_shape(a.shape, self._shape, self._layout, "Tensor.write")
        self._buffer.write(_encode(a, self._dtype, self._layout, "Tensor.write"))

    def read(self) -> np.ndarray:
        """The whole tensor as a numpy array of its (padded) shape: bfloat16 and
        block formats as float32, integers as their numpy type."""
        self._ready("Tensor.read", _READ_HINT)
        return _decode(self, self._buffer.read())

    def read_bytes(self) -> np.ndarray:
        """The tensor's bytes as the card holds them: its pages in order, page_bytes each (uint8, 1-D)."""
        self._ready("Tensor.read_bytes", _READ_HINT)
        return self._buffer.read()

    def free(self) -> None:
        """Free the tensor's memory now (a second free does nothing)."""
        if not self._freed:
            self._buffer.deallocate()
            self._freed = True

    def _alive(self, what):
        if self._freed:
            raise DispatchError(f"{what}: the tensor was freed (Tensor.free)")

    def _ready(self, what, hint):
        self._alive(what)
        _check_idle(self._busy, what, hint)

    def __repr__(self):
        where = f"L1 on shard_grid {self._shard_grid}" if self._shard_grid else "DRAM interleaved"
        state = ", freed" if self._freed else ""
        return (f"Tensor(shape={self._shape}, dtype={self._dtype!r}, layout={self._layout!r}, pages={self.pages} of "
                f"{self.page_bytes} B, {where}, address=0x{self._address:x}{state})")


def _check_idle(busy, what, hint):
    if busy is None:
        return
    reason = busy()
    if reason is not None:
        raise DispatchError(f"{what}: {reason}; {hint}")


def _shape(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (tuple, list)):
        raise TypeError(f"{what}: shape must be a tuple of dimensions, got {_check.describe(value)}")
    if not value:
        raise ValueError(f"{what}: shape must have at least one dimension, got ()")
    return tuple(_check.integer(d, f"{what}: shape[{i}]", 1, _check.WORD_MAX, "a positive integer")
                 for i, d in enumerate(value))


def _layout(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what}: layout must be 'row' or 'tile', got {_check.describe(value)}")
    if value not in LAYOUTS:
        raise ValueError(f"{what}: layout must be 'row' or 'tile', got {value!r}")
    return value


def _shard_grid(value, device, what):
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{what}: shard_grid must be None or an (x, y) tuple of core counts, got "
                        f"{_check.describe(value)}")
    grid = device.grid
    x, y = (_check.integer(v, f"{what}: shard_grid[{i}]", 1, 0xFFFF, "a positive core count")
            for i, v in enumerate(value))
    if x > grid.x or y > grid.y:
        raise ValueError(f"{what}: shard_grid ({x}, {y}) does not fit the device's {grid.x} x {grid.y} grid")
    return (x, y)


def _check_data_shape(shape, card_shape, layout, what):
    shape = tuple(shape)
    if shape == card_shape:
        return
    if layout == "tile" and len(shape) == len(card_shape) >= 2 and all(shape) and \
            formats.padded_shape(shape) == card_shape:
        return
    if layout == "tile":
        raise ValueError(f"{what}: data has shape {shape}; this tile tensor takes its shape {card_shape} or one "
                         "that pads to it (the last two dimensions rounded up to multiples of 32)")
    raise ValueError(f"{what}: data has shape {shape}, the tensor's is {card_shape}")


def _encode(a, dtype, layout, what):
    """The card's bytes of data `a` (its shape checked) as dtype in layout."""
    stored = formats._stored(a, dtype, what)
    if layout == "tile":
        stored = formats.tilize(stored)
    return formats._pack(stored, dtype, what)


def _decode(tensor, raw):
    values = formats._unpack(raw, tensor._dtype, "Tensor.read")
    if tensor._layout == "tile":
        return formats.untilize(values, tensor._shape)
    return values.reshape(tensor._shape)


def create(device: Device, shape: "tuple[int, ...] | None", dtype: str, layout: str = "row",
           shard_grid: "tuple[int, int] | None" = None, data: "ArrayLike | None" = None,
           busy: "Callable[[], str | None] | None" = None, *, what: "str | None" = None) -> Tensor:
    """A Tensor on `device` (a tessel.Device) of `shape` (None: data's shape) and
    `dtype` (formats.DTYPES; the block formats need layout 'tile') in `layout`
    ('row' or 'tile') or, with shard_grid=(x, y), [cores, words] rows in the L1
    of x * y cores; `data` (anything np.asarray takes) is written before it
    returns. `busy` (a callable returning None or why the card is busy) guards
    the tensor's own reads and writes. Everything is checked before anything
    is allocated. `what` names the call in messages (default session.tensor
    with data, session.empty without)."""
    what = what or ("session.tensor" if data is not None else "session.empty")
    if not isinstance(device, Device):
        raise TypeError(f"{what}: device must be a tessel.Device, got {_check.describe(device)}")
    dtype = formats._dtype(dtype, f"{what}: dtype")
    layout = _layout(layout, what)
    grid = _shard_grid(shard_grid, device, what)
    if busy is not None and not callable(busy):
        raise TypeError(f"{what}: busy must be None or a callable returning None or a reason, got "
                        f"{_check.describe(busy)}")
    a = None if data is None else formats._asarray(data, f"{what}: data")
    if shape is None:
        if a is None:
            raise TypeError(f"{what}: shape is required when there is no data")
        if a.ndim == 0 or not all(a.shape):
            raise ValueError(f"{what}: data must have at least one dimension and no empty one, got shape {a.shape}")
        shape = tuple(a.shape)
    else:
        shape = _shape(shape, what)
        if a is not None and tuple(a.shape) != shape:
            raise ValueError(f"{what}: data has shape {tuple(a.shape)}, but shape is {shape}")
    if dtype in formats._BLOCK_DTYPES and layout != "tile":
        raise ValueError(f"{what}: {dtype} is a block format (a shared exponent per 16 values of a tile): it needs "
                         "layout='tile'")
    if layout == "tile" and len(shape) < 2:
        raise ValueError(f"{what}: a tile tensor needs at least two dimensions (rows x cols), got shape {shape}")
    if grid is not None:
        cores = grid[0] * grid[1]
        if layout != "row":
            raise ValueError(f"{what}: a tensor on a shard_grid is [cores, words], one row per core: it needs "
                             f"layout='row', got {layout!r}")
        if len(shape) != 2 or shape[0] != cores:
            raise ValueError(f"{what}: a tensor on shard_grid {grid} is [cores, words], one row in each of its "
                             f"{cores} cores: expected shape ({cores}, words), got {shape}")
    if layout == "tile":
        card_shape = formats.padded_shape(shape)
        page_bytes = formats.tile_bytes(dtype)
        pages = prod(card_shape[:-2]) * (card_shape[-2] // TILE) * (card_shape[-1] // TILE)
    else:
        card_shape = shape
        page_bytes = shape[-1] * formats._DTYPES[dtype][1]
        pages = prod(shape[:-1])
    if page_bytes > _check.WORD_MAX:
        raise ValueError(f"{what}: a row of {page_bytes} B is more than a page can hold ({_check.WORD_MAX} B)")
    payload = None
    if a is not None:
        payload = _encode(a, dtype, layout, what)
        _check_idle(busy, what, _WRITE_HINT)
    if grid is None:
        buffer = Buffer(device, pages * page_bytes, page_bytes, BufferType.DRAM)
    else:
        columns = device.grid.x
        banks = [cy * columns + cx for cy in range(grid[1]) for cx in range(grid[0])]
        buffer = Buffer(device, pages * page_bytes, page_bytes, BufferType.L1, ShardSpec((pages, 1), (1, 1), banks))
    if payload is not None:
        buffer.write(payload)
    return Tensor._make(buffer, card_shape, dtype, layout, grid, busy)


# ---- Session-level reads: DRAM pages, no waiting for the cores -----------------------------------------------------


def _dram_tensor(t, label, what):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {label} must be a Tensor, got {_check.describe(t)}")
    if t._freed:
        raise DispatchError(f"{what}: {label} was freed (Tensor.free)")
    if t._shard_grid is not None:
        raise ValueError(f"{what}: {label} is an L1 tensor (shard_grid {t._shard_grid}); these reads take "
                         "interleaved DRAM tensors: read an L1 tensor with Tensor.read() after run.stop()")
    return t


def _bf16_tile_tensor(t, label, what):
    _dram_tensor(t, label, what)
    if t._dtype != "bfloat16" or t._layout != "tile":
        raise ValueError(f"{what}: {label} is a {t._dtype} {t._layout} tensor; {what} reads bfloat16 tile tensors")
    return t


def _tensors(tensors, check, what):
    if not tensors:
        raise TypeError(f"{what}: give at least one tensor")
    return [check(t, f"tensors[{i}]" if len(tensors) > 1 else "tensor", what) for i, t in enumerate(tensors)]


def _page_view(t):
    return t._buffer.read().reshape(t.pages, t.page_bytes)


def _index(value, what, name):
    if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what}: {name} must be an integer, got {_check.describe(value)}")
    return int(value.__index__())


def _range(t, first, pages, what):
    """(first, pages) of a page range inside t, checked."""
    n = t.pages
    first = _index(first, what, "first")
    if pages is not None:
        pages = _index(pages, what, "pages")
        if pages < 0:
            raise ValueError(f"{what}: pages must be a page count (0 or more) or None, got {pages}")
    if pages is None or pages == 0:
        if not 0 <= first <= n:
            raise DispatchError(f"{what}: first page {first} is outside the tensor, which has {n} pages "
                                f"(0 to {n - 1})")
        return first, n - first if pages is None else 0
    if first < 0 or first + pages > n:
        raise DispatchError(f"{what}: pages {first} to {first + pages - 1} are outside the tensor, which has {n} "
                            f"pages (0 to {n - 1})")
    return first, pages


def read_pages(*tensors: Tensor, what: str = "session.read") -> "np.ndarray | list[np.ndarray]":
    """The raw pages of interleaved DRAM tensors, each a [pages, page_bytes] uint8
    array (one array for one tensor, else a list). Does not wait for the cores."""
    ts = _tensors(tensors, _dram_tensor, what)
    out = [_page_view(t) for t in ts]
    return out[0] if len(out) == 1 else out


def read_bf16(*tensors: Tensor, what: str = "session.read_bf16") -> "np.ndarray | list[np.ndarray]":
    """bfloat16 tile tensors as float32 arrays of their (padded) shapes (one array
    for one tensor, else a list). Does not wait for the cores."""
    ts = _tensors(tensors, _bf16_tile_tensor, what)
    out = [_decode(t, t._buffer.read()) for t in ts]
    return out[0] if len(out) == 1 else out


def read_range(tensor: Tensor, first: int = 0, pages: "int | None" = None, *, what: str = "session.read") -> np.ndarray:
    """Pages first .. first + pages - 1 (pages=None: to the end) of an interleaved
    DRAM tensor as a [pages, page_bytes] uint8 array; a range outside the tensor
    raises DispatchError."""
    t = _dram_tensor(tensor, "tensor", what)
    first, pages = _range(t, first, pages, what)
    view = _page_view(t)
    if pages == t.pages:
        return view
    return view[first:first + pages].copy()


def read_chunks(tensor: Tensor, chunk_bytes: int = 2 << 20, *,
                what: str = "session.read_chunks") -> Iterator[tuple[int, np.ndarray]]:
    """A generator of (first, pages) over the whole of an interleaved DRAM tensor:
    pages a [count, page_bytes] uint8 array of at most chunk_bytes, in order.
    The tensor is read once, at the first chunk; the chunks view that read."""
    t = _dram_tensor(tensor, "tensor", what)
    chunk_bytes = _index(chunk_bytes, what, "chunk_bytes")
    if chunk_bytes < t.page_bytes:
        raise ValueError(f"{what}: chunk_bytes {chunk_bytes} is less than one page ({t.page_bytes} B): a chunk "
                         "holds whole pages")
    return _chunks(t, chunk_bytes // t.page_bytes, what)


def _chunks(t, per_chunk, what):
    if t._freed:
        raise DispatchError(f"{what}: tensor was freed (Tensor.free)")
    view = _page_view(t)
    for first in range(0, t.pages, per_chunk):
        yield first, view[first:first + per_chunk]


def read_tiles_bf16(tensor: Tensor, first: int, pages: int, *, what: str = "session.read_tiles_bf16") -> np.ndarray:
    """Tiles first .. first + pages - 1 (row-major tile order, one tile a page) of a
    bfloat16 tile tensor as float32 [pages, 32, 32]."""
    t = _bf16_tile_tensor(tensor, "tensor", what)
    first, pages = _range(t, first, pages, what)
    raw = _page_view(t)[first:first + pages]
    values = formats.bf16_values(np.ascontiguousarray(raw).view("<u2").astype(np.uint16))
    faces = values.reshape(pages, 2, 2, 16, 16).transpose(0, 1, 3, 2, 4)
    return np.ascontiguousarray(faces).reshape(pages, TILE, TILE)
