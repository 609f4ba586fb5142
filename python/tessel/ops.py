"""tessel.ops: element-wise ops on numpy arrays, run on the simulated device.

    import numpy as np, tessel.ops
    c = tessel.ops.add(a, b)                          # a + b on the FPU, bf16 tiles
    y = tessel.ops.exp(x, format="Float32", fp32_dest_acc=True, grid=(2, 2))
    z = tessel.ops.relu_max(x, upper_limit=6.0)

Every function here is generated from one row of the op table
(tessel.op_table.OPS): its signature, its docstring and its compute kernel,
whose source is one template filled in with the row's compute-API calls.
Each call pads its 2-D input(s) to whole 32x32 tiles, stores them in DRAM in
`format`, runs reader -> compute -> writer on the grid's cores (the tiles
split as evenly as possible, the first cores taking one more) and returns
the result as a float32 array of the input's shape.

Caching. A call's Program, with its DRAM buffers, is kept per (device, op,
format, DST mode, grid, tile count, compile-time parameters) in a small LRU
cache, so a repeated call only writes the inputs, re-dispatches and reads
the output: it does not build or compile anything. Runtime parameters
(relu_max's upper_limit, ...) are common runtime args, rewritten per call.
Kernels compile on a Program's first dispatch, through the JIT's disk cache.

Inputs. Arrays of any floating-point dtype and any memory layout
(non-contiguous views are fine: tilizing copies them anyway), converted to
float32; the padding repeats the last row and column, so that it stays in
the op's domain and never changes a block-float group's shared exponent.

Thread safety: calls may come from several threads; they convert their
arrays in parallel and use the devices one call at a time (a device takes
one host thread at a time: don't use one directly from another thread while
a call runs on it).
"""

import atexit
import collections
import inspect
import threading
from dataclasses import dataclass

import numpy as np

from . import _check, formats
from .core import CoreCoord
from .device import Buffer, BufferType, Device
from .op_table import BY_NAME, FORMATS, OPS, TYPECAST_FORMATS
from .program import (
    CircularBufferConfig,
    ComputeConfig,
    DataFormat,
    MathFidelity,
    Program,
    ReaderDataMovementConfig,
    UnpackToDestMode,
    WriterDataMovementConfig,
    data_format,
)

CACHE_SIZE = 32
"""Programs kept (least recently used dropped first, with their buffers)."""

_TILE = formats.TILE_HEIGHT
_CB_IN = (0, 1)
_CB_OUT = 16
_PAGES_PER_CB = 2  # double-buffered: the reader fills one page while compute takes the other

# ---------------------------------------------------------------------------
# Kernel sources

_COMPUTE_TEMPLATE = """\
// tessel.ops.{name}: {doc}, one tile at a time. Generated from
// python/tessel/op_table.py: {engine}, {operands}.
// Runtime args: tile count. Common runtime args: {common}.
#include "api/compute/common.h"
#include "api/compute/compute_kernel_api.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/binary_max_min.h"
#include "api/compute/eltwise_unary/sfpu_split_includes.h"
#include "api/compute/tile_move_copy.h"
{header}
void kernel_main() {{
  const uint32_t count = get_arg_val<uint32_t>(0);
{declarations}
  {hw_init}
  {init}
  for (uint32_t i = 0; i < count; ++i) {{
{wait}
    tile_regs_acquire();
{math}
    tile_regs_commit();
    tile_regs_wait();
    cb_reserve_back(cb_out, 1);
    pack_tile(0, cb_out);
    cb_push_back(cb_out, 1);
{pop}
    tile_regs_release();
  }}
}}
"""

_READER_TEMPLATE = """\
// tessel.ops reader: tiles [start, start + count) of {n} interleaved DRAM
// input(s) into CB {cbs}, one tile of each at a time.
// Runtime args: {addresses}, start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {{
{declarations}
  const uint32_t start = get_arg_val<uint32_t>({n});
  const uint32_t count = get_arg_val<uint32_t>({n_plus_1});
  for (uint32_t i = 0; i < count; ++i) {{
{reserve}
{read}
    noc_async_read_barrier();
{push}
  }}
}}
"""

_WRITER_SOURCE = f"""\
// tessel.ops writer: CB {_CB_OUT} to tiles [start, start + count) of an
// interleaved DRAM output, one tile at a time.
// Runtime args: output address, start tile, tile count.
#include "api/dataflow/dataflow_api.h"

void kernel_main() {{
  const uint32_t address = get_arg_val<uint32_t>(0);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t count = get_arg_val<uint32_t>(2);
  constexpr uint32_t cb_out = {_CB_OUT};
  const InterleavedAddrGenFast<true> out = {{address, get_tile_size(cb_out), get_dataformat(cb_out)}};
  for (uint32_t i = 0; i < count; ++i) {{
    cb_wait_front(cb_out, 1);
    noc_async_write_tile(start + i, out, get_read_ptr(cb_out));
    noc_async_write_barrier();
    cb_pop_front(cb_out, 1);
  }}
}}
"""


def _format_constant(fmt):
    return f"(uint32_t)DataFormat::{fmt.name}"


def _runtime_params(op):
    return tuple(p for p in op.params if p.kind != "output_format")


def _compute_source(op, fmt, compile_params, formats=None):
    """The compute kernel of `op` for input format `fmt`; compile_params maps
    each output-format parameter to its DataFormat. formats: each input's
    format, when they may differ (the unpacker is reconfigured between
    operands of different formats)."""
    runtime = _runtime_params(op)
    substitutions = {p.name: p.name for p in runtime}
    substitutions.update({name: _format_constant(f) for name, f in compile_params})
    substitutions["in_format"] = _format_constant(fmt)
    cbs = [f"  constexpr uint32_t cb_in{i} = {_CB_IN[i]};" for i in range(op.arity)]
    cbs.append(f"  constexpr uint32_t cb_out = {_CB_OUT};")
    declarations = [f"  const uint32_t {p.name} = get_common_arg_val<uint32_t>({i});  // {p.doc}"
                    + (" (float bits)" if p.kind == "float" else "") for i, p in enumerate(runtime)]
    operands = range(op.arity)
    if op.engine == "FPU":
        hw_init = "binary_op_init_common(cb_in0, cb_in1, cb_out);"
        math = []
    else:
        hw_init = "init_sfpu(cb_in0, cb_out);"
        mixed = formats is not None and len(set(formats)) > 1
        math = [(f"    reconfig_data_format_srca(cb_in{i});\n" if mixed else "") + f"    copy_tile(cb_in{i}, 0, {i});"
                for i in operands]
    math.append("    " + op.tile.format(**substitutions))
    return _COMPUTE_TEMPLATE.format(
        name=op.name,
        doc=op.doc,
        engine=f"{op.engine} ({op.call})",
        operands=f"{op.arity} operand{'s' if op.arity > 1 else ''} in CB {', '.join(str(_CB_IN[i]) for i in operands)}"
        f", result in CB {_CB_OUT}",
        common=", ".join(p.name for p in runtime) or "none",
        declarations="\n".join(declarations + cbs),
        hw_init=hw_init,
        init=op.init.format(**substitutions),
        wait="\n".join(f"    cb_wait_front(cb_in{i}, 1);" for i in operands),
        math="\n".join(math),
        pop="\n".join(f"    cb_pop_front(cb_in{i}, 1);" for i in operands),
        header=f'#include "{op.header}"\n' if op.header else "",
    )


def _reader_source(n):
    inputs = range(n)
    declarations = [f"  const uint32_t address{i} = get_arg_val<uint32_t>({i});" for i in inputs]
    declarations += [f"  constexpr uint32_t cb_in{i} = {_CB_IN[i]};" for i in inputs]
    declarations += [f"  const InterleavedAddrGenFast<true> in{i} = {{address{i}, get_tile_size(cb_in{i}), "
                     f"get_dataformat(cb_in{i})}};" for i in inputs]
    return _READER_TEMPLATE.format(
        n=n,
        n_plus_1=n + 1,
        cbs=" and ".join(str(_CB_IN[i]) for i in inputs),
        addresses=", ".join(f"input {i} address" for i in inputs),
        declarations="\n".join(declarations),
        reserve="\n".join(f"    cb_reserve_back(cb_in{i}, 1);" for i in inputs),
        read="\n".join(f"    noc_async_read_tile(start + i, in{i}, get_write_ptr(cb_in{i}));" for i in inputs),
        push="\n".join(f"    cb_push_back(cb_in{i}, 1);" for i in inputs),
    )


# ---------------------------------------------------------------------------
# Argument checks: TypeError / ValueError naming the function and argument.

_FORMAT_NAMES = tuple(DataFormat[f] for f in FORMATS)
_TYPECAST_FORMATS = tuple(DataFormat[f] for f in TYPECAST_FORMATS)


def _format(value, what, allowed):
    names = ", ".join(f.name for f in allowed)
    if not isinstance(value, (str, DataFormat)):
        raise TypeError(f"{what} must be a tessel.DataFormat or a format name ({names}), got {_check.describe(value)}")
    try:
        fmt = data_format(value, what)
    except ValueError:
        fmt = None
    if fmt not in allowed:
        given = f"DataFormat.{value.name}" if isinstance(value, DataFormat) else repr(value)
        raise ValueError(f"{what} must be one of {names}, got {given}")
    return fmt


def _matrix(value, what):
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{what} must be a numpy array, got {_check.describe(value)}")
    if value.dtype.kind != "f" or value.dtype.itemsize > 8:  # float16, float32 or float64, either byte order
        raise TypeError(f"{what} must be an array of floating-point values (float16, float32 or float64), "
                        f"got an array of {value.dtype}")
    if value.ndim != 2:
        raise ValueError(f"{what} must be 2-D (rows x cols), got shape {value.shape}")
    if value.size == 0:
        raise ValueError(f"{what} is empty (shape {value.shape}): expected at least one row and one column")
    return value.astype(np.float32, copy=False)


def _grid(value, device, what):
    full = device.grid
    if value is None:
        return (full.x, full.y)
    if not isinstance(value, (tuple, list, CoreCoord)) or len(tuple(value)) != 2 or any(
            isinstance(v, (bool, np.bool_)) or not hasattr(type(v), "__index__") for v in value):
        raise TypeError(f"{what} must be None or an (x, y) tuple of core counts, got {_check.describe(value)}")
    gx, gy = (_check.integer(v, f"{what}[{i}]", 1, 0xFFFF, "a core count") for i, v in enumerate(value))
    if gx > full.x or gy > full.y:
        raise ValueError(f"{what} ({gx}, {gy}) does not fit the device's {full.x}x{full.y} grid of worker cores")
    return (gx, gy)


def _param_word(param, value, what):
    if param.kind == "int":
        return _check.word(value, what)
    v = _check.real(value, what)
    with np.errstate(over="ignore"):
        f = np.float32(v)
    if np.isinf(f) and not np.isinf(v):
        raise ValueError(f"{what} must fit a float32 (|value| < 3.4e38), got {v!r}")
    return int(f.view(np.uint32))


def _output_format(op, fmt, args, what):
    """The output format (`fmt` unless the op has an output-format
    parameter) and the compile-time parameters of the kernel source."""
    param = op.output_format_param
    if param is None:
        return fmt, ()
    out = _format(args.get(param.name), f"{what}: {param.name}", _TYPECAST_FORMATS)
    return out, ((param.name, out),)


def _device(value, what):
    if value is None:
        return default_device()
    if not isinstance(value, Device):
        raise TypeError(f"{what} must be a tessel.Device or None, got {_check.describe(value)}")
    if not value.is_open:
        raise ValueError(f"{what} is closed: open a device with tessel.Device.open()")
    return value


# ---------------------------------------------------------------------------
# Programs and their cache


@dataclass(frozen=True)
class CacheInfo:
    """tessel.ops' Program cache: hits and misses since the last
    clear_cache(), entries now and the most kept."""

    hits: int
    misses: int
    entries: int
    max_entries: int


@dataclass(frozen=True, eq=False)
class _Plan:
    """A built Program for one cache key, with the buffers its runtime args
    name and the view of its compute kernel's common runtime args (None when
    the op has no runtime parameters)."""

    device: Device
    program: Program
    inputs: tuple
    output: Buffer
    common_args: "np.ndarray | None"


_plans = collections.OrderedDict()
_hits = 0
_misses = 0
# Held while a call builds or runs a Program, and around every use of the
# cache: devices are used by one thread at a time, and a Program's buffers
# are freed (on eviction) only while no other call is using a device.
_lock = threading.Lock()
_default = None


def _work(num_tiles, grid):
    """(core, first tile, tile count) per used core, row-major in the grid."""
    gx, gy = grid
    used = min(num_tiles, gx * gy)
    base, extra = divmod(num_tiles, used)
    out, start = [], 0
    for k in range(used):
        count = base + (k < extra)
        out.append(((k % gx, k // gx), start, count))
        start += count
    return out


def _core_ranges(used, gx):
    full_rows, rest = divmod(used, gx)
    ranges = [((0, 0), (gx - 1, full_rows - 1))] if full_rows else []
    if rest:
        ranges.append(((0, full_rows), (rest - 1, full_rows)))
    return ranges


def _build(device, op, fmt, out_fmt, fp32, grid, num_tiles, compile_params):
    in_bytes, out_bytes = formats.tile_size(fmt), formats.tile_size(out_fmt)
    inputs = tuple(Buffer(device, num_tiles * in_bytes, in_bytes, BufferType.DRAM) for _ in range(op.arity))
    output = Buffer(device, num_tiles * out_bytes, out_bytes, BufferType.DRAM)
    work = _work(num_tiles, grid)
    cores = _core_ranges(len(work), grid[0])
    p = Program()
    for i in range(op.arity):
        cb = _CB_IN[i]
        p.add_circular_buffer(cores, CircularBufferConfig(_PAGES_PER_CB * in_bytes, {cb: fmt}).set_page_size(cb, in_bytes))
    p.add_circular_buffer(cores, CircularBufferConfig(_PAGES_PER_CB * out_bytes, {_CB_OUT: out_fmt})
                          .set_page_size(_CB_OUT, out_bytes))
    # A 32-bit DST takes Float32 CBs unpacked straight into it (all 23 bits);
    # FPU operands always pass through the 19-bit source registers.
    unpack = (UnpackToDestMode.UnpackToDestFp32,) * op.arity if fp32 and op.engine == "SFPU" else ()
    config = ComputeConfig(math_fidelity=MathFidelity.HiFi4, fp32_dest_acc_en=fp32, unpack_to_dest_mode=unpack)
    reader = p.add_kernel_from_source(_reader_source(op.arity), f"tessel_ops_reader_{op.arity}.cpp", cores,
                                      ReaderDataMovementConfig())
    compute = p.add_kernel_from_source(_compute_source(op, fmt, compile_params), f"tessel_ops_{op.name}.cpp",
                                       cores, config)
    writer = p.add_kernel_from_source(_WRITER_SOURCE, "tessel_ops_writer.cpp", cores, WriterDataMovementConfig())
    addresses = [b.address for b in inputs]
    for core, start, count in work:
        p.set_runtime_args(reader, core, addresses + [start, count])
        p.set_runtime_args(compute, core, [count])
        p.set_runtime_args(writer, core, [output.address, start, count])
    common = None
    if _runtime_params(op):
        p.set_common_runtime_args(compute, [0] * len(_runtime_params(op)))
        common = p.common_runtime_args(compute)
    return _Plan(device, p, inputs, output, common)


def _cached(key, device):
    """The cached plan for the key, counted as a hit, or None (under _lock)."""
    global _hits
    plan = _plans.get(key)
    if plan is None or plan.device is not device:
        return None
    _plans.move_to_end(key)
    _hits += 1
    return plan


def _insert(key, plan):
    """Cache a plan whose first dispatch succeeded, dropping the entries of
    closed devices and then the least recently used (under _lock)."""
    global _misses
    for k in [k for k, v in _plans.items() if not v.device.is_open]:
        del _plans[k]
    _misses += 1
    _plans[key] = plan
    while len(_plans) > CACHE_SIZE:
        _plans.popitem(last=False)


def _tiles(x, fmt):
    """x (2-D float32) padded to whole tiles by repeating its last row and
    column, in tile order, as the device bytes of fmt."""
    rows, cols = x.shape
    pad = ((0, -rows % _TILE), (0, -cols % _TILE))
    if pad[0][1] or pad[1][1]:
        x = np.pad(x, pad, mode="edge")
    return formats.to_bytes(formats.tilize(x), fmt)


def _run(op, args):
    what = f"tessel.ops.{op.name}"
    names = _operand_names(op)
    arrays = [_matrix(args[n], f"{what}: {n}") for n in names]
    if any(x.shape != arrays[0].shape for x in arrays):
        raise ValueError(f"{what}: {' and '.join(names)} must have the same shape, got "
                         f"{' and '.join(str(x.shape) for x in arrays)}")
    fmt = _format(args["format"], f"{what}: format", _FORMAT_NAMES)
    fp32 = _check.flag(args["fp32_dest_acc"], f"{what}: fp32_dest_acc")
    words = [_param_word(p, args[p.name], f"{what}: {p.name}") for p in _runtime_params(op)]
    out_fmt, compile_params = _output_format(op, fmt, args, what)
    device = _device(args["device"], f"{what}: device")
    grid = _grid(args["grid"], device, f"{what}: grid")

    rows, cols = arrays[0].shape
    num_tiles = -(-rows // _TILE) * -(-cols // _TILE)
    data = [_tiles(x, fmt) for x in arrays]
    queue = device.command_queue
    key = (id(device), op.name, fmt, fp32, grid, num_tiles, compile_params)
    with _lock:
        plan = _cached(key, device)
        new = plan is None
        if new:
            plan = _build(device, op, fmt, out_fmt, fp32, grid, num_tiles, compile_params)
        for buffer, d in zip(plan.inputs, data):
            queue.enqueue_write_buffer(buffer, d)
        if words:
            plan.common_args[:] = words
        queue.enqueue_program(plan.program)  # a new plan compiles here: a failure leaves it out of the cache
        result = queue.enqueue_read_buffer(plan.output)
        if new:
            _insert(key, plan)
    return formats.untilize(formats.from_bytes(result, out_fmt), rows, cols)


# ---------------------------------------------------------------------------
# The generated functions


def _operand_names(op):
    return ("a", "b")[: op.arity]


def _signature(op):
    P = inspect.Parameter
    params = [P(n, P.POSITIONAL_OR_KEYWORD, annotation=np.ndarray) for n in _operand_names(op)]
    for p in op.params:
        annotation = {"float": float, "int": int, "output_format": "str | DataFormat"}[p.kind]
        params.append(P(p.name, P.KEYWORD_ONLY, annotation=annotation))
    params += [
        P("device", P.KEYWORD_ONLY, default=None, annotation="Device | None"),
        P("format", P.KEYWORD_ONLY, default="Float16_b", annotation="str | DataFormat"),
        P("fp32_dest_acc", P.KEYWORD_ONLY, default=False, annotation=bool),
        P("grid", P.KEYWORD_ONLY, default=None, annotation="tuple[int, int] | None"),
    ]
    return inspect.Signature(params, return_annotation=np.ndarray)


def _docstring(op):
    shape = "a's shape" if op.arity == 1 else "the inputs' shape"
    lines = [
        f"Element-wise {op.doc}.",
        "",
        f"Runs {op.call} on the simulated device's {op.engine}; returns a float32 array of {shape}.",
        "",
    ]
    for p in op.params:
        lines.append(f"{p.name}: {p.doc}.")
    lines += [
        "device: a tessel.Device (None: tessel.ops.default_device()).",
        f"format: the data format of the inputs and the result on the device: {', '.join(FORMATS)}.",
        "fp32_dest_acc: a 32-bit DST (ComputeConfig.fp32_dest_acc_en); otherwise DST rounds to bfloat16.",
        "grid: (x, y): the cores the tiles are split over, from (0, 0) (None: the device's whole grid).",
    ]
    return "\n".join(lines)


def _make_function(op):
    signature = _signature(op)
    what = f"tessel.ops.{op.name}"

    def fn(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{what}: {e}") from None
        bound.apply_defaults()
        return _run(op, bound.arguments)

    fn.__name__ = fn.__qualname__ = op.name
    fn.__module__ = __name__
    fn.__doc__ = _docstring(op)
    fn.__signature__ = signature
    fn.op = op
    return fn


# ---------------------------------------------------------------------------
# Public functions besides the ops


def default_device() -> Device:
    """The device calls with device=None use: tessel.Device.open() (the full
    Blackhole grid, deterministic policy), opened on first use and closed at
    interpreter exit."""
    global _default
    with _lock:
        if _default is None or not _default.is_open:
            _default = Device.open()
        return _default


def cache_info() -> CacheInfo:
    """The Program cache's statistics (see the module docstring)."""
    with _lock:
        return CacheInfo(_hits, _misses, len(_plans), CACHE_SIZE)


def clear_cache(device: "Device | None" = None) -> None:
    """Drop the cached Programs and their DRAM buffers: those of `device`, or
    all of them (which also resets the statistics)."""
    global _hits, _misses
    with _lock:
        if device is None:
            _plans.clear()
            _hits = _misses = 0
        else:
            for k in [k for k, v in _plans.items() if v.device is device]:
                del _plans[k]


def kernel_source(name: str, *, format="Float16_b", **params) -> str:
    """The compute kernel source tessel.ops runs for op `name` with inputs in
    `format` (and, for typecast, the output format `to`)."""
    _check.text(name, "tessel.ops.kernel_source: name")
    if name not in BY_NAME:
        raise ValueError(f"tessel.ops.kernel_source: no op named {name!r}; the ops are {', '.join(BY_NAME)}")
    op = BY_NAME[name]
    fmt = _format(format, "tessel.ops.kernel_source: format", _FORMAT_NAMES)
    _, compile_params = _output_format(op, fmt, params, "tessel.ops.kernel_source")
    return _compute_source(op, fmt, compile_params)


def _close_default():
    clear_cache()
    if _default is not None and _default.is_open:
        _default.close()


atexit.register(_close_default)

_functions = {op.name: _make_function(op) for op in OPS}
globals().update(_functions)

__all__ = [op.name for op in OPS] + ["CACHE_SIZE", "CacheInfo", "cache_info", "clear_cache", "default_device",
                                     "kernel_source"]
