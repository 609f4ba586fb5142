"""aie.helpers.util's helpers on numpy array types, as designs call them."""

import numpy as np

from .types import array_type


def np_ndarray_type_get_shape(t):
    return array_type(t, "np_ndarray_type_get_shape")[0]


def np_ndarray_type_get_dtype(t):
    return array_type(t, "np_ndarray_type_get_dtype")[1]


def np_dtype_to_mlir_type(dtype):
    """The element type a core_fn value converts to (arith.index_cast(to=...)):
    here, the numpy dtype itself."""
    return np.dtype(dtype)


__all__ = ["np_dtype_to_mlir_type", "np_ndarray_type_get_dtype", "np_ndarray_type_get_shape"]
