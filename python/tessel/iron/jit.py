"""iron.jit: build a design from a generator once per configuration, then
dispatch it on every call.

    @iron.jit
    def copy(a: iron.In, b: iron.Out, *,
             count: iron.DispatchTime[np.int32] = 3,
             tile_size: iron.CompileTime[int] = 256):
        ...
        return Program(device, rt, workers=[...]).resolve_program()

    copy(a, b)                       # builds, then dispatches with count=3
    copy(a, b, count=6)              # the same design, another dispatch
    copy.specialize(count=3)(a, b)   # count folded into the design

Parameters (read from the generator's signature when it is decorated):

- `In`/`Out`/`InOut` tensors, positional. A positional parameter without
  a default and without a marker (unannotated, or annotated np.ndarray or
  Tensor) is a tensor too, as InOut.
- `DispatchTime[T]`, keyword-only: the generator receives a
  dispatch_time.DispatchParameter and must forward it to its Runtime; each
  call supplies the value (or the signature default) to design.run.
- `CompileTime[T]` (and any other parameter with a default or after `*`):
  passed to the generator as given; part of the cache key.

Specialising (`iron.jit(gen, count=3)`, `design.specialize(count=3)`) fixes
DispatchTime or CompileTime values: the generator receives a typed NumPy
constant (np.int32(3)) for a fixed DispatchTime parameter, the value is part
of the cache key, and calls may not override it. Defaults never specialise.

The generator returns the resolved design; it is used only through
`design.run(arrays, scalars)`, `design.dispatch_names`, `design.to_dict()`
and `type(design).from_dict(d)`.

Caches. A build is keyed by the generator (module, qualified name and a
digest of its bytecode, nested code, and the plain values its closures and
globals hold), each tensor's shape and dtype, the CompileTime values and the
specialised values. Each JitDesign keeps its builds in `_kernel_cache`
(key -> CompiledDesign); DispatchTime values are never part of a key, so one
build serves every dispatch value. Behind that sits a disk cache,
`$TESSEL_CACHE_DIR/iron/<sha256 of the key>/design.json` (default cache dir
`$XDG_CACHE_HOME/tessel`, else `~/.cache/tessel`):

- An entry is written to a temporary file and renamed into place, so a
  reader sees a whole entry or none. Readers take no lock.
- A miss is built under an flock on `design.lock` in the key's directory,
  and the entry is re-read once the lock is held, so concurrent processes
  build a key once. The lock file is removed before the lock is released; a
  waiter that then finds its lock file unlinked starts over.
- A generator that raises leaves neither directory nor lock file.
- An entry that cannot be read, does not match its key or whose from_dict
  fails is rebuilt and replaced, never trusted.
- Keys with a CompileTime value that has no stable text (an arbitrary
  object) live in memory only.
"""

import contextlib
import dataclasses
import enum
import fcntl
import functools
import hashlib
import importlib
import inspect
import json
import os
import pathlib
import tempfile
import threading
import types
import typing
import weakref
from typing import Any, Callable, Optional

import numpy as np

from .. import __version__ as _tessel_version
from .._check import describe
from . import dispatch_time
from .markers import (
    CompileTime,
    CompileTimeAnnotation,
    DispatchTime,
    DispatchTimeAnnotation,
    InOut,
    TensorArgument,
    type_name,
)
from .tensor import Tensor

__all__ = ["jit", "JitDesign", "CompiledDesign", "Compilable", "clear_memory_cache", "cache_root"]

_CACHE_FORMAT = 1
_ENTRY_FILE = "design.json"
_LOCK_FILE = "design.lock"

_TENSOR, _COMPILE, _DISPATCH = "tensor", "compile", "dispatch"
_NO_VALUE = inspect.Parameter.empty


# --------------------------------------------------------------------------------------------
# The generator's signature


@dataclasses.dataclass(frozen=True)
class _Param:
    """One generator parameter: `role` is _TENSOR, _COMPILE or _DISPATCH;
    `marker` the direction class, CompileTimeAnnotation or the NumPy dtype."""

    name: str
    role: str
    marker: Any
    default: Any
    positional_only: bool
    annotated: bool

    def describe(self) -> str:
        if self.role == _TENSOR:
            return f"{self.name} ({self.marker.__name__})"
        if self.role == _DISPATCH:
            return f"{self.name} (DispatchTime[{type_name(self.marker)}])"
        return f"{self.name} ({self.marker!r})"


def _read_signature(generator: Callable, name: str) -> tuple:
    try:
        signature = inspect.signature(generator, eval_str=True)
    except Exception as error:
        raise TypeError(f"{name}: cannot read the generator's signature: {error}") from None
    params = []
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind == p.VAR_POSITIONAL else "**"
            raise TypeError(f"{name}: a jit generator takes named parameters only; `{star}{p.name}` is not supported")
        params.append(_classify(p, name))
    return tuple(params)


def _classify(p: inspect.Parameter, name: str) -> _Param:
    annotation = p.annotation
    positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    only = p.kind == p.POSITIONAL_ONLY
    if isinstance(annotation, type) and issubclass(annotation, TensorArgument):
        if annotation is TensorArgument:
            raise TypeError(f"{name}: annotate tensor parameter `{p.name}` with In, Out or InOut")
        if not positional:
            raise TypeError(
                f"{name}: tensor parameter `{p.name}` ({annotation.__name__}) must be positional; keyword-only "
                f"parameters (after `*`) are for DispatchTime and CompileTime values"
            )
        if p.default is not _NO_VALUE:
            raise TypeError(
                f"{name}: tensor parameter `{p.name}` ({annotation.__name__}) cannot have a default: every call "
                f"binds every tensor"
            )
        return _Param(p.name, _TENSOR, annotation, _NO_VALUE, only, True)
    if annotation is DispatchTime:
        raise TypeError(f"{name}: DispatchTime parameter `{p.name}` needs its type: DispatchTime[np.int32]")
    if isinstance(annotation, DispatchTimeAnnotation):
        if p.kind != p.KEYWORD_ONLY:
            raise TypeError(
                f"{name}: DispatchTime parameter `{p.name}` must be keyword-only, even when defaulted or "
                f"specialized: put it after `*` (def {name.rsplit('.', 1)[-1]}(..., *, {p.name}: "
                f"DispatchTime[{type_name(annotation.dtype)}]))"
            )
        default = p.default
        if default is not _NO_VALUE:
            default = _dispatch_integer(default, annotation.dtype, f"{name}: the default of `{p.name}`")
        return _Param(p.name, _DISPATCH, annotation.dtype, default, False, True)
    if annotation is CompileTime:
        return _Param(p.name, _COMPILE, CompileTimeAnnotation(Any), p.default, only, True)
    if isinstance(annotation, CompileTimeAnnotation):
        return _Param(p.name, _COMPILE, annotation, p.default, only, True)
    # No marker: a positional parameter without a default, unannotated or
    # annotated as an array, is a tensor; anything else is configuration.
    if positional and p.default is _NO_VALUE and _array_annotation(annotation):
        return _Param(p.name, _TENSOR, InOut, _NO_VALUE, only, False)
    return _Param(p.name, _COMPILE, CompileTimeAnnotation(annotation if annotation is not _NO_VALUE else Any),
                  p.default, only, False)


def _array_annotation(annotation: Any) -> bool:
    if annotation is _NO_VALUE:
        return True
    origin = typing.get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, (np.ndarray, Tensor))


def _dispatch_integer(value: Any, dtype: type, what: str) -> int:
    """value as an int in dtype's range; TypeError for non-integers (bool
    included), ValueError when out of range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{what} must be an integer (int or NumPy integer) for {type_name(dtype)}, got {describe(value)}"
        )
    v = int(value)
    info = np.iinfo(dtype)
    if v < info.min or v > info.max:
        raise ValueError(f"{what} = {v} is out of range for {type_name(dtype)} ({info.min}..{info.max})")
    return v


# --------------------------------------------------------------------------------------------
# Cache keys


class _NoStableForm(Exception):
    """A value with no text that means the same in another process."""


def _stable(value: Any, plain_only: bool) -> Any:
    """A JSON-able form of value that is equal across processes exactly when
    the values are equal, or _NoStableForm. `plain_only` admits only
    immutable values: scalars, dtypes, types, enums and tuples and
    frozensets of them (closure and global values, which may be mutated
    between calls); otherwise lists, sets, dicts, arrays, dataclasses and
    functions are admitted too (CompileTime values)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return ["float", value.hex()]
    if isinstance(value, complex):
        return ["complex", value.real.hex(), value.imag.hex()]
    if isinstance(value, bytes):
        return ["bytes", value.hex()]
    if isinstance(value, np.generic) and not isinstance(value, np.void):
        return ["numpy", value.dtype.name, value.dtype.str, value.tobytes().hex()]
    if isinstance(value, np.dtype):
        return ["dtype", value.name, value.str]
    if isinstance(value, enum.Enum):
        return ["enum", type(value).__module__, type(value).__qualname__, value.name]
    if isinstance(value, type):
        return ["type", value.__module__, value.__qualname__]
    if isinstance(value, tuple):
        return ["tuple", [_stable(v, plain_only) for v in value]]
    if isinstance(value, frozenset):
        return ["frozenset", sorted(_canonical(_stable(v, plain_only)) for v in value)]
    if plain_only:
        raise _NoStableForm
    if isinstance(value, list):
        return ["list", [_stable(v, plain_only) for v in value]]
    if isinstance(value, set):
        return ["set", sorted(_canonical(_stable(v, plain_only)) for v in value)]
    if isinstance(value, dict):
        return ["dict", sorted([_canonical(_stable(k, plain_only)), _stable(v, plain_only)] for k, v in value.items())]
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return ["ndarray", value.dtype.name, value.dtype.str, list(value.shape), hashlib.sha256(data).hexdigest()]
    if isinstance(value, types.FunctionType):
        return ["function", value.__module__, value.__qualname__, _function_fingerprint(value, value.__module__, {})]
    if dataclasses.is_dataclass(value):
        fields = [[f.name, _stable(getattr(value, f.name), False)] for f in dataclasses.fields(value)]
        return ["dataclass", type(value).__module__, type(value).__qualname__, fields]
    raise _NoStableForm


def _literal(const: Any) -> str:
    """A code constant as text that does not depend on hash order."""
    if isinstance(const, tuple):
        return "(" + ",".join(_literal(c) for c in const) + ")"
    if isinstance(const, frozenset):
        return "frozenset{" + ",".join(sorted(_literal(c) for c in const)) + "}"
    return f"{type(const).__name__}:{const!r}"


@functools.lru_cache(maxsize=None)
def _code_summary(code: types.CodeType) -> tuple:
    """(digest of code and every code object nested in it, sorted names they
    load). Line numbers and file names are left out: moving a generator does
    not change what it builds."""
    digest = hashlib.sha256()
    names = set()

    def walk(c: types.CodeType):
        header = (c.co_name, c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount, c.co_flags, c.co_names,
                  c.co_varnames, c.co_freevars, c.co_cellvars)
        digest.update(repr(header).encode())
        digest.update(c.co_code)
        names.update(c.co_names)
        for const in c.co_consts:
            if isinstance(const, types.CodeType):
                digest.update(b"<code>")
                walk(const)
            else:
                digest.update(_literal(const).encode())
            digest.update(b"\0")

    walk(code)
    return digest.hexdigest(), tuple(sorted(names))


def _cell_full(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _function_fingerprint(fn: types.FunctionType, module: str, seen: dict, with_defaults: bool = True) -> list:
    """The code digest of fn plus what its closure cells, the globals it
    names and (with_defaults) its parameter defaults hold: plain values, and
    the fingerprints of functions from `module` (the generator's own
    helpers). Other values are left out."""
    if id(fn) in seen:
        return ["recursive", fn.__qualname__]
    seen[id(fn)] = fn
    digest, names = _code_summary(fn.__code__)
    cells = []
    for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            contents = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        part = _closure_value(contents, module, seen)
        if part is not None:
            cells.append([var, part])
    referenced = []
    for name in names:
        if name in fn.__globals__:
            part = _closure_value(fn.__globals__[name], module, seen)
            if part is not None:
                referenced.append([name, part])
    defaults = None
    if with_defaults:
        keyword = tuple(sorted((fn.__kwdefaults__ or {}).items()))
        defaults = _closure_value((fn.__defaults__, keyword), module, seen)
    return [digest, cells, referenced, defaults]


def _closure_value(value: Any, module: str, seen: dict) -> Any:
    if isinstance(value, types.FunctionType):
        if value.__module__ == module:
            return ["function", value.__qualname__, _function_fingerprint(value, module, seen)]
        return ["function", value.__module__, value.__qualname__]
    try:
        return _stable(value, plain_only=True)
    except _NoStableForm:
        return None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclasses.dataclass(frozen=True)
class _Key:
    """`text`: the canonical JSON of everything stable; `digest` its
    SHA-256; `memory`: the in-memory key (the digest, with the values that
    have no stable form appended); `on_disk`: whether the key may be
    written to the disk cache."""

    text: str
    digest: str
    memory: Any
    on_disk: bool


# --------------------------------------------------------------------------------------------
# The disk cache


def cache_root() -> pathlib.Path:
    """Where iron.jit keeps designs: $TESSEL_CACHE_DIR/iron, else
    $XDG_CACHE_HOME/tessel/iron, else ~/.cache/tessel/iron (read on every
    build, so tests may change it)."""
    root = os.environ.get("TESSEL_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        root = os.path.join(xdg, "tessel") if xdg else os.path.join(os.path.expanduser("~"), ".cache", "tessel")
    return pathlib.Path(root) / "iron"


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _import_class(path: str) -> type:
    module_name, _, qualname = path.partition(":")
    value = importlib.import_module(module_name)
    for part in qualname.split("."):
        value = getattr(value, part)
    if not isinstance(value, type):
        raise TypeError(f"{path} is not a class")
    return value


def _acquire_lock(directory: pathlib.Path) -> int:
    """An fd holding an exclusive flock on directory/design.lock, creating
    both. If the holder before us unlinked the file we locked, start over."""
    path = directory / _LOCK_FILE
    while True:
        directory.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except FileNotFoundError:  # a failed build removed the directory in between
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                current = None
        except BaseException:
            os.close(fd)
            raise
        if current is not None and (current.st_dev, current.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)


def _release_lock(directory: pathlib.Path, fd: int):
    """Remove the lock file, then release the lock. In that order, a
    process that was waiting wakes holding a file no longer in the
    directory, and _acquire_lock makes it start over."""
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(directory / _LOCK_FILE)
    finally:
        os.close(fd)


def _remove_if_empty(directory: pathlib.Path):
    try:
        directory.rmdir()
    except OSError:
        pass


def _write_entry(directory: pathlib.Path, text: str):
    """Write design.json atomically: a temporary file renamed into place."""
    fd, temporary = tempfile.mkstemp(dir=directory, prefix="design.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, directory / _ENTRY_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# --------------------------------------------------------------------------------------------
# A built design


@dataclasses.dataclass(frozen=True)
class _TensorSpec:
    """A tensor parameter as the design was built for it."""

    name: str
    direction: type
    shape: tuple
    dtype: np.dtype
    element_count: int


class CompiledDesign:
    """One built design and the tensors it was built for. Calling it binds
    tensors (checked against the element counts and dtypes they had at
    generation) and DispatchTime values, then runs one dispatch. Shared by
    every call whose key matches."""

    def __init__(self, name: str, design: Any, tensors: tuple, dispatch: tuple, key: str):
        self.name = name
        self.design = design
        self._tensors = tensors  # _TensorSpec per tensor parameter, in signature order
        self._dispatch = dispatch  # _Param per DispatchTime parameter still dynamic
        self.key = key

    @property
    def dispatch_params(self) -> list:
        """Names of the DispatchTime parameters each call supplies."""
        return [p.name for p in self._dispatch]

    @property
    def tensor_shapes(self) -> list:
        """(name, shape, dtype) of each tensor the design was built for."""
        return [(t.name, t.shape, t.dtype) for t in self._tensors]

    def __repr__(self) -> str:
        tensors = ", ".join(f"{t.name}: {t.direction.__name__}{list(t.shape)} {t.dtype.name}" for t in self._tensors)
        dispatch = ", ".join(p.describe() for p in self._dispatch)
        return f"<CompiledDesign {self.name}({tensors}; dispatch: {dispatch or 'none'}) key={self.key[:12]}>"

    def __call__(self, *tensors: Any, **dispatch_values: Any) -> Any:
        if len(tensors) != len(self._tensors):
            names = ", ".join(t.name for t in self._tensors)
            raise TypeError(f"{self.name}() takes {len(self._tensors)} tensor arguments ({names}), got {len(tensors)}")
        arrays = [_host_array(v, t.name, self.name, annotated=True) for v, t in zip(tensors, self._tensors)]
        by_name = {p.name: p for p in self._dispatch}
        for k in dispatch_values:
            if k not in by_name:
                raise TypeError(
                    f"{self.name}: unexpected keyword argument `{k}`; the built design takes DispatchTime values "
                    f"{self.dispatch_params}"
                )
        scalars = {}
        for p in self._dispatch:
            if p.name in dispatch_values:
                scalars[p.name] = _dispatch_integer(dispatch_values[p.name], p.marker, f"{self.name}: `{p.name}`")
            elif p.default is not _NO_VALUE:
                scalars[p.name] = p.default
            else:
                raise TypeError(_missing_dispatch(self.name, p))
        return self._run(arrays, scalars)

    def _run(self, arrays: list, scalars: dict) -> Any:
        for array, spec in zip(arrays, self._tensors):
            if array.size != spec.element_count:
                raise RuntimeError(
                    f"{self.name}: tensor argument `{spec.name}` has {array.size} elements, but the design was built "
                    f"for {spec.element_count} (shape {spec.shape} {spec.dtype.name})"
                )
            if array.dtype != spec.dtype:
                raise RuntimeError(
                    f"{self.name}: tensor argument `{spec.name}` is {array.dtype.name}, but the design was built for "
                    f"{spec.dtype.name}"
                )
        bound = []
        write_back = []  # (caller's array, contiguous copy) where the caller's array is not contiguous
        for array, spec in zip(arrays, self._tensors):
            if array.flags.c_contiguous:
                bound.append(array.reshape(spec.shape))
            else:
                staged = np.ascontiguousarray(array).reshape(spec.shape)
                bound.append(staged)
                if spec.direction.from_device:
                    write_back.append((array, staged))
        result = self.design.run(bound, scalars)
        for array, staged in write_back:
            array[...] = staged.reshape(array.shape)
        return result


def _host_array(value: Any, name: str, design: str, annotated: bool) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    hint = "" if annotated else (
        f" (`{name}` has no In/Out/InOut annotation and is positional, so it is taken as a tensor; annotate it "
        f"CompileTime[...] for a value)"
    )
    raise TypeError(f"{design}: tensor argument `{name}` must be a tessel.iron.Tensor or numpy array, "
                    f"got {describe(value)}{hint}")


def _missing_dispatch(design: str, p: _Param) -> str:
    return (
        f"{design}: missing DispatchTime value `{p.name}` ({type_name(p.marker)}): it has no default, so pass "
        f"{p.name}=... on every call or fix it with specialize({p.name}=...)"
    )


def _check_design(design: Any, expected: list, where: str):
    """TypeError unless design has the members the jit uses and its Runtime
    bound exactly the parameters in `expected`."""
    missing = [m for m in ("run", "dispatch_names", "to_dict") if not hasattr(design, m)]
    if missing or not callable(design.run):
        raise TypeError(
            f"{where} returned {describe(design)}, which has no {', '.join(missing) or 'callable run'}: a jit "
            f"generator returns the resolved design (Program(...).resolve_program())"
        )
    names = list(design.dispatch_names)
    if sorted(names) != sorted(expected) or len(set(names)) != len(names):
        raise TypeError(
            f"{where} returned a design whose Runtime binds DispatchTime parameters {names}, but the unbound "
            f"parameters are {expected}: return the design built from the Runtime that received them"
        )


# --------------------------------------------------------------------------------------------
# The decorated generator

_LIVE_DESIGNS = weakref.WeakSet()


class Compilable:
    """What IRON calls the compilable design: the generator and the
    parameters still dynamic."""

    def __init__(self, owner: "JitDesign"):
        self._owner = owner

    @property
    def dispatch_params(self) -> list:
        return self._owner.dispatch_params

    @property
    def specialized(self) -> dict:
        return self._owner.specialized

    def __repr__(self) -> str:
        return f"<Compilable {self._owner.__qualname__} dispatch_params={self.dispatch_params}>"


class JitDesign:
    """A jit-decorated generator. Calling it builds the design for the
    call's tensors and configuration (or takes it from the cache) and runs
    one dispatch. `specialize(**values)` returns another JitDesign with
    those values fixed. Thread-safe: builds of one JitDesign are serialised."""

    def __init__(self, generator: Callable, specialized: Optional[dict] = None, *, _params: tuple = None):
        if not isinstance(generator, types.FunctionType):
            raise TypeError(f"iron.jit needs a Python function to generate the design, got {describe(generator)}")
        functools.update_wrapper(self, generator)
        self._generator = generator
        self._name = f"{generator.__module__}.{generator.__qualname__}"
        self._params = _params if _params is not None else _read_signature(generator, generator.__qualname__)
        self._by_name = {p.name: p for p in self._params}
        self._specialized = {}
        self._specialized = self._check_specialization(specialized or {})
        self._kernel_cache = {}
        self._specializations = {}
        self._lock = threading.RLock()
        _LIVE_DESIGNS.add(self)

    # -- description

    @property
    def dispatch_params(self) -> list:
        """Names of the DispatchTime parameters that are still dynamic, in
        signature order."""
        return [p.name for p in self._params if p.role == _DISPATCH and p.name not in self._specialized]

    @property
    def specialized(self) -> dict:
        """The values fixed by specialization (a copy)."""
        return dict(self._specialized)

    @property
    def compilable(self) -> Compilable:
        return Compilable(self)

    def __repr__(self) -> str:
        params = ", ".join(p.describe() for p in self._params)
        fixed = f" specialized={self._specialized}" if self._specialized else ""
        return f"<iron.jit {self.__qualname__}({params}){fixed}>"

    # -- specialization

    def _check_specialization(self, values: dict) -> dict:
        where = self.__qualname__
        fixed = dict(self._specialized)
        for k, v in values.items():
            p = self._by_name.get(k)
            if p is None:
                choices = ", ".join(q.name for q in self._params if q.role != _TENSOR) or "none"
                raise TypeError(
                    f"{where}: cannot specialize `{k}`: the generator has no such parameter (DispatchTime and "
                    f"CompileTime parameters: {choices})"
                )
            if p.role == _TENSOR:
                raise TypeError(
                    f"{where}: cannot specialize `{k}`: it is a tensor parameter ({p.marker.__name__}); only "
                    f"DispatchTime and CompileTime parameters can be specialized"
                )
            if k in fixed:
                raise TypeError(
                    f"{where}: cannot specialize `{k}` again: it is already fixed to {fixed[k]!r} by specialization"
                )
            fixed[k] = _dispatch_integer(v, p.marker, f"{where}: specialize(`{k}`)") if p.role == _DISPATCH else v
        return fixed

    def specialize(self, **values: Any) -> "JitDesign":
        """A JitDesign with `values` (DispatchTime or CompileTime parameters)
        fixed: they join the cache key and calls may not override them.
        specialize() with no values keeps every parameter dynamic."""
        fixed = self._check_specialization(values)
        try:
            memo = tuple(sorted((k, type(v), v) for k, v in fixed.items()))
            hash(memo)
        except TypeError:  # an unhashable CompileTime value: no memo
            return JitDesign(self._generator, fixed, _params=self._params)
        with self._lock:
            child = self._specializations.get(memo)
            if child is None:
                child = JitDesign(self._generator, fixed, _params=self._params)
                self._specializations[memo] = child
            return child

    # -- calls

    def __call__(self, *tensors: Any, **values: Any) -> Any:
        """Build (or reuse) the design for these tensors and CompileTime
        values, then run one dispatch with the DispatchTime values (each
        defaulting to its signature default). Returns design.run's result."""
        given, arrays, compile_values, scalars = self._bind(tensors, values, dispatch=True)
        compiled = self._compiled(given, arrays, compile_values)
        return compiled._run(list(arrays.values()), scalars)

    def build(self, *tensors: Any, **compile_values: Any) -> CompiledDesign:
        """The CompiledDesign for these tensors and CompileTime values,
        built now if no cache holds it; call it to dispatch."""
        given, arrays, compile_values, _ = self._bind(tensors, compile_values, dispatch=False)
        return self._compiled(given, arrays, compile_values)

    def _bind(self, tensors: tuple, values: dict, dispatch: bool) -> tuple:
        """Validate a call's arguments before anything is built: ({tensor
        name: object as passed}, {tensor name: its array}, {CompileTime name:
        value}, {DispatchTime name: int})."""
        where = self.__qualname__
        tensor_params = [p for p in self._params if p.role == _TENSOR]
        if len(tensors) > len(tensor_params):
            names = ", ".join(p.name for p in tensor_params)
            raise TypeError(
                f"{where}() takes {len(tensor_params)} tensor arguments ({names}), got {len(tensors)}; pass "
                f"CompileTime and DispatchTime values by keyword"
            )
        given = dict(zip((p.name for p in tensor_params), tensors))
        compile_values, scalars = {}, {}
        for k, v in values.items():
            p = self._by_name.get(k)
            if p is None:
                params = ", ".join(q.describe() for q in self._params)
                raise TypeError(f"{where}() got an unexpected keyword argument `{k}`; its parameters: {params}")
            if p.role == _TENSOR:
                if k in given:
                    raise TypeError(f"{where}() got two values for tensor argument `{k}`")
                given[k] = v
            elif k in self._specialized:
                raise TypeError(
                    f"{where}(): `{k}` is fixed to {self._specialized[k]!r} by specialization; use another "
                    f"specialization to change it"
                )
            elif p.role == _DISPATCH:
                if not dispatch:
                    raise TypeError(
                        f"{where}.build() takes tensors and CompileTime values; DispatchTime value `{k}` is given "
                        f"when the built design is called"
                    )
                scalars[k] = _dispatch_integer(v, p.marker, f"{where}(): `{k}`")
            else:
                compile_values[k] = v
        arrays = {}
        for p in tensor_params:
            if p.name not in given:
                raise TypeError(f"{where}() missing tensor argument `{p.name}` ({p.marker.__name__})")
            arrays[p.name] = _host_array(given[p.name], p.name, where, p.annotated)
        for p in self._params:
            if p.name in self._specialized or p.role == _TENSOR:
                continue
            if p.role == _COMPILE and p.name not in compile_values:
                if p.default is _NO_VALUE:
                    raise TypeError(f"{where}() missing CompileTime value `{p.name}`: pass {p.name}=...")
                compile_values[p.name] = p.default
            if p.role == _DISPATCH and dispatch and p.name not in scalars:
                if p.default is _NO_VALUE:
                    raise TypeError(_missing_dispatch(f"{where}()", p))
                scalars[p.name] = p.default
        return given, arrays, compile_values, scalars

    # -- building

    def _code_fingerprint(self) -> list:
        """_function_fingerprint of the generator, recomputed only when a
        global of its module or one of its closure cells was rebound since
        the last call (the probe: the identities of those values)."""
        g = self._generator
        probe = (tuple(map(id, g.__globals__.values())),
                 tuple(id(c.cell_contents) if _cell_full(c) else None for c in (g.__closure__ or ())))
        memo = self.__dict__.get("_fingerprint_memo")
        if memo is None or memo[0] != probe:
            memo = (probe, _function_fingerprint(g, g.__module__, {}, with_defaults=False))
            self.__dict__["_fingerprint_memo"] = memo
        return memo[1]

    def _key(self, arrays: dict, compile_values: dict) -> _Key:
        unstable = []
        where = self.__qualname__

        def stable_or_keep(name: str, value: Any, group: str):
            try:
                return _stable(value, plain_only=False)
            except _NoStableForm:
                try:
                    hash(value)
                except TypeError:
                    raise TypeError(
                        f"{where}(): CompileTime value `{name}` ({type(value).__name__}) cannot be part of the cache "
                        f"key: it has no stable form and is not hashable; use numbers, strings, tuples, NumPy dtypes, "
                        f"enums or a frozen dataclass"
                    ) from None
                unstable.append((group, name, value))
                return ["unstable", type(value).__module__, type(value).__qualname__]

        text = _canonical({
            "format": _CACHE_FORMAT,
            "tessel": _tessel_version,
            "generator": self._name,
            # The generator's own defaults enter as CompileTime values; DispatchTime defaults never specialise.
            "code": self._code_fingerprint(),
            "signature": [[p.name, p.role, repr(p.marker) if p.role != _DISPATCH else type_name(p.marker)]
                          for p in self._params],
            "tensors": [[name, list(a.shape), a.dtype.name, a.dtype.str] for name, a in arrays.items()],
            "compile_time": [[k, stable_or_keep(k, v, "compile")] for k, v in sorted(compile_values.items())],
            "specialized": [[k, stable_or_keep(k, v, "specialized")] for k, v in sorted(self._specialized.items())],
        })
        digest = hashlib.sha256(text.encode()).hexdigest()
        memory = (digest, tuple(unstable)) if unstable else digest
        return _Key(text, digest, memory, not unstable)

    def _compiled(self, given: dict, arrays: dict, compile_values: dict) -> CompiledDesign:
        # The last call's key serves again when nothing it was built from
        # changed: the same tensor shapes and dtypes, equal CompileTime values,
        # the generator's globals and cells unrebound (_code_fingerprint's probe).
        g = self._generator
        try:
            quick = (tuple(map(id, g.__globals__.values())),
                     tuple(id(c.cell_contents) if _cell_full(c) else None for c in (g.__closure__ or ())),
                     tuple((n, a.shape, a.dtype.str) for n, a in arrays.items()),
                     tuple(sorted(compile_values.items())))
            hash(quick)
        except TypeError:
            quick = None
        last = self.__dict__.get("_last_key")
        if quick is not None and last is not None and last[0] == quick:
            key = last[1]
        else:
            key = self._key(arrays, compile_values)
            if quick is not None:
                self.__dict__["_last_key"] = (quick, key)
        with self._lock:
            compiled = self._kernel_cache.get(key.memory)
            if compiled is None:
                design = self._load_or_generate(key, given, compile_values)
                specs = tuple(
                    _TensorSpec(p.name, p.marker, arrays[p.name].shape, arrays[p.name].dtype, arrays[p.name].size)
                    for p in self._params if p.role == _TENSOR
                )
                dynamic = tuple(p for p in self._params if p.role == _DISPATCH and p.name not in self._specialized)
                compiled = CompiledDesign(self.__qualname__, design, specs, dynamic, key.digest)
                self._kernel_cache[key.memory] = compiled
            return compiled

    def _generate(self, given: dict, compile_values: dict) -> Any:
        """Run the generator once: tensors as passed, CompileTime values, a
        DispatchParameter per unbound DispatchTime parameter, a typed NumPy
        constant per specialised one."""
        symbols = [
            dispatch_time.DispatchParameter(p.name, p.marker, dispatch_time.NO_DEFAULT if p.default is _NO_VALUE
                                            else p.default)
            for p in self._params if p.role == _DISPATCH and p.name not in self._specialized
        ]
        by_symbol = {s.name: s for s in symbols}
        args, kwargs = [], {}
        for p in self._params:
            if p.role == _TENSOR:
                value = given[p.name]
            elif p.name in self._specialized:
                value = self._specialized[p.name]
                if p.role == _DISPATCH:
                    value = p.marker(value)
            elif p.role == _DISPATCH:
                value = by_symbol[p.name]
            else:
                value = compile_values[p.name]
            if p.positional_only:
                args.append(value)
            else:
                kwargs[p.name] = value
        with dispatch_time.generation(symbols, generator=self.__qualname__):
            design = self._generator(*args, **kwargs)
        _check_design(design, [s.name for s in symbols], f"`{self.__qualname__}`")
        return design

    def _load_or_generate(self, key: _Key, given: dict, compile_values: dict) -> Any:
        expected = self.dispatch_params
        if not key.on_disk:
            return self._generate(given, compile_values)
        directory = cache_root() / key.digest
        design = self._read_entry(directory, key, expected)
        if design is not None:
            return design
        try:
            fd = _acquire_lock(directory)
        except OSError:  # an unwritable cache: build in memory only
            return self._generate(given, compile_values)
        try:
            design = self._read_entry(directory, key, expected)  # another process may have built it meanwhile
            if design is None:
                with contextlib.suppress(FileNotFoundError):
                    (directory / _ENTRY_FILE).unlink()  # unreadable or stale: replaced below
                design = self._generate(given, compile_values)
                self._store_entry(directory, key, design)
            return design
        finally:
            _release_lock(directory, fd)
            _remove_if_empty(directory)  # a failed build leaves nothing behind

    def _read_entry(self, directory: pathlib.Path, key: _Key, expected: list) -> Any:
        """The design stored for key, or None when there is none or it cannot
        be trusted (unreadable, another key, a class that will not load, a
        from_dict that fails or a design that does not bind `expected`)."""
        try:
            text = (directory / _ENTRY_FILE).read_text()
        except OSError:
            return None
        try:
            entry = json.loads(text)
            if entry.get("format") != _CACHE_FORMAT or _canonical(entry.get("key")) != key.text:
                return None
            design = _import_class(entry["design_class"]).from_dict(entry["design"])
            _check_design(design, expected, f"cache entry {directory}")
            return design
        except Exception:  # whatever went wrong, the entry is rebuilt
            return None

    def _store_entry(self, directory: pathlib.Path, key: _Key, design: Any):
        cls = type(design)
        path = _class_path(cls)
        try:
            loadable = _import_class(path) is cls and callable(getattr(cls, "from_dict", None))
        except Exception:
            loadable = False
        if not loadable:  # e.g. a class defined inside a function: it stays in memory only
            return
        entry = {
            "format": _CACHE_FORMAT,
            "key": json.loads(key.text),
            "generator": self._name,
            "design_class": path,
            "dispatch_names": list(design.dispatch_names),
            "design": design.to_dict(),
        }
        try:
            text = json.dumps(entry, sort_keys=True)
        except (TypeError, ValueError) as error:
            raise TypeError(f"{path}.to_dict() must return a JSON-serialisable dict: {error}") from None
        with contextlib.suppress(OSError):  # a full or read-only disk costs the cache, not the call
            _write_entry(directory, text)


# --------------------------------------------------------------------------------------------
# The decorator


def jit(generator: Optional[Callable] = None, /, **specialized: Any) -> Any:
    """Decorate a design generator: `@iron.jit`, `@iron.jit(count=3)` or
    `iron.jit(generator, count=3)`. Keywords specialise DispatchTime or
    CompileTime parameters (TypeError for any other name). Returns a
    JitDesign, or, without a generator, a decorator that makes one."""
    if generator is None:
        return lambda fn: JitDesign(fn, specialized)
    return JitDesign(generator, specialized)


def clear_memory_cache() -> None:
    """Forget every in-memory build of every JitDesign (the disk cache
    stays): the next call loads from disk or builds again."""
    for design in list(_LIVE_DESIGNS):
        with design._lock:
            design._kernel_cache.clear()


# Reachable as iron.jit.clear_memory_cache() whether `iron.jit` names this
# module or the decorator.
jit.clear_memory_cache = clear_memory_cache
