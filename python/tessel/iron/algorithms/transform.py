"""transform, transform_binary and their parallel forms: output = func
applied to the inputs, tile by tile. A Python function is applied to each
element in the worker's body; an ExternalFunction is called once per tile
with the tiles, then its further parameters (scalars as constants, arrays
through their own ObjectFifos, acquired once around the tile loop), then
(in the typed and keyword spellings) the tile's element count.

IRON has spelled these three ways, all accepted:
- func first, tensors after: transform(func, input, output, *params)
  (the tile is the kernel's first argument's, or 16; the kernel gets no count),
  or func first and one tensor type for all: transform(func, tensor_ty,
  tile_size=32), as the _typed forms;
- func last: transform(input, output, func);
- keywords: transform(input, output, func=..., N=..., dtype=..., tile_size=16),
  as iron.jit(transform)(input, output, func=...) calls it;
and the _typed forms take one tensor type for every tensor:
transform_typed(func, tensor_ty, *params, tile_size=16)."""

import numpy as np

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


def _tiles(func, in_h, out_h, count, n, call):
    """A worker's loop: `count` times, one object of every input and of the
    output, func applied to them."""
    for _ in range_(count):
        elems = [h.acquire(1) for h in in_h]
        y = out_h.acquire(1)
        _apply(func, elems, y, n, call)
        for h in in_h:
            h.release(1)
        out_h.release(1)


def _is_func(x):
    return is_kernel(x) or (callable(x) and not isinstance(x, type) and not hasattr(x, "__origin__")
                            and not hasattr(x, "shape"))


def parse(args, kwargs, inputs, what):
    """(func, [input descs], output desc, params, tile or None, count) of
    one of IRON's spellings; count says whether a kernel gets the tile's
    element count after its parameters."""
    func = kwargs.pop("func", None)
    n_expected, dtype = kwargs.pop("N", None), kwargs.pop("dtype", None)
    tile = kwargs.pop("tile_size", None)
    kwargs.pop("trace_size", None)
    if func is not None:
        tensors, params, count = list(args[:inputs + 1]), list(args[inputs + 1:]), True
    elif args and _is_func(args[0]):
        func, tensors, params, count = args[0], list(args[1:inputs + 2]), list(args[inputs + 2:]), False
    elif len(args) == inputs + 2 and _is_func(args[-1]):
        func, tensors, params, count = args[-1], list(args[:-1]), [], False
    else:
        raise TypeError(f"{what}: give func first (func, tensors..., params...), last (tensors..., func) or as "
                        f"func=...; got {len(args)} positional arguments and no function among them")
    if kwargs:
        raise TypeError(f"{what}() got unexpected keyword arguments {', '.join(sorted(kwargs))}")
    if len(tensors) == 1:  # one tensor type for every tensor (the typed spelling)
        tensors, params, count = tensors * (inputs + 1), params, True
    if len(tensors) != inputs + 1:
        raise TypeError(f"{what}: expected {inputs} input tensor(s) and an output tensor, got {len(tensors)} tensors")
    names = [f"input {i}" for i in range(inputs)] + ["the output"]
    descs = [describe(t, n) for t, n in zip(tensors, names)]
    desc = same_descs(descs, names)
    if n_expected is not None and desc.size != int(n_expected):
        raise ValueError(f"{what}: N={n_expected}, but the tensors hold {desc.size} elements")
    if dtype is not None and Desc((1,), dtype).dtype != desc.dtype:
        raise ValueError(f"{what}: dtype={dtype}, but the tensors hold {desc.dtype}")
    return func, descs[:inputs], descs[inputs], params, tile, count


def _tile_of(func, tile, what):
    if is_kernel(func):
        n = kernel_tile_size(func)
        if tile is not None and tile != n:
            raise ValueError(f"{what}: tile_size {tile} does not match kernel '{func.name}', whose tiles hold {n} "
                             "elements")
        return n
    if not callable(func):
        raise TypeError(f"{what}: func must be a Python function or an ExternalFunction, got {func!r}")
    return DEFAULT_TILE if tile is None else int(tile)


def tiled(func, ins, out, params, tile, count, what, in_place=False):
    """One worker applying func tile by tile (see the module's docstring).
    in_place: the output drains back into the one input's host buffer
    (for_each), so the sequence takes that buffer once."""
    kernel = is_kernel(func)
    if not kernel and params:
        raise TypeError(f"{what}: parameters go to an ExternalFunction; a Python function takes only the elements")
    n = _tile_of(func, tile, what)
    tiles = check_tiles(out.size, n, what)
    k = len(ins)
    tile_ty = Desc((n,), out.dtype).type()
    of_ins = [ObjectFifo(tile_ty, name=f"in{i}") for i in range(k)]
    of_out = ObjectFifo(tile_ty, name="out")
    split = split_params(func, params, k + 1) if kernel else []
    arrays = [(i, d) for i, _, d in split if d is not None]
    of_params = [ObjectFifo(d.type(), name=f"param{i}") for i, d in arrays]

    def core_body(*args):
        in_h, param_h, out_h = args[:k], args[k:k + len(of_params)], args[k + len(of_params)]
        held = iter([h.acquire(1) for h in param_h])  # array parameters: held for the whole call
        call = [next(held) if d is not None else p for _, p, d in split] + ([n] if kernel and count else [])
        _tiles(func, in_h, out_h, tiles, n, call)
        for h in param_h:
            h.release(1)

    worker = Worker(core_body, [h.cons() for h in of_ins] + [p.cons() for p in of_params] + [of_out.prod()] +
                    ([func] if kernel else []))

    outs = 0 if in_place else 1  # host buffers of the output besides the inputs'

    def sequence(*args):
        bufs, handles = args[:k + outs + len(arrays)], args[k + outs + len(arrays):]
        for h, b in zip(handles[:k], bufs[:k]):
            h.fill(b)
        for h, b in zip(handles[k + 1:], bufs[k + outs:]):
            h.fill(b)
        handles[k].drain(bufs[0] if in_place else bufs[k], wait=True)

    types = [d.flat_type() for d in ins] + [out.flat_type()] * outs + [d.flat_type() for _, d in arrays]
    handles = [h.prod() for h in of_ins] + [of_out.cons()] + [p.prod() for p in of_params]
    rt = Runtime(sequence, types + handles)
    return Program(device_mod.get_current_device(), rt, workers=[worker]).resolve_program(SequentialPlacer())


def parallel(func, ins, out, params, tile, count, what, num_channels=1):
    """One worker per column (and channel), each applying func to its
    contiguous share of the tensors, tile by tile."""
    kernel = is_kernel(func)
    if not kernel and params:
        raise TypeError(f"{what}: parameters go to an ExternalFunction; a Python function takes only the elements")
    if num_channels not in (1, 2):
        raise ValueError(f"{what}: num_channels must be 1 or 2, got {num_channels!r}")
    n = _tile_of(func, tile, what)
    columns = parallel_columns()
    lanes = columns * num_channels
    rounds = check_tiles(out.size, n * lanes, what)
    share = out.size // lanes
    k = len(ins)
    tile_ty = Desc((n,), out.dtype).type()
    of_ins = [[ObjectFifo(tile_ty, name=f"in{i}_{w}") for w in range(lanes)] for i in range(k)]
    of_outs = [ObjectFifo(tile_ty, name=f"out_{w}") for w in range(lanes)]
    split = split_params(func, params, k + 1) if kernel else []
    if any(d is not None for _, _, d in split):
        raise NotImplementedError(f"{what}: array parameters of a parallel transform are not supported; pass "
                                  "scalars, or use transform")
    call = [p for _, p, _ in split] + ([n] if kernel and count else [])

    def core_body(*args):
        _tiles(func, args[:k], args[k], rounds, n, call)

    workers = [Worker(core_body, [of_ins[i][w].cons() for i in range(k)] + [of_outs[w].prod()] +
                      ([func] if kernel else [])) for w in range(lanes)]
    taps = [TensorAccessPattern((1, out.size), share * w, [1, 1, 1, share], [0, 0, 0, 1]) for w in range(lanes)]

    def sequence(*args):
        bufs, handles = args[:k + 1], args[k + 1:]
        for w in range(lanes):
            for i in range(k):
                handles[i * lanes + w].fill(bufs[i], taps[w])
        for w in range(lanes):
            handles[k * lanes + w].drain(bufs[k], taps[w], wait=True)

    handles = [of_ins[i][w].prod() for i in range(k) for w in range(lanes)] + [o.cons() for o in of_outs]
    rt = Runtime(sequence, [d.flat_type() for d in ins] + [out.flat_type()] + handles)
    return Program(device_mod.get_current_device(), rt, workers=workers).resolve_program(SequentialPlacer())


def run_if_called_on_data(design, args):
    """IRON's algorithms were jit functions once: called with tensors, outside
    a jit, they ran. So they do here (the tensors among `args`, in order, are
    the design's buffers); inside a jit generator the jit runs the design."""
    from .. import dispatch_time

    if dispatch_time.active_generation() is not None:
        return design
    data = [a for a in args if isinstance(a, np.ndarray) or type(a).__name__ == "Tensor"]
    if data and len(data) == len(design.spec["buffer_types"]):
        design(*[a.numpy() if hasattr(a, "numpy") else a for a in data])
    return design


def transform(*args, **kwargs):
    """output = func(input), tile by tile."""
    return run_if_called_on_data(tiled(*parse(args, dict(kwargs), 1, "transform"), "transform"), args)


def transform_binary(*args, **kwargs):
    """output = func(first, second), tile by tile."""
    return run_if_called_on_data(tiled(*parse(args, dict(kwargs), 2, "transform_binary"), "transform_binary"), args)


def transform_parallel(*args, num_channels=1, **kwargs):
    """transform spread over every column of the device (one worker each,
    two with num_channels=2), each on a contiguous share."""
    design = parallel(*parse(args, dict(kwargs), 1, "transform_parallel"), "transform_parallel", num_channels)
    return run_if_called_on_data(design, args)


def transform_parallel_binary(*args, num_channels=1, **kwargs):
    design = parallel(*parse(args, dict(kwargs), 2, "transform_parallel_binary"), "transform_parallel_binary",
                      num_channels)
    return run_if_called_on_data(design, args)


def _typed(func, tensor_ty, inputs, what):
    desc = describe(tensor_ty, f"{what} tensor type")
    return func, [desc] * inputs, desc


def transform_typed(func, tensor_ty, *params, tile_size=16, trace_size=0):
    func, ins, out = _typed(func, tensor_ty, 1, "transform_typed")
    return tiled(func, ins, out, list(params), tile_size, True, "transform_typed")


def transform_binary_typed(func, tensor_ty, *params, tile_size=16, trace_size=0):
    func, ins, out = _typed(func, tensor_ty, 2, "transform_binary_typed")
    return tiled(func, ins, out, list(params), tile_size, True, "transform_binary_typed")


def transform_parallel_typed(func, tensor_ty, *params, tile_size=16, trace_size=0, num_channels=1,
                             pass_size_to_kernel=True):
    func, ins, out = _typed(func, tensor_ty, 1, "transform_parallel_typed")
    return parallel(func, ins, out, list(params), tile_size, pass_size_to_kernel, "transform_parallel_typed",
                    num_channels)


def transform_parallel_binary_typed(func, tensor_ty, *params, tile_size=16, trace_size=0, num_channels=1,
                                    pass_size_to_kernel=True):
    func, ins, out = _typed(func, tensor_ty, 2, "transform_parallel_binary_typed")
    return parallel(func, ins, out, list(params), tile_size, pass_size_to_kernel,
                    "transform_parallel_binary_typed", num_channels)
