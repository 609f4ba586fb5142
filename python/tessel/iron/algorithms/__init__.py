"""aie.iron.algorithms: whole designs from one function, built on the same
pieces a hand-written design uses (ObjectFifos, a Worker whose body is
traced, a Runtime filling and draining). Each returns the resolved design;
iron.jit wraps them as it wraps any generator:

    iron.jit(is_placed=False)(transform)(lambda a: a + 1, input, output)

A Python function is applied element by element inside the worker's body
(values.py: arith's rules); an ExternalFunction is called once per tile."""

from .for_each import for_each, for_each_typed
from .reduce import reduce, reduce_typed
from .transform import (
    transform,
    transform_binary,
    transform_binary_typed,
    transform_parallel,
    transform_parallel_binary,
    transform_parallel_binary_typed,
    transform_parallel_typed,
    transform_typed,
)

__all__ = [
    "for_each", "for_each_typed", "reduce", "reduce_typed", "transform", "transform_binary",
    "transform_binary_typed", "transform_parallel", "transform_parallel_binary", "transform_parallel_binary_typed",
    "transform_parallel_typed", "transform_typed",
]
