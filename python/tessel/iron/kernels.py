"""Ready-made external kernels, as IRON's aie.iron.kernels provides them:
passthrough (a copy) and scale (vector times a scalar factor)."""

import numpy as np

from .kernel import ExternalFunction
from .types import c_type


def passthrough(tile_size, dtype=np.uint8):
    """passThroughLine(in, out, n): copies n elements."""
    t = c_type(dtype)
    src = (f'extern "C" void passThroughLine({t}* in, {t}* out, int32_t n) {{\n'
           "  for (int32_t i = 0; i < n; ++i) out[i] = in[i];\n}\n")
    ty = np.ndarray[(tile_size,), np.dtype[dtype]]
    return ExternalFunction("passThroughLine", source_string=src, arg_types=[ty, ty, np.int32])


def scale(tile_size, dtype=np.int16):
    """vector_scalar_mul(in, out, factor[1], n): out = in * factor (wrapping)."""
    t = c_type(dtype)
    src = (f'extern "C" void vector_scalar_mul({t}* in, {t}* out, int32_t* factor, int32_t n) {{\n'
           f"  for (int32_t i = 0; i < n; ++i) out[i] = {t}(in[i] * factor[0]);\n}}\n")
    ty = np.ndarray[(tile_size,), np.dtype[dtype]]
    return ExternalFunction("vector_scalar_mul", source_string=src,
                            arg_types=[ty, ty, np.ndarray[(1,), np.dtype[np.int32]], np.int32])
