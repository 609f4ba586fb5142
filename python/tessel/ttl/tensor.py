"""ttl.Tensor: what a tessel.ttl operation takes and what call_extern_func
turns into a TensorAccessor.

A Tensor is a tessel.Buffer seen as a tensor of `shape` (in elements) and
`dtype` (a tessel.DataFormat), laid out in one of tt-metal's two layouts:

- tiled (`tiled=True`, ttnn's TILE_LAYOUT): at least two dimensions, the
  last two whole multiples of 32. Each page holds one 32x32 tile of dtype
  (tile_size(dtype) bytes), tiles in row-major order over the last two
  dimensions, the leading dimensions outermost.
- row-major (`tiled=False`, ttnn's ROW_MAJOR_LAYOUT): any shape of at
  least one dimension. Each page holds one row of the last dimension
  (shape[-1] elements of dtype), rows in row-major order. Block-float
  formats (Bfp8_b, Bfp4_b) have no row-major form.

The buffer may be interleaved in DRAM or L1, or sharded (tessel.ShardSpec,
in pages): its layout decides the tensor accessor's compile-time arguments
(ttnn.TensorAccessorArgs), read once when the Tensor is made.

as_tensor(value, what) is the one place operations turn an argument into a
Tensor: a ttl.Tensor is itself, a single-device ttnn.Tensor gives the
ttl.Tensor it holds.
"""

from dataclasses import dataclass, field
from math import prod

import numpy as np

from .. import _check, _tessel, formats
from ..device import Buffer, BufferType
from ..program import DataFormat, data_format

__all__ = ["Tensor", "as_tensor", "element_size"]

_TILE = formats.TILE_HEIGHT
_STRUCTURES = {}  # (accessor args, page size, shape, dtype, tiled) -> a small int, one per structure seen

# Bytes per element of the formats a row-major tensor may hold, and the
# numpy type of their stored values.
_ELEMENT = {
    DataFormat.Float32: (4, np.dtype("<f4")),
    DataFormat.Float16_b: (2, np.dtype("<u2")),
    DataFormat.Int32: (4, np.dtype("<i4")),
    DataFormat.UInt32: (4, np.dtype("<u4")),
    DataFormat.UInt16: (2, np.dtype("<u2")),
    DataFormat.UInt8: (1, np.dtype("u1")),
}
_INTEGERS = (DataFormat.Int32, DataFormat.UInt32, DataFormat.UInt16, DataFormat.UInt8)


def element_size(dtype) -> int:
    """Bytes of one element of `dtype` in a row-major tensor; a ValueError
    for the formats that only exist in tiles."""
    fmt = data_format(dtype, "ttl.Tensor: dtype")
    if fmt not in _ELEMENT:
        names = ", ".join(f.name for f in _ELEMENT)
        raise ValueError(f"ttl.Tensor: a row-major tensor cannot hold {fmt.name} (it exists only in tiles); "
                         f"row-major formats are {names}")
    return _ELEMENT[fmt][0]


@dataclass(frozen=True, eq=False)
class Tensor:
    """A tiled (one tile per page) or row-major (one row per page) tensor
    over a tessel.Buffer. Compared by identity: an operation's body passes
    its own argument objects to call_extern_func."""

    buffer: Buffer
    shape: tuple
    dtype: DataFormat = DataFormat.Float16_b
    tiled: bool = True
    _accessor: tuple = field(default=None, init=False, repr=False)
    _structure: int = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.buffer, Buffer):
            raise TypeError(f"ttl.Tensor.buffer must be a tessel.Buffer, got {_check.describe(self.buffer)}")
        tiled = _check.flag(self.tiled, "ttl.Tensor.tiled")
        shape = _shape(self.shape, "ttl.Tensor.shape", tiled)
        dtype = data_format(self.dtype, "ttl.Tensor.dtype")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "tiled", tiled)
        page, pages = _pages(shape, dtype, tiled)
        if self.buffer.page_size != page or self.buffer.size != pages * page:
            unit = f"tensor is {pages} tiles of {page} B" if tiled else f"row-major tensor is {pages} rows of {page} B"
            raise ValueError(f"ttl.Tensor: a {shape} {dtype.name} {unit}, one per page; the buffer has "
                             f"{self.buffer.num_pages} pages of {self.buffer.page_size} B")
        cta, crta = _tessel.tensor_accessor_args(self.buffer._b)
        accessor = (tuple(cta), tuple(crta))
        object.__setattr__(self, "_accessor", accessor)
        # What generated kernels depend on, as a small int that is cheap to key on.
        key = (accessor, page, shape, int(dtype), tiled)
        object.__setattr__(self, "_structure", _STRUCTURES.setdefault(key, len(_STRUCTURES)))

    @classmethod
    def allocate(cls, device, shape, dtype=DataFormat.Float16_b, *, buffer_type=BufferType.DRAM, shard=None,
                 tiled=True):
        """A new tensor on `device`: an interleaved buffer of buffer_type, or a
        sharded one when shard (a tessel.ShardSpec over the pages) is given;
        tiled=False makes a row-major tensor (one row per page)."""
        tiled = _check.flag(tiled, "ttl.Tensor.allocate: tiled")
        shape = _shape(shape, "ttl.Tensor.allocate: shape", tiled)
        dtype = data_format(dtype, "ttl.Tensor.allocate: dtype")
        page, pages = _pages(shape, dtype, tiled)
        buffer = Buffer(device, pages * page, page, buffer_type, shard)
        return cls(buffer, shape, dtype, tiled)

    @classmethod
    def from_numpy(cls, device, array, dtype=DataFormat.Float16_b, *, buffer_type=BufferType.DRAM, shard=None,
                   tiled=True):
        """A new tensor holding `array` (its shape is the tensor's), converted to dtype."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"ttl.Tensor.from_numpy: array must be a numpy array, got {_check.describe(array)}")
        t = cls.allocate(device, array.shape, dtype, buffer_type=buffer_type, shard=shard, tiled=tiled)
        t.write(array)
        return t

    @property
    def device(self):
        return self.buffer.device

    @property
    def page_size(self):
        """Bytes of one page: a tile of dtype, or a row of shape[-1] elements."""
        return self.buffer.page_size

    @property
    def num_pages(self):
        return self.buffer.num_pages

    @property
    def num_tiles(self):
        """Tiles of a tiled tensor (a ValueError for a row-major one)."""
        if not self.tiled:
            raise ValueError(f"ttl.Tensor.num_tiles: {self!r} is row-major: it has rows (num_pages), not tiles")
        return _tiles(self.shape)

    @property
    def layout(self):
        """'DRAM interleaved', 'L1 interleaved', 'DRAM sharded' or 'L1 sharded'."""
        kind = "sharded" if self.buffer.is_sharded else "interleaved"
        return f"{self.buffer.type.name} {kind}"

    def write(self, array):
        """Write `array` (this tensor's shape) into the buffer, tilized (when
        tiled) and converted to dtype."""
        a = _check.contiguous(np.asarray(array) if not isinstance(array, np.ndarray) else array, "ttl.Tensor.write")
        if tuple(a.shape) != self.shape:
            raise ValueError(f"ttl.Tensor.write: the array's shape is {tuple(a.shape)}, the tensor's {self.shape}")
        if a.dtype.kind == "f" and a.dtype != np.float32:
            a = a.astype(np.float32)
        if not self.tiled:
            self.buffer.write(_row_major_bytes(a, self.dtype))
            return
        tiles = formats.tilize(a.reshape(-1, self.shape[-1]))
        self.buffer.write(formats.to_bytes(tiles, self.dtype))

    def to_numpy(self):
        """The tensor's values as an array of its shape: float32, or an
        integer format's own integers (exactly as stored)."""
        if not self.tiled:
            return _row_major_values(self.buffer.read(), self.dtype).reshape(self.shape)
        rows = prod(self.shape[:-1])
        if self.dtype in _INTEGERS:
            # Integer tiles hold the values themselves, in tile order: no float32 round trip.
            stored = self.buffer.read().view(_ELEMENT[self.dtype][1])
            return formats.untilize(stored.astype(stored.dtype.newbyteorder("=")), rows,
                                    self.shape[-1]).reshape(self.shape)
        values = formats.from_bytes(self.buffer.read(), self.dtype)
        return formats.untilize(values, rows, self.shape[-1]).reshape(self.shape)

    def __repr__(self):
        kind = "tiled" if self.tiled else "row-major"
        return (f"ttl.Tensor({self.shape}, {self.dtype.name}, {kind}, {self.layout}, "
                f"address 0x{self.buffer.address:x})")


def as_tensor(value, what) -> Tensor:
    """The ttl.Tensor an operation argument stands for: a ttl.Tensor itself,
    or the one a single-device ttnn.Tensor holds on its device. A TypeError
    naming `what` otherwise (a host ttnn.Tensor, a mesh tensor, anything else)."""
    if isinstance(value, Tensor):
        return value
    ttl = getattr(type(value), "_ttl_tensor_of", None)
    if ttl is not None:  # a ttnn.Tensor: it says why when it holds no device tensor
        return ttl(value, what)
    raise TypeError(f"{what} must be a ttl.Tensor or a ttnn.Tensor on a device, got {_check.describe(value)}")


def _shape(value, what, tiled=True):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of dimensions, got {_check.describe(value)}")
    shape = tuple(_check.integer(d, f"{what}[{i}]", 1, _check.WORD_MAX, "a positive integer")
                  for i, d in enumerate(value))
    if not tiled:
        if not shape:
            raise ValueError(f"{what} must have at least one dimension, got ()")
        return shape
    if len(shape) < 2 or shape[-1] % _TILE or shape[-2] % _TILE:
        raise ValueError(f"{what} must have at least two dimensions, the last two multiples of {_TILE} "
                         f"(whole tiles), got {shape}")
    return shape


def _pages(shape, dtype, tiled):
    """(page size in bytes, page count) of a tensor."""
    if tiled:
        return formats.tile_size(dtype), _tiles(shape)
    return shape[-1] * element_size(dtype), prod(shape[:-1])


def _tiles(shape):
    return prod(shape[:-2]) * (shape[-2] // _TILE) * (shape[-1] // _TILE)


def _row_major_bytes(a, dtype):
    """Row-major values as the device bytes of dtype (floats round to
    nearest even; integers are range-checked)."""
    size, stored = _ELEMENT[dtype]
    flat = a.reshape(-1)
    if dtype == DataFormat.Float16_b:
        values = formats.bf16_bits(flat.astype(np.float32, copy=False))
    elif dtype == DataFormat.Float32:
        values = flat.astype(stored)
    else:
        if flat.dtype.kind == "f":
            flat = np.rint(flat)
        info = np.iinfo(stored)
        if flat.size and (flat.min() < info.min or flat.max() > info.max):
            raise ValueError(f"ttl.Tensor.write: a value is outside {dtype.name}'s range ({info.min}..{info.max})")
        values = flat.astype(stored)
    return np.ascontiguousarray(values).view(np.uint8)


def _row_major_values(data, dtype):
    _, stored = _ELEMENT[dtype]
    raw = data.view(stored)
    if dtype == DataFormat.Float16_b:
        return formats.bf16_values(raw.astype(np.uint16))
    if dtype == DataFormat.Float32:
        return raw.astype(np.float32)
    return raw.astype(stored.newbyteorder("="))
