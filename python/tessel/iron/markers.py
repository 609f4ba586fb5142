"""Annotations for the parameters of an iron.jit generator.

    @iron.jit
    def copy(a: iron.In, b: iron.Out, *,
             count: iron.DispatchTime[np.int32] = 3,
             tile_size: iron.CompileTime[int] = 256):
        ...

Three kinds of input, kept apart as the jit keeps them apart:

- `In`, `Out`, `InOut`: a host tensor, bound to the design on every call
  (host to device, device to host, or both). Its shape and dtype are part of
  the cache key.
- `CompileTime[T]` (also spelled `Compile[T]`): configuration that shapes the
  generated design; every distinct value is a distinct cache entry.
- `DispatchTime[T]`: an integer scalar that may change on every call without
  rebuilding the design. T must be a sized NumPy integer type.

The markers are annotations only: none of them is ever instantiated.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "In",
    "Out",
    "InOut",
    "TensorArgument",
    "CompileTime",
    "Compile",
    "CompileTimeAnnotation",
    "DispatchTime",
    "DispatchTimeAnnotation",
    "integer_scalar_type",
    "type_name",
]

_INTEGER_TYPE_LIST = "np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64"
_ABSTRACT_INTEGER_TYPES = (np.integer, np.signedinteger, np.unsignedinteger)


def type_name(value: Any) -> str:
    """How a type reads in a message: `np.int32` for NumPy scalar types, the
    plain name for builtins, module.qualname for anything else."""
    if value is Any:
        return "Any"
    if isinstance(value, type):
        if issubclass(value, np.generic):
            return f"np.{value.__name__}"
        if value.__module__ == "builtins":
            return value.__name__
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, np.dtype):
        return f"np.dtype('{value.name}')"
    return repr(value)


class _AnnotationOnly:
    """Base of the markers: they annotate parameters and are never values."""

    def __new__(cls, *args, **kwargs):
        name = cls.__name__
        raise TypeError(f"iron.{name} is a parameter annotation, not a value: write `name: iron.{name}`")


class TensorArgument(_AnnotationOnly):
    """A host tensor parameter; use one of its three directions below."""

    to_device: ClassVar[bool] = False
    from_device: ClassVar[bool] = False


class In(TensorArgument):
    """A tensor the design reads: copied host to device on every call."""

    to_device = True


class Out(TensorArgument):
    """A tensor the design writes: copied device to host on every call."""

    from_device = True


class InOut(TensorArgument):
    """A tensor the design reads and writes."""

    to_device = True
    from_device = True


@dataclass(frozen=True)
class CompileTimeAnnotation:
    """What `CompileTime[T]` evaluates to. `type` is T, unchecked: any value
    that can be part of a cache key may be compile-time configuration."""

    type: Any

    def __repr__(self) -> str:
        return f"CompileTime[{type_name(self.type)}]"


class CompileTime(_AnnotationOnly):
    """`CompileTime[T]`: a value that shapes the generated design. Each
    distinct value is its own cache entry and its own build."""

    def __class_getitem__(cls, value_type: Any) -> CompileTimeAnnotation:
        return CompileTimeAnnotation(value_type)


Compile = CompileTime


def integer_scalar_type(value_type: Any, what: str) -> type:
    """value_type if it is a concrete NumPy integer scalar type (np.int8 ..
    np.uint64); otherwise a TypeError that says what `what` needs."""
    if (
        isinstance(value_type, type)
        and issubclass(value_type, np.integer)
        and value_type not in _ABSTRACT_INTEGER_TYPES
    ):
        return value_type
    if value_type is int:
        reason = "Python int has no fixed width (use np.int32 or np.int64)"
    elif value_type is bool or value_type is np.bool_:
        reason = "booleans are rejected"
    elif isinstance(value_type, type) and issubclass(value_type, (float, complex, np.inexact)):
        reason = "floating-point types are rejected"
    elif value_type in _ABSTRACT_INTEGER_TYPES:
        reason = f"{type_name(value_type)} is abstract; name a sized type"
    else:
        reason = f"got {type_name(value_type)}"
    raise TypeError(f"{what}: T must be a NumPy integer scalar type ({_INTEGER_TYPE_LIST}); {reason}")


@dataclass(frozen=True)
class DispatchTimeAnnotation:
    """What `DispatchTime[T]` evaluates to; `dtype` is the NumPy integer
    scalar type T (np.int32, ...)."""

    dtype: type

    def __repr__(self) -> str:
        return f"DispatchTime[{type_name(self.dtype)}]"


class DispatchTime(_AnnotationOnly):
    """`DispatchTime[T]`: an integer scalar given on each call; changing it
    re-runs the design's command-stream builder, not the generator. T is a
    NumPy integer scalar type; the parameter must be keyword-only."""

    def __class_getitem__(cls, value_type: Any) -> DispatchTimeAnnotation:
        return DispatchTimeAnnotation(integer_scalar_type(value_type, f"DispatchTime[{type_name(value_type)}]"))
