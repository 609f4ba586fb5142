"""The few arith operations IRON's examples call on values of a core_fn
(`import aie.extras.dialects.arith as arith`): index_cast, a value converted
to another integer type. Every other arithmetic is Python's operators on the
values (values.py)."""

import numpy as np

from .errors import IronRuntimeError
from .values import INDEX, Value, _emit, kind_of


def index_cast(value, to=None, **_):
    """`value` (an integer or index value) as the integer type `to` (a numpy
    dtype, or what aie.helpers.util.np_dtype_to_mlir_type gives); to=None: index."""
    kind = INDEX if to is None else kind_of(np.dtype(to))
    if not kind.integer:
        raise TypeError(f"index_cast converts between integer types, not to {kind.name}")
    if not isinstance(value, Value):
        raise IronRuntimeError("arith.index_cast takes a value of a core_fn (a range_ index or an element read)")
    if not value.kind.integer:
        raise TypeError(f"index_cast converts integer values, not a {value.kind.name} value")
    return _emit(value.t, kind, f"{kind.ctype}({value.c_expr()})")


__all__ = ["index_cast"]
