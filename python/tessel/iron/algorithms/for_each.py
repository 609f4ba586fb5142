"""for_each: func applied to a tensor in place, tile by tile (the tensor is
filled from and drained back into the same host buffer)."""

from ._common import describe
from .transform import tiled


def for_each(func, tensor, *params, tile_size=16):
    """tensor[:] = func(tensor), tile_size elements at a time. `tensor` may
    be a tensor or its type (np.ndarray[(N,), np.dtype[T]]). An
    ExternalFunction is called as func(tile_in, tile_out, *params, tile_size)."""
    desc = describe(tensor, "for_each tensor")
    return tiled(func, [desc], desc, list(params), tile_size, True, "for_each", in_place=True)


for_each_typed = for_each
