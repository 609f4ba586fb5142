"""How an operation's DSL kernel functions become its logical kernels:
their selectors and RISCs, their compiled sources, the circular buffers of
the dataflow buffers, the compute options, and the fingerprint that says
when a traced body must be compiled again.
"""

import dataclasses
import functools
import os
from dataclasses import dataclass

from .. import _check
from ..errors import ValidationError
from .. import formats
from ..program import DataFormat, MathFidelity
from .compiler import compile_kernel
from .dsl import DataflowBuffer, max_dfbs
from .pipes import PipeNet
from .semaphores import RemoteSemaphore, Semaphore

# Semaphores a core has.
MAX_SEMAPHORES = 16
from .extern import offsets
from .records import Kernel, KernelKind
from .settings import settings
from .tensor import Tensor

__all__ = ["ComputeOptions", "compile_functions", "dsl_fingerprint", "dsl_legend"]

# Data-movement RISCs of DSL kernels in declaration order: the reader on
# RISCV_1 (NCRISC), the writer on RISCV_0 (BRISC), as TT-Lang assigns them.
DSL_DM_RISCS = (1, 0)


# Formats whose elements fill a 32-bit DST slot.
WIDE_FORMATS = (DataFormat.Float32, DataFormat.Int32, DataFormat.UInt32)


@dataclass(frozen=True)
class ComputeOptions:
    """The compute kernel's configuration. fp32_dest_acc_en None is TT-Lang's
    automatic choice: on when a dataflow buffer holds 32-bit elements.
    unpack_fp32: the CBs whose tiles reach DST with all 32 bits
    (UnpackToDestFp32; the 32-bit DFBs when DST is 32-bit)."""

    math_fidelity: MathFidelity
    fp32_dest_acc_en: "bool | None"
    dst_full_sync_en: bool
    math_approx_mode: bool
    unpack_fp32: tuple = ()

    def resolved(self, dfbs):
        """These options for an operation with `dfbs`."""
        wide = [d.index for d in dfbs if d.dtype in WIDE_FORMATS]
        fp32 = bool(wide) if self.fp32_dest_acc_en is None else self.fp32_dest_acc_en
        return ComputeOptions(self.math_fidelity, fp32, self.dst_full_sync_en, self.math_approx_mode,
                              tuple(wide) if fp32 else ())

    @staticmethod
    def of(fp32_dest_acc_en, dst_full_sync_en, math_fidelity, math_approx_mode, what):
        if isinstance(math_fidelity, str):
            try:
                math_fidelity = MathFidelity[math_fidelity]
            except KeyError:
                raise ValueError(f"{what}: math_fidelity must be one of {', '.join(m.name for m in MathFidelity)}, "
                                 f"got {math_fidelity!r}") from None
        elif not isinstance(math_fidelity, MathFidelity):
            name = getattr(math_fidelity, "name", None)  # ttnn's MathFidelity enum
            if name in MathFidelity.__members__:
                math_fidelity = MathFidelity[name]
            else:
                raise TypeError(f"{what}: math_fidelity must be a MathFidelity or its name, got "
                                f"{_check.describe(math_fidelity)}")
        flags = []
        for n, v in (("fp32_dest_acc_en", fp32_dest_acc_en), ("dst_full_sync_en", dst_full_sync_en),
                     ("math_approx_mode", math_approx_mode)):
            if v is None and n == "fp32_dest_acc_en":
                flags.append(v)
                continue
            if not isinstance(v, bool):
                raise TypeError(f"{what}: {n} must be a bool, got {_check.describe(v)}")
            flags.append(v)
        return ComputeOptions(math_fidelity, *flags)

    def lowered(self):
        unpack = [0] * (max(self.unpack_fp32) + 1 if self.unpack_fp32 else 0)
        for cb in self.unpack_fp32:
            unpack[cb] = 1  # UnpackToDestMode::UnpackToDestFp32
        return (int(self.math_fidelity), bool(self.fp32_dest_acc_en), self.dst_full_sync_en, self.math_approx_mode,
                unpack)

    @property
    def dst_capacity(self):
        """DST tiles one tile_regs_acquire holds."""
        return (4 if self.fp32_dest_acc_en else 8) * (2 if self.dst_full_sync_en else 1)


class KernelContext:
    """What the compiler needs to know about the operation (compiler.py)."""

    def __init__(self, operation, trace, layouts):
        self.name = operation.name
        self.grid = trace.grid
        self.dfbs = trace.dfbs
        self.tensors = trace.tensors
        self.layouts = layouts
        self.options = operation.compute_options.resolved(trace.dfbs)
        self.dst_capacity = self.options.dst_capacity
        self.scratch = {}  # "zeros" | "ones" -> the CB of that constant tile (the compute kernel's)
        self.temps = {}  # (kernel, variable, shape) -> the temporary DataflowBuffer of a variable's block expression
        self.written = set()  # the tensors (parameter indices) a copy writes
        self._cta, self._crta, _, _ = offsets(layouts)
        self.device = trace.tensors[0].buffer.device if trace.tensors else None
        # Pipes: one CB of landing slots after the DFBs' CBs (when a kernel captures a PipeNet).
        self.semaphores = list(trace.semaphores)  # ttl.Semaphore: ids 0..n-1
        self.dm_functions = [f.name for f in trace.functions if f.kind is KernelKind.DATA_MOVEMENT]
        self.pipes = {}  # id(Pipe) -> (index, block bytes)
        self.pipe_cb = len(self.dfbs) if _uses_pipes(trace.functions) else None
        self.pipe_slot = max((d.block_bytes for d in self.dfbs), default=0)

    def pipe_index(self, pipe, block_bytes, compiler, node):
        """The index of `pipe` in this operation (its semaphores and landing slot)."""
        entry = self.pipes.get(id(pipe))
        if entry is None:
            if self.pipe_cb is None:
                raise compiler.error("a copy on a pipe of a PipeNet no kernel function captures", node)
            entry = self.pipes[id(pipe)] = (len(self.pipes), block_bytes, pipe)
            if self.pipe_semaphore_base + 2 * len(self.pipes) > MAX_SEMAPHORES:
                raise compiler.error(f"the operation's pipes need {2 * len(self.pipes)} semaphores (two per pipe) "
                                     f"after its {self.pipe_semaphore_base} others; a core has {MAX_SEMAPHORES}",
                                     node)
        elif entry[1] != block_bytes:
            raise compiler.error(f"{pipe!r} carries blocks of {entry[1]} bytes elsewhere and {block_bytes} bytes "
                                 "here; a pipe's sender and receivers copy blocks of one size", node)
        return entry[0]

    def semaphore_id(self, sem, compiler, node):
        if not any(sem is s for s in self.semaphores):
            raise compiler.error(f"{sem!r} was not made by this operation's body; make it there (ttl.Semaphore())",
                                 node)
        return next(i for i, s in enumerate(self.semaphores) if s is sem)

    def source_semaphore_id(self, kernel):
        """The word a remote set sends its value from: one per data-movement
        kernel (ids n and n + 1 after the n ttl.Semaphores), so the reader's
        and the writer's sets on one core never share it."""
        return len(self.semaphores) + min(self.dm_functions.index(kernel), 1)

    @property
    def pipe_semaphore_base(self):
        """The id of pipe 0's ready semaphore (after the DSL's semaphores and their two source words)."""
        return len(self.semaphores) + (2 if self.semaphores else 0)

    def grid_dims(self, rank):
        from .dsl import shape_dims
        g = shape_dims(self.grid, rank, "a pipe's node coordinates")
        return g if isinstance(g, tuple) else (g,)

    def noc_xy(self, coords):
        """The NoC coordinates of the core at node `coords` (a tuple in any rank)."""
        gx, gy = self.grid
        if len(coords) == 1:
            x, y = divmod(coords[0], gy)  # TT-Lang's linear node order: x * grid_y + y
        else:
            x, y = coords[0], coords[1]
            if any(c != 0 for c in coords[2:]):
                raise ValueError(f"node {coords} is outside the operation's 2-D grid")
        if not (0 <= x < gx and 0 <= y < gy):
            raise ValueError(f"node {coords} is outside the operation's {gx}x{gy} grid")
        core = self.device.worker_core_from_logical_core((x, y))
        return core.x, core.y

    def _next_cb(self, what, compiler):
        cb = len(self.dfbs) + (self.pipe_cb is not None) + len(self.scratch) + len(self.temps)
        limit = max_dfbs(self.device)
        if cb >= limit:
            raise compiler.error(f"the operation's {len(self.dfbs)} dataflow buffers leave no circular buffer for "
                                 f"{what}; a core has {limit}")
        return cb

    def scratch_cb(self, kind, compiler):
        """The CB of a constant tile (after the DFBs' CBs), made on first use."""
        cb = self.scratch.get(kind)
        if cb is None:
            cb = self.scratch[kind] = self._next_cb(f"the constant tile this operation needs ({kind})", compiler)
        return cb

    def temp_cb(self, key, compiler):
        """The temporary buffer of a variable that holds block expressions of
        one shape (key: kernel, variable, shape): two blocks, the value and the
        next one being computed."""
        temp = self.temps.get(key)
        if temp is None:
            kernel, name, shape = key
            dtype = DataFormat.Float32 if self.options.fp32_dest_acc_en else DataFormat.Float16_b
            index = self._next_cb(f"the temporary of '{name}' in kernel function '{kernel}'", compiler)
            temp = self.temps[key] = DataflowBuffer(index, _Like(dtype), tuple(shape), 2, ("<temporary>", 0))
            temp.name = name
        return temp

    def tensor_index(self, t):
        return next((i for i, u in enumerate(self.tensors) if u is t), None)

    def accessor(self, i):
        lay = self.layouts[i]
        return (self.tensors[i], self._cta[i], self._crta[i], self._cta[i] + lay.compile_time_args,
                self._crta[i] + lay.common_runtime_args)


def selectors(operation, functions, extern_selectors):
    """The logical kernel each DSL function is: its kernel= handle; else its
    kind, when it is the only one of its kind; else an operation-owned
    ttl.Kernel named after the function."""
    out = []
    for f in functions:
        if f.selector is not None:
            out.append(f.selector)
            continue
        same = [g for g in functions if g.kind is f.kind and g.selector is None]
        if len(same) == 1 and not any(_kind(s) is f.kind for s in extern_selectors):
            out.append(f.kind)
            continue
        implicit = operation._implicit_kernels.get(f.name)
        if implicit is None or implicit.kind is not f.kind:
            implicit = Kernel(f.kind, name=f.name)
            implicit._bind(operation, f.name)
            operation._implicit_kernels[f.name] = implicit
        out.append(implicit)
    return out


def compile_functions(operation, trace, layouts, extern_selectors):
    """[(selector, source, processor)] of the DSL functions, the CBs, and the
    initial values of the operation-owned semaphores (the pipes')."""
    what = f"operation '{operation.name}'"
    sels = selectors(operation, trace.functions, extern_selectors)
    for i, (f, s) in enumerate(zip(trace.functions, sels)):
        if any(s is t for t in extern_selectors):
            raise ValidationError(f"{what}: kernel function '{f.name}' and call_extern_func calls select the same "
                                  "logical kernel; a logical kernel is either a kernel function or external calls")
        if any(s is t for t in sels[:i]):
            raise ValidationError(f"{what}: two kernel functions select the same logical kernel {s!r}")
    dm = [f for f in trace.functions if f.kind is KernelKind.DATA_MOVEMENT]
    computes = [f for f in trace.functions if f.kind is KernelKind.COMPUTE]
    if not extern_selectors and (len(dm) != len(DSL_DM_RISCS) or len(computes) != 1):
        code = operation._fn.__code__
        raise ValidationError(f"{code.co_filename}:{code.co_firstlineno}: {what} declares {len(computes)} compute "
                              f"and {len(dm)} data-movement kernel functions; a TT-Lang operation has one compute "
                              f"and {len(DSL_DM_RISCS)} data-movement kernel functions (the reader and the writer; "
                              "one that does nothing is `pass`)")
    if len(dm) > len(DSL_DM_RISCS):
        raise ValidationError(f"{what}: {len(dm)} data-movement kernel functions; a core has {len(DSL_DM_RISCS)} "
                              "data-movement RISCs")
    if sum(f.kind is KernelKind.COMPUTE for f in trace.functions) > 1:
        raise ValidationError(f"{what}: more than one compute kernel function; a core has one compute context")
    context = KernelContext(operation, trace, layouts)
    out = []
    for f, s in zip(trace.functions, sels):
        processor = -1 if f.kind is KernelKind.COMPUTE else DSL_DM_RISCS[dm.index(f)]
        source = compile_kernel(f, context)
        if settings.keep_kernels:
            os.makedirs(settings.keep_kernels, exist_ok=True)
            with open(os.path.join(settings.keep_kernels, f"{operation.name}.{f.name}.cpp"), "w") as fh:
                fh.write(source)
        out.append((s, source, processor))
    cbs = tuple((d.block_count * d.block_bytes, ((d.index, int(d.dtype), d.page_size),)) for d in trace.dfbs)
    if context.pipes:
        slot = context.pipe_slot
        cbs += ((slot * len(context.pipes), ((context.pipe_cb, int(DataFormat.Float16_b), slot),)),)
    cbs += tuple((t.block_count * t.block_bytes, ((t.index, int(t.dtype), t.page_size),))
                 for t in context.temps.values())
    scratch_page = formats.tile_size(DataFormat.Float16_b)
    cbs += tuple((scratch_page, ((cb, int(DataFormat.Float16_b), scratch_page),))
                 for cb in sorted(context.scratch.values()))
    if len(context.semaphores) + 2 > MAX_SEMAPHORES:
        raise ValidationError(f"{what}: {len(context.semaphores)} ttl.Semaphores; a core has {MAX_SEMAPHORES} "
                              "semaphores (two are the operation's own)")
    semaphores = [s.initial for s in context.semaphores] + ([0, 0] if context.semaphores else [])
    for _, _, pipe in sorted(context.pipes.values(), key=lambda e: e[0]):
        semaphores += [len(pipe.destinations(context.grid_dims(pipe.rank))), 0]  # ready (all slots free), valid
    options = context.options
    wide_temps = tuple(t.index for t in context.temps.values() if t.dtype in WIDE_FORMATS)
    if wide_temps:
        options = dataclasses.replace(options, unpack_fp32=options.unpack_fp32 + wide_temps)
    return out, cbs, tuple(semaphores), options, frozenset(context.written)


def dsl_fingerprint(trace):
    """What the compiled kernels of a traced body depend on besides the
    tensors' structure: the DFBs, and per kernel function its code and the
    values it captures (numbers by value, DFBs and argument tensors by
    position, anything else by identity)."""
    def fp(v, depth=0):
        if isinstance(v, (bool, int, float, str, type(None))):
            return (type(v).__name__, v)
        if isinstance(v, (tuple, list)) and depth < 4:
            return (type(v).__name__,) + tuple(fp(x, depth + 1) for x in v)
        if isinstance(v, DataflowBuffer):
            return ("dfb", v.index)
        if isinstance(v, Semaphore):
            return ("semaphore", v.index, v.initial)
        if isinstance(v, RemoteSemaphore):
            return ("remote semaphore", v.semaphore.index, v.semaphore.initial, repr(v.nodes), v.multicast)
        if isinstance(v, PipeNet):
            return ("net",) + tuple((p._src, repr(p._dst)) for p in v.pipes)
        t = v if isinstance(v, Tensor) else getattr(v, "_ttl", None)
        if isinstance(t, Tensor):
            i = next((i for i, u in enumerate(trace.tensors) if u is t), None)
            if i is not None:
                return ("tensor", i)
        return ("id", id(v))

    dfbs = tuple((d.index, d.shape, d.block_count, int(d.dtype), d.tiled) for d in trace.dfbs)
    fns = []
    for f in trace.functions:
        code = f.fn.__code__
        cells = ()
        if f.fn.__closure__:
            cells = tuple(fp(_cell(c)) for c in f.fn.__closure__)
        names = _global_names(code)
        g = f.fn.__globals__
        fns.append((code, f.kind, id(f.selector), cells, tuple((n, fp(g[n])) for n in names if n in g)))
    return (dfbs, tuple(trace.grid), tuple(fns))


def _cell(c):
    try:
        return c.cell_contents
    except ValueError:
        return None


@functools.lru_cache(maxsize=256)
def _global_names(code):
    """The global names a function's code (and the code nested in it) reads; per code object, once."""
    names, todo = set(), [code]
    while todo:
        c = todo.pop()
        names |= set(c.co_names)
        todo += [k for k in c.co_consts if hasattr(k, "co_names")]
    return tuple(sorted(names))


def _kind(selector):
    return selector.kind if isinstance(selector, Kernel) else selector


def dsl_legend(plan):
    """What a report's CBs and RISCs are in the program's own terms."""
    riscs = {-1: "COMPUTE", 0: "BRISC", 1: "NCRISC"}
    lines = ["tessel.ttl: in the program's terms:"]
    for f, (_, _, processor) in zip(plan.functions, plan.kernels):
        lines.append(f"  {riscs[processor]} runs kernel function '{f.name}' ({f.site[0]}:{f.site[1]})")
    for d in plan.dfbs:
        lines.append(f"  CB {d.index} is dataflow buffer '{d.name or d.index}' (blocks of {d.shape} "
                     f"{'tiles' if d.tiled else 'elements'}, {d.block_count} deep, {d.pages} pages each, "
                     f"{d.block_count * d.block_bytes} bytes of L1; made at {d.site[0]}:{d.site[1]})")
    return "\n".join(lines)


def _uses_pipes(functions):
    for f in functions:
        values = [_cell(c) for c in (f.fn.__closure__ or ())]
        values += [f.fn.__globals__.get(n) for n in _global_names(f.fn.__code__)]
        if any(isinstance(v, PipeNet) for v in values):
            return True
    return False


class _Like:
    """What a temporary buffer is made like: tiles of a dtype."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.tiled = True
