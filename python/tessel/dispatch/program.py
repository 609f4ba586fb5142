"""Program: what a persistent program runs (the spec's Program table). It
opens nothing; Session.load builds it against the session's card."""

import numbers
import os
from collections.abc import Callable, Mapping

import numpy as np

from .. import _check
from . import abi
from .errors import ProgramError

__all__ = ["Buffer", "Program", "KernelSizes", "FORMATS", "OPT_LEVELS", "COMPUTE_OPTIONS"]

FORMATS = ("bfloat16", "float32", "int32", "uint32", "uint16", "uint8", "bfloat8_b", "bfloat4_b")
OPT_LEVELS = ("O0", "O1", "O2", "O3", "Os", "Ofast", "Oz")
_FIDELITY = {"LoFi": 0, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}
_BOOL_OPTIONS = ("fp32_dest_acc_en", "math_approx_mode", "dst_full_sync_en", "bfp8_pack_precise",
                 "enable_trisc2_rvv")
# The fields of tt-metal's ComputeConfigDescriptor (v0.81.1).
COMPUTE_OPTIONS = ("math_fidelity", "unpack_to_dest_mode") + _BOOL_OPTIONS
_KERNELS = ("reader", "compute", "writer")
_RUNTIME_CBS = (29, 30, 31)


class Buffer:
    """A circular buffer on every core: Buffer(index, format, page_bytes, pages)."""

    __slots__ = ("index", "format", "page_bytes", "pages")

    def __init__(self, index, format, page_bytes, pages):
        where = f"Buffer(index={index!r})"
        self.index = _check.integer(index, f"{where}: index", 0, 63)
        if self.index in _RUNTIME_CBS:
            raise ProgramError(f"{where}: circular buffers 29, 30 and 31 are the runtime's (the command tokens and "
                               f"the trace); use another index")
        if format not in FORMATS:
            raise ProgramError(f"{where}: format {format!r} is not a data type name: expected one of "
                               f"{', '.join(FORMATS)}")
        self.format = format
        self.page_bytes = _check.integer(page_bytes, f"{where}: page_bytes", 1, 1 << 24)
        self.pages = _check.integer(pages, f"{where}: pages", 1, 1 << 16)

    def __repr__(self):
        return f"Buffer({self.index}, {self.format!r}, {self.page_bytes}, {self.pages})"


class KernelSizes:
    """The program's kernels laid out against the session's kernel buffer:
    `threads` (name -> packed text bytes), `total`, `buffer`. Measured by a
    cross build for the cores' RISC-V targets: an estimate of silicon's."""

    __slots__ = ("threads", "total", "buffer", "estimate")

    def __init__(self, threads, total, buffer):
        self.threads = dict(threads)
        self.total = total
        self.buffer = buffer
        self.estimate = True

    def line(self):
        parts = ", ".join(f"{name} {size}" for name, size in self.threads.items())
        return f"kernel sizes (estimate): {parts}; total {self.total} of {self.buffer} bytes"

    def __repr__(self):
        return f"KernelSizes({self.threads!r}, total={self.total}, buffer={self.buffer})"


def _kernel_paths(kernels):
    if isinstance(kernels, (str, os.PathLike)):
        folder = os.fspath(kernels)
        if not os.path.isdir(folder):
            raise ProgramError(f"Program: kernels {folder!r} is not a directory (expected one with reader.cpp, "
                               f"compute.cpp and writer.cpp, or a dict of the three paths)")
        paths = {k: os.path.join(folder, f"{k}.cpp") for k in _KERNELS}
    elif isinstance(kernels, Mapping):
        unknown = sorted(set(kernels) - set(_KERNELS))
        missing = [k for k in _KERNELS if k not in kernels]
        if unknown or missing:
            raise ProgramError(f"Program: kernels must name exactly reader, compute and writer"
                               f"{'; unknown: ' + ', '.join(map(str, unknown)) if unknown else ''}"
                               f"{'; missing: ' + ', '.join(missing) if missing else ''}")
        paths = {k: os.fspath(kernels[k]) for k in _KERNELS}
    else:
        raise TypeError(f"Program: kernels must be a directory or a dict of reader, compute and writer paths, got "
                        f"{_check.describe(kernels)}")
    for k, p in paths.items():
        if not os.path.isfile(p):
            raise ProgramError(f"Program: the {k} kernel {p!r} does not exist")
    return {k: os.path.abspath(p) for k, p in paths.items()}


def _words(values, what):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{what} must be a list of integer words, got {_check.describe(values)}")
    return [_check.word(v, f"{what}[{i}]") for i, v in enumerate(values)]


def _compute_options(compute):
    if not isinstance(compute, Mapping):
        raise TypeError(f"Program: compute must be a dict of ComputeConfigDescriptor fields, got "
                        f"{_check.describe(compute)}")
    for name in compute:
        if name not in COMPUTE_OPTIONS:
            raise ProgramError(f"Program: compute option {name!r} is not a field of ComputeConfigDescriptor: "
                               f"expected {', '.join(COMPUTE_OPTIONS)}")
    fidelity = compute.get("math_fidelity", "HiFi4")
    if fidelity not in _FIDELITY:
        raise ProgramError(f"Program: compute math_fidelity {fidelity!r}: expected LoFi, HiFi2, HiFi3 or HiFi4")
    flags = {}
    for name in _BOOL_OPTIONS:
        value = compute.get(name, False)
        if not isinstance(value, bool):
            raise ProgramError(f"Program: compute {name} must be True or False, got {_check.describe(value)}")
        flags[name] = value
    mode = compute.get("unpack_to_dest_mode", "Default")
    modes = {"Default": 0, "UnpackToDestFp32": 1}
    if isinstance(mode, str):
        if mode not in modes:
            raise ProgramError(f"Program: compute unpack_to_dest_mode {mode!r}: expected 'UnpackToDestFp32', "
                               f"'Default' or {{cb: name}}")
        per_cb = [modes[mode]] * 64
    elif isinstance(mode, Mapping):
        per_cb = [0] * 64
        for cb, name in mode.items():
            cb = _check.integer(cb, "Program: compute unpack_to_dest_mode's CB index", 0, 63)
            if name not in modes:
                raise ProgramError(f"Program: compute unpack_to_dest_mode[{cb}] {name!r}: expected "
                                   f"'UnpackToDestFp32' or 'Default'")
            per_cb[cb] = modes[name]
    else:
        raise ProgramError(f"Program: compute unpack_to_dest_mode must be a name or {{cb: name}}, got "
                           f"{_check.describe(mode)}")
    return _FIDELITY[fidelity], flags, per_cb


class Program:
    """Program(name, kernels, buffers=[], args=None, compile_args={}, compute={},
    defines={}, depth=4, handlers={}, opt={}): a persistent program (see the
    module's docstring and docs/dispatch.md)."""

    def __init__(self, name, kernels, buffers=(), args=None, compile_args=None, compute=None, defines=None,
                 depth=4, handlers=None, opt=None):
        self.name = _check.text(name, "Program: name")
        self.kernels = _kernel_paths(kernels)
        self.buffers = list(buffers)
        for b in self.buffers:
            if not isinstance(b, Buffer):
                raise TypeError(f"Program: buffers must be tessel.dispatch.Buffer values, got {_check.describe(b)}")
        indices = [b.index for b in self.buffers]
        if len(set(indices)) != len(indices):
            raise ProgramError(f"Program: circular buffer indices are given twice: {sorted(indices)}")
        if args is not None and not callable(args):
            raise TypeError(f"Program: args must be None or a callable args(core) -> (reader, writer, compute), "
                            f"got {_check.describe(args)}")
        self.args = args
        compile_args = dict(compile_args or {})
        for k in compile_args:
            if k not in _KERNELS:
                raise ProgramError(f"Program: compile_args key {k!r}: expected reader, writer or compute")
        self.compile_args = {k: _words(compile_args.get(k, ()), f"Program: compile_args[{k!r}]") for k in _KERNELS}
        if compute is not None and not isinstance(compute, Mapping):
            raise TypeError(f"Program: compute must be a dict of ComputeConfigDescriptor fields, got "
                            f"{_check.describe(compute)}")
        self.compute = dict(compute or {})
        self._compute = _compute_options(self.compute)
        self.defines = {}
        for k, v in dict(defines or {}).items():
            _check.text(k, "Program: a define's name")
            self.defines[k] = str(v)
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= 16:
            raise ProgramError(f"Program: depth {depth!r} is out of range: expected 1 to 16")
        self.depth = depth
        self.handlers = abi.handlers(handlers if handlers is not None else {}, what="Program: handlers")
        opt = dict(opt or {})
        for k, v in opt.items():
            if k not in _KERNELS:
                raise ProgramError(f"Program: opt key {k!r}: expected reader, writer or compute")
            if v not in OPT_LEVELS:
                raise ProgramError(f"Program: opt[{k!r}] = {v!r} is not an optimisation level: expected one of "
                                   f"{', '.join(OPT_LEVELS)}")
        self.opt = opt
        self.sizes = None
        self.threads = []  # ThreadDecl, one per cluster
        self.regions = {}  # name -> bytes

    def region(self, name, value):
        """A region shared by the program's X280 threads: `value` its initial
        bytes (bytes-like or a numpy array) or its size in bytes (zeros)."""
        name = _check.text(name, "Program.region: name")
        if not name:
            raise ProgramError("Program.region: a region needs a name")
        if name in self.regions:
            raise ProgramError(f"Program.region: region {name!r} is declared twice")
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            data = bytes(_check.integer(int(value), f"Program.region({name!r}): size", 1, 1 << 30))
        else:
            if isinstance(value, np.ndarray):
                value = np.ascontiguousarray(value)
            try:
                data = memoryview(value).cast("B").tobytes()
            except TypeError:
                raise TypeError(f"Program.region({name!r}): value must be bytes, a numpy array or a size, got "
                                f"{_check.describe(value)}") from None
            if not data:
                raise ProgramError(f"Program.region({name!r}): a region holds at least one byte")
        self.regions[name] = data
        return self

    def thread(self, cluster=1, sources=(), regions=(), words=(), host_fallback=None, deadline=0.0,
               prefetch="documented", clusters=None):
        """An X280 thread on a work cluster (1..3; clusters=(1, 2, 3) declares
        one on each): C/C++ `sources` built by the runtime (tessel/x280.h is
        its API), the `regions` it uses, its `words`, a `host_fallback(ctx)`
        run instead with load(thread="host"), a deadline in seconds (0:
        none) and the prefetch mode ("documented" or "off")."""
        from .threads import ThreadDecl

        if clusters is not None and not isinstance(clusters, (list, tuple)):
            raise TypeError(f"Program.thread: clusters must be a tuple of cluster numbers, got "
                            f"{_check.describe(clusters)}")
        targets = [cluster] if clusters is None else list(clusters)
        # One pass over iterators: every cluster's thread gets the same values.
        sources = sources if isinstance(sources, (str, os.PathLike)) or not hasattr(sources, "__iter__") else (
            list(sources) if not isinstance(sources, (bytes, bytearray)) else sources)
        regions = regions if isinstance(regions, str) or not hasattr(regions, "__iter__") else list(regions)
        words = words if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__") else list(words)
        if not targets:
            raise ProgramError("Program.thread: clusters is empty")
        decls = [ThreadDecl(c, sources, regions, words, host_fallback, deadline, prefetch, self) for c in targets]
        taken = {t.cluster for t in self.threads}
        for d in decls:
            if d.cluster in taken:
                raise ProgramError(f"Program.thread: cluster {d.cluster} has a thread already (one per cluster)")
            taken.add(d.cluster)
        self.threads += decls
        return self

    def handler(self, name):
        """A handler's number by name ('nop' is 0); a number is checked and returned."""
        if isinstance(name, int) and not isinstance(name, bool):
            if name == 0 or name in self.handlers.values():
                return name
            raise ProgramError(f"Program '{self.name}' has no handler number {name}")
        if name in ("nop", "NOP"):
            return 0
        if name not in self.handlers:
            known = ", ".join(self.handlers) or "none"
            raise ProgramError(f"Program '{self.name}' has no handler {name!r} (it has: {known})")
        return self.handlers[name]

    def core_args(self, grid):
        """args(core) for every core, in core order, as (reader, writer, compute) word lists."""
        if self.args is None:
            return []
        out = []
        for y in range(grid[1]):
            for x in range(grid[0]):
                got = self.args((x, y))
                if not isinstance(got, (tuple, list)) or len(got) != 3:
                    raise ProgramError(f"Program '{self.name}': args(({x}, {y})) must return (reader, writer, "
                                       f"compute), got {_check.describe(got)}")
                out.append(tuple(_words(a, f"Program: args(({x}, {y}))[{i}]") for i, a in enumerate(got)))
        return out

    def __repr__(self):
        return f"Program({self.name!r}, depth={self.depth}, handlers={self.handlers!r})"
