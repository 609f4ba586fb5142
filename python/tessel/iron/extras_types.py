"""The element type names of aie.extras.types (`from aie.extras import
types as T`; T.i32, T.bf16, ...) as the numpy types tessel.iron takes."""

import numpy as np

i8, i16, i32, i64 = np.int8, np.int16, np.int32, np.int64
ui8, ui16, ui32, ui64 = np.uint8, np.uint16, np.uint32, np.uint64
f32, f64 = np.float32, np.float64


def __getattr__(name):
    if name == "bf16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    raise AttributeError(f"aie.extras.types has no {name!r} here: tessel gives the element type names i8 ... i64, "
                         "ui8 ... ui64, f32, f64 and bf16")


__all__ = ["i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f32", "f64"]  # and bf16, on first use
