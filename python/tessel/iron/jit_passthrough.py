"""iron.jit for generators written for IRON's older jit, which passed the
call's arguments straight to the generator: any generator given
`iron.jit(is_placed=...)` (that option is the older jit's), a generator
with no parameters at all (its Runtime declares the buffers), or one taking
`*args` with no In/Out/InOut/CompileTime/DispatchTime marker on any
parameter (such as tessel.iron.algorithms.transform(func, input, output,
*params)).

Such a generator is called with the call's positional and keyword arguments
as given (none, for a generator without parameters). The positional
arguments that are tensors (tessel.iron.Tensor or numpy arrays) are the
design's runtime buffers, in order (`args[i]`, InOut); every other argument
is configuration and part of the cache key, as a CompileTime value is.
"""

import inspect
from typing import Any, Callable

import numpy as np

from .jit_signature import NO_VALUE, TENSOR, Param
from .markers import CompileTime, CompileTimeAnnotation, DispatchTime, DispatchTimeAnnotation, InOut, TensorArgument
from .tensor import Tensor

__all__ = ["is_passthrough", "bind", "tensor_params", "call"]


def _marked(annotation: Any) -> bool:
    return (annotation in (CompileTime, DispatchTime) or isinstance(annotation, (CompileTimeAnnotation,
                                                                                  DispatchTimeAnnotation))
            or (isinstance(annotation, type) and issubclass(annotation, TensorArgument)))


def is_passthrough(generator: Callable) -> bool:
    """Whether `generator` is called the older way (the module docstring)."""
    try:
        params = list(inspect.signature(generator).parameters.values())
    except (TypeError, ValueError):
        return False
    if not params:
        return True
    return (any(p.kind == p.VAR_POSITIONAL for p in params)
            and not any(_marked(p.annotation) for p in params))


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def _name(i: int) -> str:
    return f"args[{i}]"


def bind(args: tuple, kwargs: dict) -> tuple:
    """({argument name: value as passed}, {tensor name: its array}, {configuration name: value})."""
    given = {_name(i): v for i, v in enumerate(args)}
    arrays = {_name(i): (v.numpy() if isinstance(v, Tensor) else v) for i, v in enumerate(args) if _is_tensor(v)}
    config = {_name(i): v for i, v in enumerate(args) if not _is_tensor(v)}
    config.update(kwargs)
    return given, arrays, config


def tensor_params(arrays: dict) -> list:
    return [Param(name, TENSOR, InOut, NO_VALUE, True, True) for name in arrays]


def call(generator: Callable, given: dict, config: dict) -> Any:
    """The generator called with the call's arguments (none when it has no parameters)."""
    if not inspect.signature(generator).parameters:
        return generator()
    positional = [given[_name(i)] for i in range(len(given))]
    return generator(*positional, **{k: v for k, v in config.items() if not k.startswith("args[")})
