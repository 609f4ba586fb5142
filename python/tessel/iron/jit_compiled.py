"""iron.jit's built designs: CompiledDesign (one build and the tensors it
was built for, called once per dispatch) and the checks a call's tensors
and a generator's result go through."""

import dataclasses
from typing import Any

import numpy as np

from .._check import describe
from .jit_signature import NO_VALUE, Param, dispatch_integer
from .markers import type_name
from .tensor import Tensor

__all__ = ["CompiledDesign", "TensorSpec", "host_array", "missing_dispatch", "check_design"]


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A tensor parameter as the design was built for it."""

    name: str
    direction: type
    shape: tuple
    dtype: np.dtype
    element_count: int


class CompiledDesign:
    """One built design and the tensors it was built for. Calling it binds
    tensors (checked against the element counts and dtypes they had at
    generation) and DispatchTime values, then runs one dispatch. Shared by
    every call whose key matches."""

    def __init__(self, name: str, design: Any, tensors: tuple, dispatch: tuple, key: str):
        self.name = name
        self.design = design
        self._tensors = tensors  # TensorSpec per tensor parameter, in signature order
        self._dispatch = dispatch  # Param per DispatchTime parameter still dynamic
        self.key = key

    @property
    def dispatch_params(self) -> list:
        """Names of the DispatchTime parameters each call supplies."""
        return [p.name for p in self._dispatch]

    @property
    def tensor_shapes(self) -> list:
        """(name, shape, dtype) of each tensor the design was built for."""
        return [(t.name, t.shape, t.dtype) for t in self._tensors]

    def __repr__(self) -> str:
        tensors = ", ".join(f"{t.name}: {t.direction.__name__}{list(t.shape)} {t.dtype.name}" for t in self._tensors)
        dispatch = ", ".join(p.describe() for p in self._dispatch)
        return f"<CompiledDesign {self.name}({tensors}; dispatch: {dispatch or 'none'}) key={self.key[:12]}>"

    def __call__(self, *tensors: Any, **dispatch_values: Any) -> Any:
        if len(tensors) != len(self._tensors):
            names = ", ".join(t.name for t in self._tensors)
            raise TypeError(f"{self.name}() takes {len(self._tensors)} tensor arguments ({names}), got {len(tensors)}")
        arrays = [host_array(v, t.name, self.name, annotated=True) for v, t in zip(tensors, self._tensors)]
        by_name = {p.name: p for p in self._dispatch}
        for k in dispatch_values:
            if k not in by_name:
                raise TypeError(
                    f"{self.name}: unexpected keyword argument `{k}`; the built design takes DispatchTime values "
                    f"{self.dispatch_params}"
                )
        scalars = {}
        for p in self._dispatch:
            if p.name in dispatch_values:
                scalars[p.name] = dispatch_integer(dispatch_values[p.name], p.marker, f"{self.name}: `{p.name}`")
            elif p.default is not NO_VALUE:
                scalars[p.name] = p.default
            else:
                raise TypeError(missing_dispatch(self.name, p))
        return self._run(arrays, scalars)

    def _run(self, arrays: list, scalars: dict) -> Any:
        for array, spec in zip(arrays, self._tensors):
            if array.size != spec.element_count:
                raise RuntimeError(
                    f"{self.name}: tensor argument `{spec.name}` has {array.size} elements, but the design was built "
                    f"for {spec.element_count} (shape {spec.shape} {spec.dtype.name})"
                )
            if array.dtype != spec.dtype:
                raise RuntimeError(
                    f"{self.name}: tensor argument `{spec.name}` is {array.dtype.name}, but the design was built for "
                    f"{spec.dtype.name}"
                )
        bound = []
        write_back = []  # (caller's array, contiguous copy) where the caller's array is not contiguous
        for array, spec in zip(arrays, self._tensors):
            if array.flags.c_contiguous:
                bound.append(array.reshape(spec.shape))
            else:
                staged = np.ascontiguousarray(array).reshape(spec.shape)
                bound.append(staged)
                if spec.direction.from_device:
                    write_back.append((array, staged))
        result = self.design.run(bound, scalars)
        for array, staged in write_back:
            array[...] = staged.reshape(array.shape)
        return result


def host_array(value: Any, name: str, design: str, annotated: bool) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    hint = "" if annotated else (
        f" (`{name}` has no In/Out/InOut annotation and is positional, so it is taken as a tensor; annotate it "
        f"CompileTime[...] for a value)"
    )
    raise TypeError(f"{design}: tensor argument `{name}` must be a tessel.iron.Tensor or numpy array, "
                    f"got {describe(value)}{hint}")


def missing_dispatch(design: str, p: Param) -> str:
    return (
        f"{design}: missing DispatchTime value `{p.name}` ({type_name(p.marker)}): it has no default, so pass "
        f"{p.name}=... on every call or fix it with specialize({p.name}=...)"
    )


def check_design(design: Any, expected: list, where: str):
    """TypeError unless design has the members the jit uses and its Runtime
    bound exactly the parameters in `expected`."""
    missing = [m for m in ("run", "dispatch_names", "to_dict") if not hasattr(design, m)]
    if missing or not callable(design.run):
        raise TypeError(
            f"{where} returned {describe(design)}, which has no {', '.join(missing) or 'callable run'}: a jit "
            f"generator returns the resolved design (Program(...).resolve_program())"
        )
    names = list(design.dispatch_names)
    if sorted(names) != sorted(expected) or len(set(names)) != len(names):
        raise TypeError(
            f"{where} returned a design whose Runtime binds DispatchTime parameters {names}, but the unbound "
            f"parameters are {expected}: return the design built from the Runtime that received them"
        )
