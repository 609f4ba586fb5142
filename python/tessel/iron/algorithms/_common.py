"""What the algorithms share: reading a tensor, a tensor type or a
descriptor as (shape, dtype), an ExternalFunction's tile and parameters, and
the design around one worker."""

import typing

import numpy as np

from .. import device as device_mod
from ..kernel import ExternalFunction
from ..types import array_type


class Desc:
    """A tensor's shape and element type (what a design is built for)."""

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape))

    def type(self):
        return np.ndarray[self.shape, np.dtype[self.dtype.type]]

    def flat_type(self):
        return np.ndarray[(self.size,), np.dtype[self.dtype.type]]


def describe(x, what):
    """Desc of a tensor, an np.ndarray[...] type, or anything with .shape and .dtype."""
    if typing.get_origin(x) is np.ndarray:
        shape, dtype = array_type(x, what)
        return Desc(shape, dtype)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        try:
            return Desc(tuple(x.shape), x.dtype)
        except TypeError:
            pass
    raise TypeError(f"{what} must be a tensor, or a type like np.ndarray[(N,), np.dtype[np.int32]], got {x!r}")


def same_descs(descs, names):
    first = descs[0]
    for d, name in zip(descs[1:], names[1:]):
        if d.shape != first.shape:
            raise ValueError(f"{name} has shape {d.shape}, {names[0]} has {first.shape}: they must match")
        if d.dtype != first.dtype:
            raise ValueError(f"{name} holds {d.dtype}, {names[0]} holds {first.dtype}: they must match")
    return first


def is_kernel(func):
    return isinstance(func, ExternalFunction)


def kernel_arg_types(func):
    types = func.arg_types
    return list(types() if callable(types) else types)


def kernel_tile_size(func, index=0):
    """The element count of the kernel's array argument `index`."""
    types = kernel_arg_types(func)
    if index >= len(types) or typing.get_origin(types[index]) is not np.ndarray:
        raise TypeError(f"kernel '{func.name}': argument {index} is not an array type, so it gives no tile size")
    shape, _ = array_type(types[index], f"kernel '{func.name}' argument {index}")
    return int(np.prod(shape))


def split_params(func, params, first):
    """The kernel's parameters after its first `first` arguments: a list of
    (position, value, Desc or None); a Desc for array parameters, which
    reach the worker through an ObjectFifo, None for scalars."""
    types = kernel_arg_types(func)[first:]
    if len(params) > len(types):
        raise TypeError(f"kernel '{func.name}' takes {len(types)} parameters after its tiles, got {len(params)}")
    out = []
    for i, (p, t) in enumerate(zip(params, types)):
        if typing.get_origin(t) is np.ndarray:
            out.append((i, p, describe(p, f"parameter {i} of kernel '{func.name}'")))
        else:
            out.append((i, p, None))
    return out


def check_tiles(count, tile, what):
    if tile < 1 or count % tile:
        raise ValueError(f"{what}: {count} elements are not a whole number of {tile}-element tiles")
    return count // tile


def parallel_columns():
    """Columns a parallel algorithm spreads over: the current device's
    (`cols`, as IRON's device reports it), else 8 on a grid as wide as
    NPU2's array and 4 (NPU1's) on a narrower one."""
    dev = device_mod.get_current_device()
    cols = getattr(dev, "cols", None)
    if isinstance(cols, int) and cols > 0:
        return cols
    return 8 if dev.grid.x >= 8 else 4
