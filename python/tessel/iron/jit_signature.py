"""iron.jit's reading of a generator's signature: which parameters are
tensors (In / Out / InOut, or unmarked positional ones), DispatchTime
scalars (keyword-only) and CompileTime configuration, with the errors for a
signature the spec does not allow."""

import dataclasses
import inspect
import typing
from typing import Any, Callable

import numpy as np

from .._check import describe
from .markers import (
    CompileTime,
    CompileTimeAnnotation,
    DispatchTime,
    DispatchTimeAnnotation,
    InOut,
    TensorArgument,
    type_name,
)
from .tensor import Tensor

TENSOR, COMPILE, DISPATCH = "tensor", "compile", "dispatch"
NO_VALUE = inspect.Parameter.empty


@dataclasses.dataclass(frozen=True)
class Param:
    """One generator parameter: `role` is TENSOR, COMPILE or DISPATCH;
    `marker` the direction class, CompileTimeAnnotation or the NumPy dtype."""

    name: str
    role: str
    marker: Any
    default: Any
    positional_only: bool
    annotated: bool

    def describe(self) -> str:
        if self.role == TENSOR:
            return f"{self.name} ({self.marker.__name__})"
        if self.role == DISPATCH:
            return f"{self.name} (DispatchTime[{type_name(self.marker)}])"
        return f"{self.name} ({self.marker!r})"


def read_signature(generator: Callable, name: str) -> tuple:
    try:
        signature = inspect.signature(generator, eval_str=True)
    except Exception as error:
        raise TypeError(f"{name}: cannot read the generator's signature: {error}") from None
    params = []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            raise TypeError(f"{name}: a jit generator takes named parameters only; `{star}{p.name}` is not supported")
        params.append(classify(p, name))
    return tuple(params)


def classify(p: inspect.Parameter, name: str) -> Param:
    annotation = p.annotation
    positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    only = p.kind == p.POSITIONAL_ONLY
    if isinstance(annotation, type) and issubclass(annotation, TensorArgument):
        if annotation is TensorArgument:
            raise TypeError(f"{name}: annotate tensor parameter `{p.name}` with In, Out or InOut")
        if not positional:
            raise TypeError(
                f"{name}: tensor parameter `{p.name}` ({annotation.__name__}) must be positional; keyword-only "
                f"parameters (after `*`) are for DispatchTime and CompileTime values"
            )
        if p.default is not NO_VALUE:
            raise TypeError(
                f"{name}: tensor parameter `{p.name}` ({annotation.__name__}) cannot have a default: every call "
                f"binds every tensor"
            )
        return Param(p.name, TENSOR, annotation, NO_VALUE, only, True)
    if annotation is DispatchTime:
        raise TypeError(f"{name}: DispatchTime parameter `{p.name}` needs its type: DispatchTime[np.int32]")
    if isinstance(annotation, DispatchTimeAnnotation):
        if p.kind != p.KEYWORD_ONLY:
            raise TypeError(
                f"{name}: DispatchTime parameter `{p.name}` must be keyword-only, even when defaulted or "
                f"specialized: put it after `*` (def {name.rsplit('.', 1)[-1]}(..., *, {p.name}: "
                f"DispatchTime[{type_name(annotation.dtype)}]))"
            )
        default = p.default
        if default is not NO_VALUE:
            default = dispatch_integer(default, annotation.dtype, f"{name}: the default of `{p.name}`")
        return Param(p.name, DISPATCH, annotation.dtype, default, False, True)
    if annotation is CompileTime:
        return Param(p.name, COMPILE, CompileTimeAnnotation(Any), p.default, only, True)
    if isinstance(annotation, CompileTimeAnnotation):
        return Param(p.name, COMPILE, annotation, p.default, only, True)
    # No marker: a positional parameter without a default, unannotated or
    # annotated as an array, is a tensor; anything else is configuration.
    if positional and p.default is NO_VALUE and array_annotation(annotation):
        return Param(p.name, TENSOR, InOut, NO_VALUE, only, False)
    return Param(p.name, COMPILE, CompileTimeAnnotation(annotation if annotation is not NO_VALUE else Any),
                  p.default, only, False)


def array_annotation(annotation: Any) -> bool:
    if annotation is NO_VALUE:
        return True
    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, (np.ndarray, Tensor))


def dispatch_integer(value: Any, dtype: type, what: str) -> int:
    """value as an int in dtype's range; TypeError for non-integers (bool
    included), ValueError when out of range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{what} must be an integer (int or NumPy integer) for {type_name(dtype)}, got {describe(value)}"
        )
    v = int(value)
    info = np.iinfo(dtype)
    if v < info.min or v > info.max:
        raise ValueError(f"{what} = {v} is out of range for {type_name(dtype)} ({info.min}..{info.max})")
    return v
