"""External kernels: C/C++ functions a core_fn calls with pointers into its
core's L1. Kernel(name, source, arg_types) names a source file (an object
file name resolves to the C/C++ source beside it); ExternalFunction takes the
source as a file or a string."""

import hashlib
import os

import numpy as np

from . import trace
from .errors import IronRuntimeError
from .types import array_type, c_type, is_array_type


def _scalar_c(t):
    try:
        return c_type(np.dtype(t))
    except TypeError:
        raise TypeError(f"kernel argument type {t!r} is neither an np.ndarray type nor a numpy scalar type") from None


class ExternalFunction:
    def __init__(self, name, object_file_name=None, source_file=None, source_string=None, arg_types=(),
                 include_dirs=(), compile_flags=()):
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"ExternalFunction: name must be a C identifier, got {name!r}")
        if (source_file is None) == (source_string is None):
            raise TypeError(f"ExternalFunction '{name}': give exactly one of source_file= and source_string=")
        if source_file is not None and not os.path.isfile(source_file):
            raise FileNotFoundError(f"ExternalFunction '{name}': no source file {source_file!r}")
        self.include_dirs = [os.path.abspath(d) for d in include_dirs]
        for d in self.include_dirs:
            if not os.path.isdir(d):
                raise FileNotFoundError(f"ExternalFunction '{name}': include_dirs names no directory {d!r}")
        self.defines = []  # (name, value or None), from -D flags
        flags = list(compile_flags)
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
        self.source_file = os.path.abspath(source_file) if source_file else None
        self.source_string = source_string
        self.arg_types = list(arg_types)
        self._c_args = [("ptr", array_type(t, f"{name} argument {i}")[1]) if is_array_type(t) else ("val", _scalar_c(t))
                        for i, t in enumerate(self.arg_types)]

    def source_text(self):
        """The source as the worker's kernel includes it, with its -D flags
        defined around it only."""
        body = (f'#line 1 "{self.name}.cc"\n{self.source_string}\n' if self.source_string is not None
                else f'#include "{self.source_file}"\n')
        before = "".join(f"#define {k} {'' if v is None else v}\n" for k, v in self.defines)
        after = "".join(f"#undef {k}\n" for k, _ in self.defines)
        return before + body + after

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
                out.append(a.c_arg(ty))
            elif isinstance(a, (int, np.integer, float, np.floating)) and not isinstance(a, bool):
                out.append(f"{ty}({a})")
            elif hasattr(a, "c_expr"):
                out.append(f"{ty}({a.c_expr()})")
            else:
                raise TypeError(f"kernel '{self.name}' argument {i} must be a number, got {a!r}")
        t.functions[self.name] = self
        t.emit(f"{self.name}({', '.join(out)});")


class Kernel(ExternalFunction):
    def __init__(self, name, bin_name, arg_types=()):
        src = bin_name
        if not os.path.isfile(src) or src.endswith(".o"):
            stem = os.path.splitext(bin_name)[0]
            found = [stem + ext for ext in (".cc", ".cpp", ".c") if os.path.isfile(stem + ext)]
            if not found:
                raise FileNotFoundError(
                    f"Kernel '{name}': tessel runs kernels from their C/C++ source; no {stem}.cc, .cpp or .c "
                    f"beside {bin_name!r}")
            src = found[0]
        super().__init__(name, source_file=src, arg_types=arg_types)
