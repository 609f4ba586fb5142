"""External kernels: C/C++ functions a core_fn calls with pointers into its
core's L1. Kernel(name, object_or_source, arg_types) names a compiled object
or a source; ExternalFunction takes the source as a file or a string.

tessel builds every kernel from its C/C++ source with the host compiler, so an
object name ("scale.o", "passThrough.cc.o") resolves to a source: first beside
the given path, in the design's directory (that of the running script) and in
the current directory, then in tessel's own kernel library
(kernel/include/aie_kernels/: the architecture's directory, generic/, then the
other architecture's). Kernels written against the AIE API (<aie_api/aie.hpp>)
compile there unchanged (docs/iron.md)."""

import contextlib
import contextvars
import hashlib
import os
import re
import shlex
import sys
import weakref

import numpy as np

from ..errors import warn
from . import trace
from .errors import IronRuntimeError
from .types import array_type, c_type, is_array_type

_SOURCE_EXTS = (".cc", ".cpp", ".c")

# Once per worker kernel, before the first external function's source.
_ANY_PTR = ("#ifndef TESSEL_IRON_ANY_PTR\n#define TESSEL_IRON_ANY_PTR\n"
            "struct tessel_iron_any_ptr {\n  void* p;\n"
            "  template <typename T> operator T*() const { return static_cast<T*>(p); }\n};\n#endif\n")
_AIE_ARCHS = ("aie2", "aie2p")


def kernel_include_dir():
    """tessel's kernel header directory, the one holding aie_api/ and
    aie_kernels/: $TESSEL_KERNEL_INCLUDE_DIR (an installed wheel sets it),
    else the source tree's kernel/include."""
    env = os.environ.get("TESSEL_KERNEL_INCLUDE_DIR")
    if env:
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, os.pardir, os.pardir, os.pardir, "kernel", "include"))


_compiling_for = contextvars.ContextVar("tessel_iron_compiling_for", default=None)
_object_flags = {}  # object file name -> compile flags (python -m tessel.iron.run --kernel-flags)


def object_flags():
    """{object name: [flags]}: the flags the kernels built as that object
    get, as the design's Makefile would build it (set_object_flags)."""
    return {k: list(v) for k, v in _object_flags.items()}


def set_object_flags(flags):
    """Build the Kernel (or ExternalFunction with object_file_name) named by
    each object ("transpose.o") of `flags` ({object: [flag, ...]} or
    ["OBJECT=FLAGS", ...]) with those flags too (-DNAME[=VALUE], -I DIR):
    what a design's Makefile passes when it compiles that object, which the
    design itself never names. Replaces what was set."""
    parsed = parse_object_flags(flags)
    _object_flags.clear()
    _object_flags.update(parsed)


def parse_object_flags(flags):
    """{object: [flag, ...]} from set_object_flags' forms; ValueError
    naming a malformed entry."""
    parsed = {}
    items = flags.items() if isinstance(flags, dict) else (_split_object_flags(f) for f in flags)
    for obj, fl in items:
        fl = shlex.split(fl) if isinstance(fl, str) else list(fl)
        bad = [f for i, f in enumerate(fl) if not f.startswith(("-D", "-I")) and (i == 0 or fl[i - 1] != "-I")]
        if not obj or os.path.basename(obj) != obj or bad:
            raise ValueError(f"kernel flags for {obj!r}: expected an object file name (transpose.o) and -DNAME[=VALUE] "
                             f"or -IDIR flags" + (f", got {' '.join(bad)}" if bad else ""))
        parsed.setdefault(obj, []).extend(fl)
    return parsed


def _split_object_flags(text):
    obj, sep, fl = text.partition("=")
    if not sep:
        raise ValueError(f"kernel flags {text!r}: expected OBJECT=FLAGS (transpose.o='-DDIM_m=64 -DDIM_n=32')")
    return obj.strip(), fl


def aie_arch():
    """The AIE architecture whose kernel library is preferred: "aie2p" (NPU2)
    or "aie2" (NPU1). $TESSEL_AIE_ARCH, else that of the device a Program
    is resolving its workers for (compiling_for), else the current IRON
    device's (set_current_device(NPU2()), as tessel.iron.run starts), else
    "aie2"."""
    env = os.environ.get("TESSEL_AIE_ARCH")
    if env:
        if env not in _AIE_ARCHS:
            raise ValueError(f"TESSEL_AIE_ARCH={env!r}: expected one of {', '.join(_AIE_ARCHS)}")
        return env
    arch = _compiling_for.get()
    if arch is None:
        from . import device

        arch = getattr(device.current_iron_device(), "arch", None)
    return arch if arch in _AIE_ARCHS else "aie2"


@contextlib.contextmanager
def compiling_for(device):
    """While a Program resolves for `device` (an IRON device such as
    NPU1Col4()), kernels compile for its architecture: a library kernel
    found in aie_kernels/<arch>/ is taken from the device's directory and
    __AIE_ARCH__ is the device's, as IRON's Makefiles build a design's
    kernels for the device it names, whatever device was current when the
    Kernel was made."""
    token = _compiling_for.set(getattr(device, "arch", None))
    try:
        yield
    finally:
        _compiling_for.reset(token)


def library_dirs():
    """tessel's kernel library directories, in search order."""
    return _arch_dirs(os.path.join(kernel_include_dir(), "aie_kernels"))


def _arch_dirs(root):
    arch = aie_arch()
    other = [a for a in _AIE_ARCHS if a != arch]
    return [os.path.join(root, d) for d in (arch, "generic", *other)]


def _arch_relative(path, searched):
    """(aie_kernels root, file name) when `path` is a kernel of an
    architecture's directory (aie_kernels/aie2/x.cc) whose twin for another
    architecture is taken when compiling for it: one of tessel's library, or,
    when the path was found by a search rather than named by the design, one
    of the IRON tree the design sits in; else None."""
    arch_dir = os.path.dirname(path)
    if os.path.basename(arch_dir) not in _AIE_ARCHS:
        return None
    root = os.path.dirname(arch_dir)
    return (root, os.path.basename(path)) if os.path.realpath(root) in _kernel_roots(searched) else None


def _kernel_roots(iron_tree=True):
    """The aie_kernels/ folders (real paths) of tessel's library and, with
    iron_tree, of the IRON tree the design sits in."""
    roots = [os.path.realpath(os.path.join(kernel_include_dir(), "aie_kernels"))]
    return roots + [os.path.realpath(os.path.dirname(d)) for d in iron_tree_dirs()[:1]] if iron_tree else roots


def iron_tree_dirs():
    """The kernel directories of the IRON tree a design sits in, if it does:
    the nearest ancestor of the design's directory holding aie_kernels/
    (IRON's Makefiles build a design's kernels from there), by architecture,
    then its family folders (activation/, eltwise/, linalg/, ...: the layout
    of IRON's newer trees) in name order."""
    d = _design_dir()
    while d:
        root = os.path.join(d, "aie_kernels")
        if os.path.isdir(root):
            families = sorted(f for f in os.listdir(root)
                              if f not in (*_AIE_ARCHS, "aie1", "generic") and os.path.isdir(os.path.join(root, f)))
            return [x for x in _arch_dirs(root) if os.path.isdir(x)] + [os.path.join(root, f) for f in families]
        parent = os.path.dirname(d)
        d = parent if parent != d else None
    return []


def _design_dir():
    script = sys.argv[0] if sys.argv else ""
    return os.path.dirname(os.path.abspath(script)) if script and os.path.isfile(script) else None


def _candidate_names(file_name):
    """The source names an object or source file name stands for."""
    base = os.path.basename(file_name)
    stem = base[:-2] if base.endswith(".o") else base  # "x.cc.o" -> x.cc, "x.o" -> x.cc / x.cpp / x.c
    if stem.endswith(_SOURCE_EXTS):
        return [stem]
    return [stem + ext for ext in _SOURCE_EXTS]


def find_kernel_source(file_name, what):
    """The source file `file_name` (an object or source name, with or without
    a directory) stands for; FileNotFoundError listing every place looked."""
    given = os.path.dirname(file_name)
    dirs = [os.path.abspath(given) if given else None, _design_dir(), os.getcwd(), *iron_tree_dirs(), *library_dirs()]
    dirs = list(dict.fromkeys(d for d in dirs if d))
    names = _candidate_names(file_name)
    for d in dirs:
        for n in names:
            path = os.path.join(d, n)
            if os.path.isfile(path):
                return path
    raise FileNotFoundError(
        f"{what}: no C/C++ source for {file_name!r} (tessel builds kernels from source: looked for "
        f"{' or '.join(names)}) in " + ", ".join(dirs))


def _scalar_c(t):
    try:
        return c_type(np.dtype(t))
    except TypeError:
        raise TypeError(f"kernel argument type {t!r} is neither an np.ndarray type nor a numpy scalar type") from None


class ArgTypes(list):
    """A kernel's argument types: a list, and callable (IRON's newer
    `func.arg_types()` gives a copy of it)."""

    def __call__(self):
        return list(self)


class CoreFunction:
    """What a Worker's core_fn calls (IRON's base of ExternalFunction and Kernel)."""


class ExternalFunction(CoreFunction):
    _instances = weakref.WeakSet()  # every kernel made, as IRON keeps them for its compiler (designs clear it)

    def __init__(self, name, object_file_name=None, source_file=None, source_string=None, arg_types=(),
                 include_dirs=(), compile_flags=(), inline=False, use_chess=False, **unsupported):
        if unsupported:
            raise TypeError(f"ExternalFunction '{name}': unexpected arguments {', '.join(sorted(unsupported))}")
        # inline= (IRON links the kernel as LLVM IR to inline it) and use_chess=
        # (the chess compiler) choose how the AIE builds it; tessel builds every
        # kernel with the worker's kernel, so they are recorded, not acted on.
        self.inline, self.use_chess = bool(inline), bool(use_chess)
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"ExternalFunction: name must be a C identifier, got {name!r}")
        if (source_file is None) == (source_string is None):
            raise TypeError(f"ExternalFunction '{name}': give exactly one of source_file= and source_string=")
        searched = source_file is not None and not os.path.isfile(source_file)
        if searched:
            source_file = find_kernel_source(source_file, f"ExternalFunction '{name}'")
        self.include_dirs = []
        for d in include_dirs:
            if os.path.isdir(d):
                self.include_dirs.append(os.path.abspath(d))
            else:  # the compiler skips it too
                warn(f"ExternalFunction '{name}': include_dirs names no directory {d!r}; it is skipped")
        # IRON's kernels include "../aie_kernel_utils.h" from aie_kernels/<arch>/:
        # through this directory that finds tessel's, wherever the source is.
        self.include_dirs.append(os.path.join(kernel_include_dir(), "aie_kernels", "generic"))
        self.defines = []  # (name, value or None), from -D flags
        flags = list(compile_flags)
        if object_file_name:
            flags += _object_flags.get(os.path.basename(object_file_name), [])
        i = 0
        while i < len(flags):
            f = flags[i]
            if f == "-I" and i + 1 < len(flags):
                self.include_dirs.append(os.path.abspath(flags[i + 1]))
                i += 2
                continue
            if f.startswith("-I") and len(f) > 2:
                self.include_dirs.append(os.path.abspath(f[2:]))
            elif f.startswith("-D") and len(f) > 2 and f[2:].split("=")[0].isidentifier():
                key, _, value = f[2:].partition("=")
                self.defines.append((key, value if "=" in f else None))
            else:
                raise ValueError(f"ExternalFunction '{name}': compile flag {f!r} is not supported here; the kernel "
                                 "is built with the worker's kernel, so only -DNAME[=VALUE] and -I DIR apply")
            i += 1
        self.name = name
        self._source_file = os.path.abspath(source_file) if source_file else None
        self._arch_source = _arch_relative(self._source_file, searched) if self._source_file else None
        self.source_string = source_string
        self.arg_types = ArgTypes(arg_types)
        self._width_from_arguments()
        self.bin_name = object_file_name or f"{name}.o"
        ExternalFunction._instances.add(self)
        self._c_args = [("ptr", array_type(t, f"{name} argument {i}")[1]) if is_array_type(t) else ("val", _scalar_c(t))
                        for i, t in enumerate(self.arg_types)]

    @property
    def source_file(self):
        """The kernel's source; for a library kernel of an architecture's
        directory, the one of the architecture being compiled for."""
        if self._arch_source is not None:
            root, name = self._arch_source
            for d in _arch_dirs(root):
                path = os.path.join(d, name)
                if os.path.isfile(path):
                    return path
        return self._source_file

    def _width_from_arguments(self):
        """A library kernel (tessel's, or of the IRON tree the design sits in)
        typed by -DBIT_WIDTH (passThrough, scale, transpose, threshold) gets
        the width of its first array argument's elements when no flag gives
        it, as IRON's Makefiles build it for the design's type."""
        if self.source_file is None or any(k == "BIT_WIDTH" for k, _ in self.defines):
            return
        src = os.path.realpath(self.source_file)
        if not any(os.path.commonpath([src, r]) == r for r in _kernel_roots()):
            return
        with open(self.source_file, errors="replace") as f:
            if "BIT_WIDTH" not in f.read():
                return
        arrays = [t for t in self.arg_types if is_array_type(t)]
        if arrays:
            bits = 8 * array_type(arrays[0], f"{self.name} argument 0")[1].itemsize
            if bits in (8, 16, 32):
                self.defines.append(("BIT_WIDTH", str(bits)))

    def tile_size(self, arg_index=0):
        """The first dimension of array argument `arg_index` (IRON's tile size)."""
        if not 0 <= arg_index < len(self.arg_types) or not is_array_type(self.arg_types[arg_index]):
            raise ValueError(f"kernel '{self.name}': argument {arg_index} is not an array, so it has no tile size")
        return array_type(self.arg_types[arg_index], f"kernel '{self.name}' argument {arg_index}")[0][0]

    def source_text(self):
        """The source as the worker's kernel includes it, with its -D flags
        defined around it only."""
        body = (f'#line 1 "{self.name}.cc"\n{self.source_string}\n' if self.source_string is not None
                else f'#include "{self.source_file}"\n')
        before = "".join(f"#define {k} {'' if v is None else v}\n" for k, v in self.defines)
        after = "".join(f"#undef {k}\n" for k, _ in self.defines)
        arch = {"aie2": 20, "aie2p": 21}[aie_arch()]  # what IRON's compilers define for the target (Peano's __AIE_ARCH__)
        builtins = f'#include "aie_api/detail/builtins.hpp"\n#ifndef __AIE_ARCH__\n#define __AIE_ARCH__ {arch}\n#endif\n'
        return _ANY_PTR + builtins + before + body + after

    def stable_key(self):
        """What the kernel is, the same in every process (iron.jit's cache keys)."""
        return self.hash()

    def hash(self):
        text = self.source_string if self.source_string is not None else open(self.source_file).read()
        return hashlib.sha256((self.name + repr(self.arg_types) + repr(self.defines) + repr(self.include_dirs) +
                               text).encode()).hexdigest()

    def __call__(self, *args):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"kernel '{self.name}' is called inside a Worker's core_fn")
        if self not in t.worker.fn_args:
            raise IronRuntimeError(f"kernel '{self.name}' was not given to worker '{t.worker.name}' in its fn_args")
        if len(args) != len(self._c_args):
            raise TypeError(f"kernel '{self.name}' takes {len(self._c_args)} arguments, got {len(args)}")
        out = []
        for i, (a, (kind, ty)) in enumerate(zip(args, self._c_args)):
            if kind == "ptr":
                if not hasattr(a, "c_arg"):
                    raise TypeError(f"kernel '{self.name}' argument {i} is an array: pass an acquired object")
                # An object passes as whatever pointer the function takes, as
                # IRON links a kernel by its C symbol alone: a design's int16
                # tile to a kernel's uint16_t*, bfloat16 data to bfloat16* (the
                # AIE API) or uint16_t* (without it).
                out.append(f"tessel_iron_any_ptr{{{a.c_arg(ty)}}}")
            elif isinstance(a, (int, np.integer, float, np.floating)) and not isinstance(a, bool):
                out.append(f"{ty}({a})")
            elif hasattr(a, "c_expr"):
                out.append(f"{ty}({a.c_expr()})")
            else:
                raise TypeError(f"kernel '{self.name}' argument {i} must be a number, got {a!r}")
        t.functions[self.name] = self
        t.emit(f"{self.name}({', '.join(out)});")


class Kernel(ExternalFunction):
    """A kernel named by its compiled object ("scale.o", "passThrough.cc.o")
    or its source; the source is found as find_kernel_source() says."""

    def __init__(self, name, bin_name, arg_types=()):
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"Kernel: name must be a C identifier, got {name!r}")
        flags = []
        if os.path.isfile(bin_name) and bin_name.endswith(_SOURCE_EXTS):
            src = bin_name
        else:
            try:
                src = find_kernel_source(bin_name, f"Kernel '{name}'")
            except FileNotFoundError as missing:
                src, flags = _object_of_the_library(name, bin_name)
                if src is None:
                    raise missing from None
        flags += _object_flags.get(os.path.basename(bin_name), [])
        super().__init__(name, source_file=src, arg_types=arg_types, compile_flags=flags)
        self.bin_name = bin_name
        if src is not bin_name:  # an object name IRON's Makefile builds for the device: found by a search
            self._arch_source = _arch_relative(self._source_file, searched=True)


_MM_OBJECT = re.compile(r"^mm_(\d+)x(\d+)x(\d+)\.o$")


def _object_of_the_library(name, bin_name):
    """(source, flags) of an object IRON's Makefiles build from its kernel
    library under a name of their own: mm_<m>x<k>x<n>.o is mm.cc with
    -DDIM_M/K/N; an archive or object named otherwise (kernels.a) is the
    source defining `name` beside the design, in the IRON tree it sits in,
    or in tessel's library (the first that defines the function and is not a
    host program). (None, []) when there is none."""
    base = os.path.basename(bin_name)
    mm = _MM_OBJECT.match(base)
    if mm:
        m, k, n = mm.groups()
        try:
            return find_kernel_source("mm.cc", f"Kernel '{name}'"), [f"-DDIM_M={m}", f"-DDIM_K={k}", f"-DDIM_N={n}"]
        except FileNotFoundError:
            return None, []
    definition = re.compile(rf"\b{re.escape(name)}\s*\([^;{{}}]*\)\s*\{{")
    for d in dict.fromkeys(x for x in (_design_dir(), os.getcwd(), *iron_tree_dirs(), *library_dirs()) if x):
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if f.endswith(_SOURCE_EXTS) and os.path.isfile(path):
                with open(path, errors="replace") as fh:
                    text = fh.read()
                if not _HOST_PROGRAM.search(text) and definition.search(text):
                    return path, []
    return None, []


# A host program beside a design (a C++ testbench over XRT) may define a
# reference function of the kernel's name; it is not the kernel.
_HOST_PROGRAM = re.compile(r'^\s*#\s*include\s*[<"](xrt/|test_utils\.h|xrt_test_wrapper\.h)', re.M)


__all__ = ["CoreFunction", "ExternalFunction", "Kernel", "aie_arch", "find_kernel_source", "kernel_include_dir", "library_dirs"]
