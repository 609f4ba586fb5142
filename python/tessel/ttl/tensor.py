"""ttl.Tensor: what a tessel.ttl operation takes and what call_extern_func
turns into a TensorAccessor.

A Tensor is a tessel.Buffer seen as a tiled tensor: `shape` in elements
(at least two dimensions, the last two whole multiples of 32) and `dtype`, a
tessel.DataFormat. Each page of the buffer holds one 32x32 tile of dtype
(tile_size(dtype) bytes), tiles in row-major order over the last two
dimensions, the leading dimensions outermost. The buffer may be interleaved
in DRAM or L1, or sharded (tessel.ShardSpec, in pages): its layout decides
the tensor accessor's compile-time arguments (ttnn.TensorAccessorArgs), read
once when the Tensor is made.
"""

from dataclasses import dataclass, field
from math import prod

import numpy as np

from .. import _check, _tessel, formats
from ..device import Buffer, BufferType
from ..program import DataFormat, data_format

__all__ = ["Tensor", "as_tensor"]

_TILE = formats.TILE_HEIGHT
_STRUCTURES = {}  # (accessor args, page size, shape, dtype) -> a small int, one per structure seen


@dataclass(frozen=True, eq=False)
class Tensor:
    """A tiled tensor over a tessel.Buffer (one tile per page). Compared by
    identity: an operation's body passes its own argument objects to
    call_extern_func."""

    buffer: Buffer
    shape: tuple
    dtype: DataFormat = DataFormat.Float16_b
    _accessor: tuple = field(default=None, init=False, repr=False)
    _structure: int = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.buffer, Buffer):
            raise TypeError(f"ttl.Tensor.buffer must be a tessel.Buffer, got {_check.describe(self.buffer)}")
        shape = _shape(self.shape, "ttl.Tensor.shape")
        dtype = data_format(self.dtype, "ttl.Tensor.dtype")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", dtype)
        page = formats.tile_size(dtype)
        tiles = _tiles(shape)
        if self.buffer.page_size != page or self.buffer.size != tiles * page:
            raise ValueError(f"ttl.Tensor: a {shape} {dtype.name} tensor is {tiles} tiles of {page} B, one per page; "
                             f"the buffer has {self.buffer.num_pages} pages of {self.buffer.page_size} B")
        cta, crta = _tessel.tensor_accessor_args(self.buffer._b)
        accessor = (tuple(cta), tuple(crta))
        object.__setattr__(self, "_accessor", accessor)
        # What generated kernels depend on, as a small int that is cheap to key on.
        key = (accessor, page, shape, int(dtype))
        object.__setattr__(self, "_structure", _STRUCTURES.setdefault(key, len(_STRUCTURES)))

    @classmethod
    def allocate(cls, device, shape, dtype=DataFormat.Float16_b, *, buffer_type=BufferType.DRAM, shard=None):
        """A new tensor on `device`: an interleaved buffer of buffer_type, or a
        sharded one when shard (a tessel.ShardSpec over the tile pages) is given."""
        shape = _shape(shape, "ttl.Tensor.allocate: shape")
        dtype = data_format(dtype, "ttl.Tensor.allocate: dtype")
        page = formats.tile_size(dtype)
        buffer = Buffer(device, _tiles(shape) * page, page, buffer_type, shard)
        return cls(buffer, shape, dtype)

    @classmethod
    def from_numpy(cls, device, array, dtype=DataFormat.Float16_b, *, buffer_type=BufferType.DRAM, shard=None):
        """A new tensor holding `array` (its shape is the tensor's), converted to dtype."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"ttl.Tensor.from_numpy: array must be a numpy array, got {_check.describe(array)}")
        t = cls.allocate(device, array.shape, dtype, buffer_type=buffer_type, shard=shard)
        t.write(array)
        return t

    @property
    def device(self):
        return self.buffer.device

    @property
    def tiled(self):
        return True

    @property
    def num_tiles(self):
        return _tiles(self.shape)

    @property
    def layout(self):
        """'DRAM interleaved', 'L1 interleaved', 'DRAM sharded' or 'L1 sharded'."""
        kind = "sharded" if self.buffer.is_sharded else "interleaved"
        return f"{self.buffer.type.name} {kind}"

    def write(self, array):
        """Write `array` (this tensor's shape) into the buffer, tilized and converted to dtype."""
        a = _check.contiguous(np.asarray(array) if not isinstance(array, np.ndarray) else array, "ttl.Tensor.write")
        if tuple(a.shape) != self.shape:
            raise ValueError(f"ttl.Tensor.write: the array's shape is {tuple(a.shape)}, the tensor's {self.shape}")
        if a.dtype.kind == "f" and a.dtype != np.float32:
            a = a.astype(np.float32)
        tiles = formats.tilize(a.reshape(-1, self.shape[-1]))
        self.buffer.write(formats.to_bytes(tiles, self.dtype))

    def to_numpy(self):
        """The tensor's values as a float32 array of its shape."""
        values = formats.from_bytes(self.buffer.read(), self.dtype)
        rows = prod(self.shape[:-1])
        return formats.untilize(values, rows, self.shape[-1]).reshape(self.shape)

    def __repr__(self):
        return f"ttl.Tensor({self.shape}, {self.dtype.name}, {self.layout}, address 0x{self.buffer.address:x})"


def as_tensor(value, what):
    """The ttl.Tensor `value` is."""
    if isinstance(value, Tensor):
        return value
    inner = getattr(value, "_ttl", None)
    if isinstance(inner, Tensor):
        return inner
    raise TypeError(f"{what} must be a tensor (ttnn.Tensor or ttl.Tensor), got {_check.describe(value)}")


def _shape(value, what):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of dimensions, got {_check.describe(value)}")
    shape = tuple(_check.integer(d, f"{what}[{i}]", 1, _check.WORD_MAX, "a positive integer")
                  for i, d in enumerate(value))
    if len(shape) < 2 or shape[-1] % _TILE or shape[-2] % _TILE:
        raise ValueError(f"{what} must have at least two dimensions, the last two multiples of {_TILE} "
                         f"(whole tiles), got {shape}")
    return shape


def _tiles(shape):
    return prod(shape[:-2]) * (shape[-2] // _TILE) * (shape[-1] // _TILE)

