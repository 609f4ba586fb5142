"""transform, transform_binary and their parallel forms: output = func
applied to the inputs, tile by tile. A Python function is applied to each
element in the worker's body; an ExternalFunction is called once per tile
with the tiles, then its further parameters (scalars as constants, arrays
through their own ObjectFifos, acquired once around the tile loop)."""

from .. import device as device_mod
from ..controlflow import range_
from ..dataflow import ObjectFifo
from ..placement import SequentialPlacer
from ..program import Program
from ..runtime import Runtime
from ..taps import TensorAccessPattern
from ..worker import Worker
from ._common import (
    Desc,
    check_tiles,
    describe,
    is_kernel,
    kernel_tile_size,
    parallel_columns,
    same_descs,
    split_params,
)

DEFAULT_TILE = 16


def _apply(func, ins, out, n, params=()):
    """One tile: the kernel call, or func on each element."""
    if is_kernel(func):
        func(*ins, out, *params)
    else:
        for j in range_(n):
            out[j] = func(*[e[j] for e in ins])


def _tiled(func, inputs, output, params, what):
    names = [f"input {i}" for i in range(len(inputs))] + ["the output"]
    desc = same_descs([describe(t, n) for t, n in zip(list(inputs) + [output], names)], names)
    kernel = is_kernel(func)
    if not kernel and params:
        raise TypeError(f"{what}: parameters go to an ExternalFunction; a Python function takes only the elements")
    if not kernel and not callable(func):
        raise TypeError(f"{what}: func must be a Python function or an ExternalFunction, got {func!r}")
    n = kernel_tile_size(func) if kernel else DEFAULT_TILE
    tiles = check_tiles(desc.size, n, what)
    k = len(inputs)
    tile_ty = describe_tile(desc, n)
    of_ins = [ObjectFifo(tile_ty, name=f"in{i}") for i in range(k)]
    of_out = ObjectFifo(tile_ty, name="out")
    split = split_params(func, params, k + 1) if kernel else []
    arrays = [(i, d) for i, _, d in split if d is not None]
    of_params = [ObjectFifo(d.type(), name=f"param{i}") for i, d in arrays]

    def core_body(*args):
        ins, of_p, out_h = args[:k], args[k:k + len(of_params)], args[k + len(of_params)]
        held = iter([h.acquire(1) for h in of_p])  # array parameters: held for the whole call
        call = [next(held) if d is not None else p for _, p, d in split]
        for _ in range_(tiles):
            elems = [h.acquire(1) for h in ins]
            out = out_h.acquire(1)
            _apply(func, elems, out, n, call)
            for h in ins:
                h.release(1)
            out_h.release(1)
        for h in of_p:
            h.release(1)

    extra = [func] if kernel else []
    worker = Worker(core_body, [h.cons() for h in of_ins] + [p.cons() for p in of_params] + [of_out.prod()] + extra)

    def sequence(*args):
        bufs, handles = args[:k + 1 + len(arrays)], args[k + 1 + len(arrays):]
        for h, b in zip(handles[:k], bufs[:k]):
            h.fill(b)
        for h, b in zip(handles[k + 1:], bufs[k + 1:]):
            h.fill(b)
        handles[k].drain(bufs[k], wait=True)

    types = [desc.flat_type()] * (k + 1) + [d.flat_type() for _, d in arrays]
    handles = [h.prod() for h in of_ins] + [of_out.cons()] + [p.prod() for p in of_params]
    rt = Runtime(sequence, types + handles)
    return Program(device_mod.get_current_device(), rt, workers=[worker]).resolve_program(SequentialPlacer())


def describe_tile(desc, n):
    return Desc((n,), desc.dtype).type()


def _parallel(func, inputs, output, what):
    names = [f"input {i}" for i in range(len(inputs))] + ["the output"]
    desc = same_descs([describe(t, n) for t, n in zip(list(inputs) + [output], names)], names)
    if is_kernel(func) or not callable(func):
        raise TypeError(f"{what}: func must be a Python function applied to each element, got {func!r}")
    columns = parallel_columns()
    per_tile = DEFAULT_TILE
    rounds = check_tiles(desc.size, per_tile * columns, what)
    per_worker = desc.size // columns
    k = len(inputs)
    tile_ty = describe_tile(desc, per_tile)
    of_ins = [[ObjectFifo(tile_ty, name=f"in{i}_{c}") for c in range(columns)] for i in range(k)]
    of_outs = [ObjectFifo(tile_ty, name=f"out_{c}") for c in range(columns)]

    def core_body(*handles):
        ins, out_h = handles[:k], handles[k]
        for _ in range_(rounds):
            elems = [h.acquire(1) for h in ins]
            out = out_h.acquire(1)
            _apply(func, elems, out, per_tile)
            for h in ins:
                h.release(1)
            out_h.release(1)

    workers = [Worker(core_body, [of_ins[i][c].cons() for i in range(k)] + [of_outs[c].prod()])
               for c in range(columns)]
    taps = [TensorAccessPattern((1, desc.size), per_worker * c, [1, 1, 1, per_worker], [0, 0, 0, 1])
            for c in range(columns)]

    def sequence(*args):
        bufs, handles = args[:k + 1], args[k + 1:]
        for c in range(columns):
            for i in range(k):
                handles[i * columns + c].fill(bufs[i], taps[c])
        for c in range(columns):
            handles[k * columns + c].drain(bufs[k], taps[c], wait=True)

    handles = [of_ins[i][c].prod() for i in range(k) for c in range(columns)] + [o.cons() for o in of_outs]
    rt = Runtime(sequence, [desc.flat_type()] * (k + 1) + handles)
    return Program(device_mod.get_current_device(), rt, workers=workers).resolve_program(SequentialPlacer())


def transform(func, input, output, *params):
    """output = func(input), tile by tile (16 elements, or the kernel's tile)."""
    return _tiled(func, [input], output, params, "transform")


def transform_binary(func, first, second, output, *params):
    """output = func(first, second), tile by tile."""
    return _tiled(func, [first, second], output, params, "transform_binary")


def transform_parallel(func, input, output):
    """transform spread over 4 columns (8 on an NPU2-wide grid), one worker each."""
    return _parallel(func, [input], output, "transform_parallel")


def transform_parallel_binary(func, first, second, output):
    return _parallel(func, [first, second], output, "transform_parallel_binary")


# The _typed forms take tensor types (np.ndarray[(N,), np.dtype[T]]) where
# the plain ones take tensors; both accept either here.
transform_typed = transform
transform_binary_typed = transform_binary
transform_parallel_typed = transform_parallel
transform_parallel_binary_typed = transform_parallel_binary
