"""Host tensors for iron.jit designs: `iron.tensor`, `iron.zeros`,
`iron.ones`, `iron.full`, `iron.zeros_like`, `iron.arange`, `iron.rand`,
`iron.randint`, and the dtype names `str_to_dtype` / `dtype_to_str`.

`iron.tensor(shape_tuple, dtype=...)` makes a tensor of zeros of that shape,
as IRON's does; any other data (a list, an array) is copied.

A Tensor owns one C-contiguous numpy array. A jit call binds that array to
the design directly (no copy), so what the design writes to an Out tensor is
in the Tensor when the call returns, and `numpy()` is a view of the same
memory. The simulated device reads host memory, so `device` ("npu" or
"cpu") is recorded for IRON compatibility and moves no data.
"""

from typing import Any

import numpy as np

from .._check import describe

__all__ = ["Tensor", "tensor", "zeros", "ones", "full", "zeros_like", "arange", "rand", "randint", "asnumpy",
           "str_to_dtype", "dtype_to_str"]

_DEVICES = ("npu", "cpu")


def _bfloat16():
    import ml_dtypes

    return ml_dtypes.bfloat16


# IRON's dtype names (str_to_dtype / dtype_to_str), numpy's spelling where the two agree.
_DTYPE_NAMES = {
    "bf16": _bfloat16, "bfloat16": _bfloat16,
    "f32": lambda: np.float32, "float32": lambda: np.float32,
    "f16": lambda: np.float16, "float16": lambda: np.float16,
    "i8": lambda: np.int8, "int8": lambda: np.int8,
    "u8": lambda: np.uint8, "uint8": lambda: np.uint8,
    "i16": lambda: np.int16, "int16": lambda: np.int16,
    "u16": lambda: np.uint16, "uint16": lambda: np.uint16,
    "i32": lambda: np.int32, "int32": lambda: np.int32,
    "u32": lambda: np.uint32, "uint32": lambda: np.uint32,
    "i64": lambda: np.int64, "int64": lambda: np.int64,
}
_SHORT_NAMES = {"bfloat16": "bf16", "float32": "f32", "float16": "f16", "int8": "i8", "uint8": "u8",
                "int16": "i16", "uint16": "u16", "int32": "i32", "uint32": "u32", "int64": "i64"}


def str_to_dtype(name: str) -> type:
    """The scalar type IRON names `name` ("bf16", "i32", "float32", ...)."""
    if not isinstance(name, str) or name not in _DTYPE_NAMES:
        raise ValueError(f"str_to_dtype: unknown dtype name {name!r}; known: {', '.join(sorted(_DTYPE_NAMES))}")
    return _DTYPE_NAMES[name]()


def dtype_to_str(dtype: Any) -> str:
    """IRON's short name of a dtype: bfloat16 -> "bf16", np.int32 -> "i32"."""
    name = _dtype(dtype, "dtype_to_str").name
    if name not in _SHORT_NAMES:
        raise ValueError(f"dtype_to_str: {name} has no IRON name; known: {', '.join(_SHORT_NAMES)}")
    return _SHORT_NAMES[name]


def _device(device: Any, what: str) -> str:
    if device not in _DEVICES:
        raise ValueError(f"{what}: device must be 'npu' or 'cpu', got {device!r}")
    return device


def _dtype(dtype: Any, what: str) -> np.dtype:
    if isinstance(dtype, str) and dtype in _DTYPE_NAMES:
        return np.dtype(_DTYPE_NAMES[dtype]())
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: dtype must be a NumPy dtype or scalar type, got {describe(dtype)}") from None


def _shape(shape: tuple, what: str) -> tuple:
    """zeros(4), zeros(2, 3) and zeros((2, 3)) all name a shape."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for extent in shape:
        if isinstance(extent, (bool, np.bool_)) or not isinstance(extent, (int, np.integer)) or extent < 0:
            raise TypeError(f"{what}: shape must be non-negative integers, got {shape!r}")
    return tuple(int(extent) for extent in shape)


class ElementType:
    """A tensor's element type as IRON's tensors give it: usable as the
    numpy dtype it stands for (comparisons, .name, .itemsize, np.dtype(t),
    dtype=t) and callable as its scalar type (`out.dtype(0).nbytes`)."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)

    def __call__(self, *args):
        return self.dtype.type(*args)

    def __getattr__(self, name):
        return getattr(self.dtype, name)

    def __eq__(self, other):
        other = other.dtype if isinstance(other, ElementType) else other
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return repr(self.dtype)

    def __str__(self):
        return str(self.dtype)


class Tensor:
    """A host tensor over a C-contiguous numpy array. Indexing reads and
    writes the array (slices are numpy views); `numpy()` returns the array
    itself. Compared and hashed by identity, as a buffer is."""

    __slots__ = ("_array", "_device", "__weakref__")

    def __init__(self, data: Any, *, dtype: Any = None, device: str = "npu", copy: bool = True):
        device = _device(device, "tessel.iron.Tensor")
        if dtype is not None:
            dtype = _dtype(dtype, "tessel.iron.Tensor")
        if isinstance(data, Tensor):
            data = data._array
        array = np.array(data, dtype=dtype, order="C", copy=True if copy else None)
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        self._array = array
        self._device = device

    @property
    def shape(self) -> tuple:
        return self._array.shape

    @property
    def dtype(self) -> "ElementType":
        return ElementType(self._array.dtype)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def device(self) -> str:
        return self._device

    def numel(self) -> int:
        """The number of elements."""
        return self._array.size

    def numpy(self) -> np.ndarray:
        """The tensor's own array (a view of its storage, not a copy)."""
        return self._array

    def to(self, device: str) -> "Tensor":
        """Record the tensor as living on `device` ("npu" or "cpu") and return
        it; host memory serves both, so nothing is copied."""
        self._device = _device(device, "Tensor.to")
        return self

    def fill_(self, value: Any) -> "Tensor":
        """Set every element to `value`; returns the tensor."""
        self._array.fill(value)
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._array.dtype:
            if copy is False:
                raise ValueError(f"Tensor of {self._array.dtype} cannot be viewed as {np.dtype(dtype)} without a copy")
            return self._array.astype(dtype)
        return self._array.copy() if copy else self._array

    def __getitem__(self, key: Any) -> Any:
        return self._array[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._array[key] = np.asarray(value) if isinstance(value, Tensor) else value

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self):
        return iter(self._array)

    def __repr__(self) -> str:
        body = np.array2string(self._array, separator=", ", threshold=16)
        return f"tessel.iron.Tensor({body}, shape={self.shape}, dtype={self.dtype.name}, device={self._device!r})"


def tensor(data: Any, dtype: Any = None, device: str = "npu") -> Tensor:
    """A Tensor of zeros when `data` is a shape tuple (tensor((n,), dtype=...)),
    else holding a copy of `data` (anything numpy.array accepts)."""
    device = _device(device, "tessel.iron.tensor")
    if isinstance(data, tuple) and all(isinstance(e, (int, np.integer)) and not isinstance(e, bool) for e in data):
        shape = _shape(data, "tessel.iron.tensor")
        return zeros(shape, dtype=np.float32 if dtype is None else dtype, device=device)
    if isinstance(data, np.ndarray) and dtype is not None and data.dtype != _dtype(dtype, "tessel.iron.tensor"):
        raise TypeError(f"tessel.iron.tensor: the array is {data.dtype} but dtype= is {np.dtype(dtype)}; cast the "
                        "array first (array.astype(...)) or drop dtype=")
    return Tensor(data, dtype=dtype, device=device)


def zeros(*shape: Any, dtype: Any = np.float32, device: str = "npu") -> Tensor:
    """A Tensor of zeros: zeros(n), zeros(m, n) or zeros((m, n))."""
    shape, device = _shape(shape, "tessel.iron.zeros"), _device(device, "tessel.iron.zeros")
    return Tensor(np.zeros(shape, dtype=_dtype(dtype, "tessel.iron.zeros")), device=device, copy=False)


def ones(*shape: Any, dtype: Any = np.float32, device: str = "npu") -> Tensor:
    """A Tensor of ones: ones(n), ones(m, n) or ones((m, n))."""
    shape, device = _shape(shape, "tessel.iron.ones"), _device(device, "tessel.iron.ones")
    return Tensor(np.ones(shape, dtype=_dtype(dtype, "tessel.iron.ones")), device=device, copy=False)


def full(shape: Any, fill_value: Any, *, dtype: Any = np.float32, device: str = "npu") -> Tensor:
    """A Tensor of `shape` with every element `fill_value`."""
    shape, device = _shape((shape,), "tessel.iron.full"), _device(device, "tessel.iron.full")
    return Tensor(np.full(shape, fill_value, dtype=_dtype(dtype, "tessel.iron.full")), device=device, copy=False)


def zeros_like(other: Any, *, dtype: Any = None, device: str = None) -> Tensor:
    """A Tensor of zeros with `other`'s shape and dtype (and device, for a Tensor)."""
    array = asnumpy(other)
    device = _device(device if device is not None else getattr(other, "device", "npu"), "tessel.iron.zeros_like")
    dtype = array.dtype if dtype is None else _dtype(dtype, "tessel.iron.zeros_like")
    return Tensor(np.zeros(array.shape, dtype=dtype), device=device, copy=False)


def arange(*args: Any, dtype: Any = None, device: str = "npu", shape: Any = None) -> Tensor:
    """numpy.arange(*args) as a Tensor: arange(stop), arange(start, stop[, step]);
    shape= reshapes the result (its element count must match)."""
    dtype = None if dtype is None else _dtype(dtype, "tessel.iron.arange")
    device = _device(device, "tessel.iron.arange")
    values = np.arange(*args, dtype=dtype)
    if shape is not None:
        shape = _shape((shape,), "tessel.iron.arange")
        if int(np.prod(shape)) != values.size:
            raise ValueError(f"tessel.iron.arange: shape={shape} holds {int(np.prod(shape))} elements, but the "
                             f"range has {values.size}")
        values = values.reshape(shape)
    return Tensor(values, device=device, copy=False)


def rand(*shape: Any, dtype: Any = np.float32, device: str = "npu") -> Tensor:
    """Values drawn uniformly from [0, 1) (numpy's global generator), of
    `shape`: rand(n), rand(m, n) or rand((m, n))."""
    shape, device = _shape(shape, "tessel.iron.rand"), _device(device, "tessel.iron.rand")
    dtype = _dtype(dtype, "tessel.iron.rand")
    return Tensor(np.random.random_sample(shape).astype(dtype), device=device, copy=False)


def randint(low: int, high: int, size: Any, *, dtype: Any = np.int64, device: str = "npu") -> Tensor:
    """Integers drawn uniformly from [low, high) (numpy's global generator,
    so numpy.random.seed makes them repeatable), of shape `size`."""
    dtype, device = _dtype(dtype, "tessel.iron.randint"), _device(device, "tessel.iron.randint")
    shape = _shape((size,), "tessel.iron.randint")
    if dtype.kind in "iu":
        values = np.random.randint(low, high, size=shape, dtype=dtype)
    else:
        values = np.random.randint(low, high, size=shape).astype(dtype)
    return Tensor(values, device=device, copy=False)


def asnumpy(value: Any) -> np.ndarray:
    """A Tensor's own array, a numpy array unchanged, anything else through
    numpy.asarray."""
    if isinstance(value, Tensor):
        return value.numpy()
    return np.asarray(value)
