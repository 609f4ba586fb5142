"""A jit design's explicit outputs: `design.compile(xclbin_path=...,
inst_path=..., pdi_path=...)`, `design.compilable.get_dispatch_lib_path()`
and `design.as_mlir()` (str() of the design generated with no tensors:
None for each tensor parameter, for generators whose shapes come from
CompileTime values; under tessel.iron.run, with the design record).

tessel builds no xclbin, instruction stream or PDI: each path given (none:
final.xclbin and insts.bin in the jit cache) gets the design record (design_record.py) that a test program's -x/-i maps back
to the design, and the directory `<xclbin stem>.prj/` beside the xclbin
gets `libtessel_dispatch.so`, a link to tessel's native library (what
builds and runs the design's command stream on every dispatch: tessel's
counterpart of IRON's transaction-builder library). The workers' kernels
are built on the first dispatch, for the tensors it binds, into the kernel
cache (TESSEL_CACHE_DIR).
"""

import hashlib
import os

from . import design_record

__all__ = ["DISPATCH_LIB", "as_mlir", "compile_design", "dispatch_lib_path"]

DISPATCH_LIB = "libtessel_dispatch.so"


def _native_library():
    from .. import _tessel

    return os.path.abspath(_tessel.__file__)


def _prj_dir(xclbin_path):
    stem = os.path.splitext(os.path.abspath(xclbin_path))[0]
    return stem + ".prj"


def _default_paths(jit_design):
    """final.xclbin and insts.bin in the jit cache, one directory per
    generator and specialization."""
    from .design_cache import cache_root

    key = f"{jit_design._name}|{sorted((k, repr(v)) for k, v in jit_design.specialized.items())}"
    directory = cache_root() / "records" / hashlib.sha256(key.encode()).hexdigest()[:16]
    return str(directory / "final.xclbin"), str(directory / "insts.bin")


def compile_design(jit_design, xclbin_path=None, inst_path=None, pdi_path=None, elf_path=None, **options):
    """JitDesign.compile: the record at every path given (none given: an
    xclbin and an insts path in the jit cache), the dispatch library in
    <xclbin stem>.prj/; returns (xclbin path, insts path), as IRON's does.
    Under a replay (design_record.load) it writes nothing."""
    if xclbin_path is None and pdi_path is None:
        xclbin_path, inst_path = _default_paths(jit_design)
    if design_record.compiled(jit_design):
        return xclbin_path, inst_path
    design_record.write_record([xclbin_path, inst_path, pdi_path, elf_path])
    anchor = xclbin_path or pdi_path
    prj = _prj_dir(anchor)
    os.makedirs(prj, exist_ok=True)
    link = os.path.join(prj, DISPATCH_LIB)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(_native_library(), link)
    jit_design.__dict__["_artifacts"] = anchor
    return xclbin_path, inst_path


def dispatch_lib_path(jit_design):
    """The dispatch library of the last compile(); RuntimeError before one."""
    anchor = jit_design.__dict__.get("_artifacts")
    if anchor is None:
        raise RuntimeError(f"{jit_design.__qualname__}: get_dispatch_lib_path() needs compile(xclbin_path=...) first "
                           "(without it, builds live in the jit cache and the dispatch library is tessel's own)")
    return os.path.join(_prj_dir(anchor), DISPATCH_LIB)


def as_mlir(jit_design, params, specialized):
    """str() of the design `jit_design` generates with None for each tensor
    and the CompileTime defaults (TypeError for one without a default)."""
    from .jit_signature import COMPILE, TENSOR, NO_VALUE

    where = f"{jit_design.__qualname__}.as_mlir()"
    config = {}
    for p in params:
        if p.role == COMPILE and p.name not in specialized:
            if p.default is NO_VALUE:
                raise TypeError(f"{where}: CompileTime value `{p.name}` has no default; fix it with "
                                f"specialize({p.name}=...)")
            config[p.name] = p.default
    given = {p.name: None for p in params if p.role == TENSOR}
    return str(jit_design._generate(given, config))
