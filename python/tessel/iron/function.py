"""Kernels written in Python (IRON's `@func` from aie.helpers.dialects.ext.func):

    @func
    def passthrough_fn(input: line_type, output: line_type, width: np.int32):
        for i in range_(width):
            output[i] = input[i]

A core_fn calls it with acquired objects and numbers; its body is traced
into the worker's kernel where it is called (as the body of a core_fn is),
each array argument seen as the annotated type (same element type, same
element count), so reports name the function's own lines."""

import inspect
import typing

import numpy as np

from . import trace
from .errors import IronRuntimeError
from .types import array_type, element_count
from .values import Value, _emit, kind_of, operand


class _ObjectView:
    """What an array argument looks like to the function's body."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


class PythonKernel:
    def __init__(self, fn):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"@func decorates a Python function, got {fn!r}")
        self.fn = fn
        self.name = fn.__name__
        self.signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn) if fn.__annotations__ else {}
        self.params = [(p.name, hints.get(p.name)) for p in self.signature.parameters.values()]

    def __call__(self, *args):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"Python kernel '{self.name}' is called inside a Worker's core_fn")
        if len(args) != len(self.params):
            raise TypeError(f"Python kernel '{self.name}' takes {len(self.params)} arguments, got {len(args)}")
        passed = [self._argument(i, a, name, ty) for i, (a, (name, ty)) in enumerate(zip(args, self.params))]
        t.roots.add(self.fn.__code__)
        t.open_block(f"/* {self.name} */")  # values of the function stay inside it
        try:
            result = self.fn(*passed)
        finally:
            t.close_block()
            t.roots.discard(self.fn.__code__)
        if result is not None:
            raise TypeError(f"Python kernel '{self.name}' returns {result!r}; kernels write their results into "
                            "their array arguments")

    def _argument(self, i, a, name, ty):
        what = f"Python kernel '{self.name}' argument {i} ({name})"
        if ty is not None and typing.get_origin(ty) is np.ndarray:
            shape, dtype = array_type(ty, what)
            if not hasattr(a, "_elements") or not hasattr(a, "expr"):
                raise TypeError(f"{what} is an array: pass an acquired object")
            if np.dtype(a.dtype) != dtype or element_count(a.shape) != element_count(shape):
                raise TypeError(f"{what}: the object holds {element_count(a.shape)} x {np.dtype(a.dtype)}, the "
                                f"function takes {element_count(shape)} x {dtype}")
            view = type(a).__new__(type(a))
            view.__dict__.update(a.__dict__)
            view.fifo = _ObjectView(shape, dtype)
            return view
        if ty is not None and isinstance(ty, type) and issubclass(ty, np.generic):
            kind = kind_of(ty)
            if isinstance(a, Value):
                return a if a.kind is kind else _cast(a, kind, what)
            operand(a, kind, what)  # fits the type
            return a
        return a


def _cast(v, kind, what):
    return _emit(trace.worker_trace(), kind, operand(v, kind, what))


def func(fn=None, **_options):
    """@func or @func(emit=..., ...): a kernel written in Python."""
    if fn is None:
        return lambda f: PythonKernel(f)
    return PythonKernel(fn)


__all__ = ["func", "PythonKernel"]
