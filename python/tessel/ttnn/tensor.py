"""ttnn.Tensor: a tensor on the host, on one device, or over a mesh.

- A device tensor holds a tessel.ttl.Tensor (`_ttl`): a tessel.Buffer laid
  out as tt-metal lays it (TILE_LAYOUT: 32x32 tiles, the last two
  dimensions padded to whole tiles; ROW_MAJOR_LAYOUT: one row per page).
  `shape` is the logical shape, `padded_shape` the tiles' shape.
- A host tensor holds a numpy array of its logical shape (values already
  rounded to its dtype's precision where the host can round them).
- A mesh tensor holds one device tensor per device of a mesh (`_shards`, in
  device order); `shape`, `dtype` and `layout` are its shards' (ttnn's
  per-device view).

tessel.ttl operations take a device tensor through ttl.tensor.as_tensor,
which calls Tensor._ttl_tensor_of.
"""

from math import prod

import numpy as np

from .. import _check, formats
from ..ttl.tensor import Tensor as TtlTensor
from .memory import DRAM_MEMORY_CONFIG, MemoryConfig, buffer_shard
from .types import DataType, Layout, TILE_SIZE

__all__ = ["Shape", "StorageType", "Tensor"]


class Shape(tuple):
    """A tensor's shape: a tuple of dimensions (ttnn.Shape), indexable and
    comparable with tuples and lists."""

    def __new__(cls, dims):
        return super().__new__(cls, (int(d) for d in dims))

    @property
    def rank(self):
        return len(self)

    def volume(self):
        return prod(self)

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"Shape([{', '.join(str(d) for d in self)}])"


class StorageType:
    HOST = "HOST"
    DEVICE = "DEVICE"


def padded(shape, layout):
    """The shape a tensor of `shape` takes in `layout`: tiles pad the last two
    dimensions (a 1-D shape is one row) to multiples of 32."""
    if layout != Layout.TILE:
        return tuple(shape)
    dims = (1,) + tuple(shape) if len(shape) == 1 else tuple(shape)
    return dims[:-2] + (-(-dims[-2] // TILE_SIZE) * TILE_SIZE, -(-dims[-1] // TILE_SIZE) * TILE_SIZE)


def host_values(array, dtype):
    """`array` as the host holds it for dtype: float32 rounded to bfloat16
    for BFLOAT16; integers checked against their range for integer types;
    block-float types stay float32 until they are tiled on a device."""
    if dtype in (DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.INT32):
        target = np.dtype({DataType.UINT8: np.uint8, DataType.UINT16: np.uint16, DataType.UINT32: np.uint32,
                           DataType.INT32: np.int32}[dtype])
        a = np.rint(array) if array.dtype.kind == "f" else array
        info = np.iinfo(target)
        if a.size and (a.min() < info.min or a.max() > info.max):
            raise ValueError(f"a value is outside {dtype!r}'s range ({info.min}..{info.max})")
        return np.ascontiguousarray(a, dtype=target)
    a = np.ascontiguousarray(array, dtype=np.float32)
    if dtype == DataType.BFLOAT16:
        a = formats.bf16_values(formats.bf16_bits(a))
    return a


class Tensor:
    """A ttnn tensor (see the module docstring). Made by ttnn.from_torch,
    ttnn.empty, ttnn.rand and the other creation functions, and by ttnn's
    operations."""

    __slots__ = ("_shape", "_dtype", "_layout", "_host", "_ttl", "_device", "_memory_config", "_shards", "_mesh")

    def __init__(self, *args, **kwargs):
        raise TypeError("make a ttnn.Tensor with ttnn.from_torch, ttnn.empty, ttnn.rand, ttnn.zeros or ttnn.full")

    @classmethod
    def _new(cls, shape, dtype, layout):
        self = object.__new__(cls)
        self._shape, self._dtype, self._layout = Shape(shape), dtype, layout
        self._host = self._ttl = self._device = self._memory_config = self._shards = self._mesh = None
        return self

    @classmethod
    def _on_host(cls, values, dtype, layout):
        self = cls._new(values.shape, dtype, layout)
        self._host = values
        return self

    @classmethod
    def _allocate(cls, device, shape, dtype, layout, memory_config, what):
        """A new device tensor of logical `shape` (its contents unset)."""
        device._check_open(what)
        tiled = layout == Layout.TILE
        if not tiled and dtype.is_block_float:
            raise ValueError(f"{what}: {dtype!r} is a block-float type and exists only in tiles: use "
                             "layout=ttnn.TILE_LAYOUT")
        if not shape or any(d < 1 for d in shape):
            raise ValueError(f"{what}: a device tensor needs at least one dimension, each at least 1, got "
                             f"{tuple(shape)}")
        full = padded(shape, layout)
        shard = None
        if memory_config.is_sharded():
            if memory_config.buffer_type.name != "L1":
                raise ValueError(f"{what}: tessel shards tensors over worker cores' L1 only; the memory config "
                                 f"asks for {memory_config.buffer_type.name}")
            shard = buffer_shard(memory_config, full, tiled, device.tessel_device, what)
        t = TtlTensor.allocate(device.tessel_device, full, dtype.format, buffer_type=memory_config.buffer_type,
                               shard=shard, tiled=tiled)
        self = cls._new(shape, dtype, layout)
        self._ttl, self._device, self._memory_config = t, device, memory_config
        return self

    @classmethod
    def _on_device(cls, device, values, dtype, layout, memory_config, what, pad_value=0.0):
        """A device tensor holding `values` (host values of its logical shape)."""
        self = cls._allocate(device, values.shape, dtype, layout, memory_config, what)
        full = self._ttl.shape
        data = values.reshape(1, -1) if values.ndim == 1 and layout == Layout.TILE else values
        if data.shape != full:
            data = np.pad(data, [(0, f - s) for f, s in zip(full, data.shape)], constant_values=pad_value)
        self._ttl.write(np.ascontiguousarray(data))
        return self

    @classmethod
    def _on_mesh(cls, mesh, shards):
        first = shards[0]
        self = cls._new(first._shape, first._dtype, first._layout)
        self._shards, self._mesh, self._memory_config = list(shards), mesh, first._memory_config
        return self

    # -- what ttnn programs read

    @property
    def shape(self) -> Shape:
        return self._shape

    @property
    def logical_shape(self) -> Shape:
        return self._shape

    @property
    def padded_shape(self) -> Shape:
        if self._ttl is not None:
            return Shape(self._ttl.shape)
        if self._shards is not None:
            return self._shards[0].padded_shape
        return Shape(padded(self._shape, self._layout))

    @property
    def dtype(self) -> DataType:
        return self._dtype

    def get_dtype(self) -> DataType:
        return self._dtype

    @property
    def layout(self) -> Layout:
        return self._layout

    def get_layout(self) -> Layout:
        return self._layout

    def memory_config(self) -> MemoryConfig:
        """Where the pages live (DRAM_MEMORY_CONFIG for a host tensor, as ttnn answers)."""
        return self._memory_config or DRAM_MEMORY_CONFIG

    def device(self):
        """The ttnn.Device (or ttnn.MeshDevice) the tensor is on, None on the host."""
        return self._mesh if self._mesh is not None else self._device

    def storage_type(self):
        return StorageType.HOST if self._host is not None else StorageType.DEVICE

    def is_allocated(self) -> bool:
        if self._shards is not None:
            return all(s.is_allocated() for s in self._shards)
        return self._host is not None or (self._ttl.buffer.is_allocated and self._device.is_open)

    def is_sharded(self) -> bool:
        return self.memory_config().is_sharded()

    def volume(self) -> int:
        return prod(self._shape)

    def element_size(self) -> int:
        return {DataType.FLOAT32: 4, DataType.INT32: 4, DataType.UINT32: 4, DataType.BFLOAT16: 2,
                DataType.UINT16: 2, DataType.UINT8: 1, DataType.BFLOAT8_B: 1, DataType.BFLOAT4_B: 1}[self._dtype]

    def deallocate(self, force=True):
        if self._shards is not None:
            for s in self._shards:
                s.deallocate()
        elif self._ttl is not None:
            self._ttl.buffer.deallocate()

    def to_torch(self, **kwargs):
        from .creation import to_torch

        return to_torch(self, **kwargs)

    def cpu(self):
        from .creation import from_device

        return from_device(self)

    def to(self, device, memory_config=None):
        from .creation import to_device

        return to_device(self, device, memory_config=memory_config)

    # Python operators run ttnn's operations.
    def __add__(self, other):
        from . import operations

        return operations.add(self, other)

    def __radd__(self, other):
        from . import operations

        return operations.add(self, other)

    def __sub__(self, other):
        from . import operations

        return operations.subtract(self, other)

    def __mul__(self, other):
        from . import operations

        return operations.multiply(self, other)

    def __rmul__(self, other):
        from . import operations

        return operations.multiply(self, other)

    def __matmul__(self, other):
        from . import operations

        return operations.matmul(self, other)

    def __neg__(self):
        from . import operations

        return operations.neg(self)

    # -- what tessel.ttl operations read

    @staticmethod
    def _ttl_tensor_of(tensor, what):
        if tensor._ttl is not None:
            if not tensor._device.is_open:
                raise ValueError(f"{what}: the tensor's device {tensor._device.id()} is closed")
            return tensor._ttl
        if tensor._shards is not None:
            raise TypeError(f"{what} is a mesh tensor over {len(tensor._shards)} devices: an operation takes one "
                            "device tensor; run it on each of tensor._shards (a mesh operation does)")
        raise TypeError(f"{what} is a host tensor: put it on a device first (ttnn.from_torch(..., device=device) or "
                        "ttnn.to_device(tensor, device))")

    def _values(self):
        """The logical values on the host (float32, or the integer type)."""
        if self._host is not None:
            return self._host
        if self._shards is not None:
            raise TypeError("a mesh tensor's values are its shards': use ttnn.to_torch with a mesh_composer")
        self._device._check_open("ttnn.Tensor")
        values = self._ttl.to_numpy()
        if self._layout == Layout.TILE:
            values = values[0, : self._shape[0]] if len(self._shape) == 1 else \
                values[tuple(slice(0, d) for d in self._shape)]
        return host_values(values, self._dtype) if self._dtype != DataType.FLOAT32 else np.ascontiguousarray(values)

    def __repr__(self):
        where = ("host" if self._host is not None else f"mesh of {len(self._shards)}" if self._shards is not None
                 else f"device {self._device.id()}")
        return (f"ttnn.Tensor(shape={self._shape!r}, dtype={self._dtype!r}, layout={self._layout!r}, "
                f"{where})")


def tensor(value, what) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{what} must be a ttnn.Tensor, got {_check.describe(value)}")
    return value
