"""for_each: func applied to a tensor in place, tile by tile (the tensor is
filled from and drained back into the same host buffer)."""

from .. import device as device_mod
from ..dataflow import ObjectFifo
from ..program import Program
from ..runtime import Runtime
from ..worker import Worker
from ._common import check_tiles, describe, is_kernel, kernel_tile_size, split_params
from ._common import Desc
from .transform import _tiles


def for_each(func, tensor, *params, tile_size=16):
    """tensor[:] = func(tensor), tile_size elements at a time. `tensor` may
    be a tensor or its type (np.ndarray[(N,), np.dtype[T]]). An
    ExternalFunction is called as func(tile_in, tile_out, *params, tile_size)."""
    desc = describe(tensor, "for_each tensor")
    kernel = is_kernel(func)
    if not kernel and not callable(func):
        raise TypeError(f"for_each: func must be a Python function or an ExternalFunction, got {func!r}")
    if not kernel and params:
        raise TypeError("for_each: parameters go to an ExternalFunction; a Python function takes only the element")
    if kernel and kernel_tile_size(func) != tile_size:
        raise ValueError(f"for_each: tile_size {tile_size} does not match kernel '{func.name}', whose tiles hold "
                         f"{kernel_tile_size(func)} elements")
    tiles = check_tiles(desc.size, tile_size, "for_each")
    tile_ty = Desc((tile_size,), desc.dtype).type()
    of_in, of_out = ObjectFifo(tile_ty, name="in"), ObjectFifo(tile_ty, name="out")
    split = split_params(func, params, 2) if kernel else []
    arrays = [d for _, _, d in split if d is not None]
    of_params = [ObjectFifo(d.type(), name=f"param{i}") for i, d in enumerate(arrays)]

    def core_body(in_h, out_h, *rest):
        of_p = rest[:len(of_params)]
        held = iter([h.acquire(1) for h in of_p])
        call = [next(held) if d is not None else p for _, p, d in split] + ([tile_size] if kernel else [])
        _tiles(func, [in_h], out_h, tiles, tile_size, call)
        for h in of_p:
            h.release(1)

    worker = Worker(core_body, [of_in.cons(), of_out.prod(), *[p.cons() for p in of_params]] + ([func] if kernel else []))

    def sequence(data, *rest):
        bufs, (in_h, out_h, *param_h) = rest[:len(arrays)], rest[len(arrays):]
        in_h.fill(data)
        for h, b in zip(param_h, bufs):
            h.fill(b)
        out_h.drain(data, wait=True)

    types = [desc.flat_type()] + [d.flat_type() for d in arrays]
    rt = Runtime(sequence, types + [of_in.prod(), of_out.cons()] + [p.prod() for p in of_params])
    return Program(device_mod.get_current_device(), rt, workers=[worker]).resolve_program()


for_each_typed = for_each
