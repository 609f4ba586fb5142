"""Object and buffer types as IRON writes them: np.ndarray[(N,), np.dtype[T]]."""

import typing

import numpy as np


def array_type(t, what):
    """(shape, numpy dtype) of an ``np.ndarray[(shape), np.dtype[T]]`` type."""
    if typing.get_origin(t) is np.ndarray:
        args = typing.get_args(t)
        if len(args) == 2:
            shape, dt = args
            if isinstance(shape, int):
                shape = (shape,)
            inner = typing.get_args(dt)
            if isinstance(shape, tuple) and all(isinstance(s, int) and s > 0 for s in shape) and len(inner) == 1:
                return tuple(shape), np.dtype(inner[0])
    raise TypeError(f"{what} must be a type like np.ndarray[(16,), np.dtype[np.int32]], got {t!r}")


def is_array_type(t):
    return typing.get_origin(t) is np.ndarray


def element_count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


_CTYPES = {
    "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "uint16": "uint16_t", "int32": "int32_t",
    "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t", "float32": "float", "float64": "double",
    "bfloat16": "uint16_t",
}


def c_type(dtype):
    """The C type of one element (bfloat16 as its 16 raw bits)."""
    name = np.dtype(dtype).name
    if name not in _CTYPES:
        raise TypeError(f"element type {name} has no C type here; use one of {', '.join(sorted(_CTYPES))}")
    return _CTYPES[name]


def dtype_key(dtype):
    """A text naming an element type that dtype_of() turns back into it
    (numpy's own str loses bfloat16, an ml_dtypes type)."""
    dtype = np.dtype(dtype)
    return dtype.name if dtype.name == "bfloat16" else dtype.str


def dtype_of(key):
    if key == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(key)
