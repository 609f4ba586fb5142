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
build serves every dispatch value. Behind that sits the disk cache
(design_cache.py; keys: jit_key.py):

- A generator that raises leaves neither directory nor lock file.
- An entry that cannot be read, does not match its key or whose from_dict
  fails is rebuilt and replaced, never trusted.
- Keys with a CompileTime value that has no stable text (an arbitrary
  object) live in memory only.
"""

import contextlib
import functools
import hashlib
import json
import pathlib
import threading
import types
import weakref
from typing import Any, Callable, Optional

from .. import __version__ as _tessel_version
from .._check import describe
from . import dispatch_time, jit_passthrough
from .design_cache import (
    CACHE_FORMAT,
    ENTRY_FILE,
    acquire_lock,
    cache_root,
    class_path,
    import_class,
    release_lock,
    remove_if_empty,
    write_entry,
)
from .jit_compiled import CompiledDesign, TensorSpec, check_design, host_array, missing_dispatch
from .jit_key import Key, NoStableForm, canonical, cell_full, function_fingerprint, stable_form
from .jit_signature import COMPILE, DISPATCH, NO_VALUE, TENSOR, dispatch_integer, read_signature
from .markers import type_name

__all__ = ["jit", "JitDesign", "CompiledDesign", "Compilable", "clear_memory_cache", "cache_root"]


# --------------------------------------------------------------------------------------------
# The decorated generator

_LIVE_DESIGNS = weakref.WeakSet()

OPTIONS = ("is_placed", "use_cache", "aiecc_flags")
"""IRON's jit and specialize options: accepted and recorded (JitDesign.options);
tessel places every design itself and always caches."""


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

    def get_dispatch_lib_path(self) -> str:
        from .jit_artifacts import dispatch_lib_path

        return dispatch_lib_path(self._owner)

    def __repr__(self) -> str:
        return f"<Compilable {self._owner.__qualname__} dispatch_params={self.dispatch_params}>"


class JitDesign:
    """A jit-decorated generator. Calling it builds the design for the
    call's tensors and configuration (or takes it from the cache) and runs
    one dispatch. `specialize(**values)` returns another JitDesign with
    those values fixed. Thread-safe: builds of one JitDesign are serialised."""

    def __init__(self, generator: Callable, specialized: Optional[dict] = None, *, _params: tuple = None,
                 options: Optional[dict] = None):
        if not isinstance(generator, types.FunctionType):
            raise TypeError(f"iron.jit needs a Python function to generate the design, got {describe(generator)}")
        functools.update_wrapper(self, generator)
        self._generator = generator
        self._name = f"{generator.__module__}.{generator.__qualname__}"
        self.options = dict(options or {})  # IRON's jit/specialize options (OPTIONS): accepted and recorded
        # is_placed= marks IRON's older jit, which passed the call's arguments through (jit_passthrough.py).
        self._passthrough = "is_placed" in self.options or jit_passthrough.is_passthrough(generator)
        if _params is not None:
            self._params = _params
        else:
            self._params = () if self._passthrough else read_signature(generator, generator.__qualname__)
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
        return [p.name for p in self._params if p.role == DISPATCH and p.name not in self._specialized]

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
                choices = ", ".join(q.name for q in self._params if q.role != TENSOR) or "none"
                raise TypeError(
                    f"{where}: cannot specialize `{k}`: the generator has no such parameter (DispatchTime and "
                    f"CompileTime parameters: {choices})"
                )
            if p.role == TENSOR:
                raise TypeError(
                    f"{where}: cannot specialize `{k}`: it is a tensor parameter ({p.marker.__name__}); only "
                    f"DispatchTime and CompileTime parameters can be specialized"
                )
            if k in fixed:
                raise TypeError(
                    f"{where}: cannot specialize `{k}` again: it is already fixed to {fixed[k]!r} by specialization"
                )
            fixed[k] = dispatch_integer(v, p.marker, f"{where}: specialize(`{k}`)") if p.role == DISPATCH else v
        return fixed

    def specialize(self, **values: Any) -> "JitDesign":
        """A JitDesign with `values` (DispatchTime or CompileTime parameters)
        fixed: they join the cache key and calls may not override them.
        specialize() with no values keeps every parameter dynamic."""
        options = dict(self.options, **{k: values.pop(k) for k in OPTIONS if k in values})
        fixed = self._check_specialization(values)
        if options != self.options:
            return JitDesign(self._generator, fixed, _params=self._params, options=options)
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

    def compile(self, xclbin_path: Optional[str] = None, inst_path: Optional[str] = None,
                pdi_path: Optional[str] = None, **options: Any) -> tuple:
        """IRON's explicit outputs (jit_artifacts.py): the design record at
        each path, the dispatch library in <xclbin stem>.prj/; returns
        (xclbin path, insts path)."""
        from .jit_artifacts import compile_design

        return compile_design(self, xclbin_path=xclbin_path, inst_path=inst_path, pdi_path=pdi_path, **options)

    def get_dispatch_lib_path(self) -> str:
        return self.compilable.get_dispatch_lib_path()

    def as_mlir(self) -> str:
        """The design's text, generated without tensors (jit_artifacts.as_mlir)."""
        from .jit_artifacts import as_mlir

        return as_mlir(self, self._params, self._specialized)

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
        if self._passthrough:
            return (*jit_passthrough.bind(tensors, values), {})
        tensor_params = [p for p in self._params if p.role == TENSOR]
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
            if p.role == TENSOR:
                if k in given:
                    raise TypeError(f"{where}() got two values for tensor argument `{k}`")
                given[k] = v
            elif k in self._specialized:
                raise TypeError(
                    f"{where}(): `{k}` is fixed to {self._specialized[k]!r} by specialization; use another "
                    f"specialization to change it"
                )
            elif p.role == DISPATCH:
                if not dispatch:
                    raise TypeError(
                        f"{where}.build() takes tensors and CompileTime values; DispatchTime value `{k}` is given "
                        f"when the built design is called"
                    )
                scalars[k] = dispatch_integer(v, p.marker, f"{where}(): `{k}`")
            else:
                compile_values[k] = v
        arrays = {}
        for p in tensor_params:
            if p.name not in given:
                raise TypeError(f"{where}() missing tensor argument `{p.name}` ({p.marker.__name__})")
            arrays[p.name] = host_array(given[p.name], p.name, where, p.annotated)
        for p in self._params:
            if p.name in self._specialized or p.role == TENSOR:
                continue
            if p.role == COMPILE and p.name not in compile_values:
                if p.default is NO_VALUE:
                    raise TypeError(f"{where}() missing CompileTime value `{p.name}`: pass {p.name}=...")
                compile_values[p.name] = p.default
            if p.role == DISPATCH and dispatch and p.name not in scalars:
                if p.default is NO_VALUE:
                    raise TypeError(missing_dispatch(f"{where}()", p))
                scalars[p.name] = p.default
        return given, arrays, compile_values, scalars

    # -- building

    def _code_fingerprint(self) -> list:
        """function_fingerprint of the generator, recomputed only when a
        global of its module or one of its closure cells was rebound since
        the last call (the probe: the identities of those values)."""
        g = self._generator
        probe = (tuple(map(id, g.__globals__.values())),
                 tuple(id(c.cell_contents) if cell_full(c) else None for c in (g.__closure__ or ())))
        memo = self.__dict__.get("_fingerprint_memo")
        if memo is None or memo[0] != probe:
            memo = (probe, function_fingerprint(g, g.__module__, {}, with_defaults=False))
            self.__dict__["_fingerprint_memo"] = memo
        return memo[1]

    def _key(self, arrays: dict, compile_values: dict) -> Key:
        unstable = []
        where = self.__qualname__

        def stable_or_keep(name: str, value: Any, group: str):
            try:
                return stable_form(value, plain_only=False)
            except NoStableForm:
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

        text = canonical({
            "format": CACHE_FORMAT,
            "tessel": _tessel_version,
            "generator": self._name,
            # The generator's own defaults enter as CompileTime values; DispatchTime defaults never specialise.
            "code": self._code_fingerprint(),
            "signature": [[p.name, p.role, repr(p.marker) if p.role != DISPATCH else type_name(p.marker)]
                          for p in self._params],
            "tensors": [[name, list(a.shape), a.dtype.name, a.dtype.str] for name, a in arrays.items()],
            "compile_time": [[k, stable_or_keep(k, v, "compile")] for k, v in sorted(compile_values.items())],
            "specialized": [[k, stable_or_keep(k, v, "specialized")] for k, v in sorted(self._specialized.items())],
        })
        digest = hashlib.sha256(text.encode()).hexdigest()
        memory = (digest, tuple(unstable)) if unstable else digest
        return Key(text, digest, memory, not unstable)

    def _compiled(self, given: dict, arrays: dict, compile_values: dict) -> CompiledDesign:
        # The last call's key serves again when nothing it was built from
        # changed: the same tensor shapes and dtypes, equal CompileTime values,
        # the generator's globals and cells unrebound (_code_fingerprint's probe).
        g = self._generator
        try:
            quick = (tuple(map(id, g.__globals__.values())),
                     tuple(id(c.cell_contents) if cell_full(c) else None for c in (g.__closure__ or ())),
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
                    TensorSpec(p.name, p.marker, arrays[p.name].shape, arrays[p.name].dtype, arrays[p.name].size)
                    for p in (jit_passthrough.tensor_params(arrays) if self._passthrough
                              else [p for p in self._params if p.role == TENSOR])
                )
                dynamic = tuple(p for p in self._params if p.role == DISPATCH and p.name not in self._specialized)
                compiled = CompiledDesign(self.__qualname__, design, specs, dynamic, key.digest)
                self._kernel_cache[key.memory] = compiled
            return compiled

    def _generate(self, given: dict, compile_values: dict) -> Any:
        """Run the generator once: tensors as passed, CompileTime values, a
        DispatchParameter per unbound DispatchTime parameter, a typed NumPy
        constant per specialised one."""
        symbols = [
            dispatch_time.DispatchParameter(p.name, p.marker, dispatch_time.NO_DEFAULT if p.default is NO_VALUE
                                            else p.default)
            for p in self._params if p.role == DISPATCH and p.name not in self._specialized
        ]
        by_symbol = {s.name: s for s in symbols}
        args, kwargs = [], {}
        for p in self._params:
            if p.role == TENSOR:
                value = given[p.name]
            elif p.name in self._specialized:
                value = self._specialized[p.name]
                if p.role == DISPATCH:
                    value = p.marker(value)
            elif p.role == DISPATCH:
                value = by_symbol[p.name]
            else:
                value = compile_values[p.name]
            if p.positional_only:
                args.append(value)
            else:
                kwargs[p.name] = value
        with dispatch_time.generation(symbols, generator=self.__qualname__):
            if self._passthrough:
                design = jit_passthrough.call(self._generator, given, compile_values)
            else:
                design = self._generator(*args, **kwargs)
        check_design(design, [s.name for s in symbols], f"`{self.__qualname__}`")
        return design

    def _load_or_generate(self, key: Key, given: dict, compile_values: dict) -> Any:
        expected = self.dispatch_params
        if not key.on_disk:
            return self._generate(given, compile_values)
        directory = cache_root() / key.digest
        design = self._read_entry(directory, key, expected)
        if design is not None:
            return design
        try:
            fd = acquire_lock(directory)
        except OSError:  # an unwritable cache: build in memory only
            return self._generate(given, compile_values)
        try:
            design = self._read_entry(directory, key, expected)  # another process may have built it meanwhile
            if design is None:
                with contextlib.suppress(FileNotFoundError):
                    (directory / ENTRY_FILE).unlink()  # unreadable or stale: replaced below
                design = self._generate(given, compile_values)
                self._store_entry(directory, key, design)
            return design
        finally:
            release_lock(directory, fd)
            remove_if_empty(directory)  # a failed build leaves nothing behind

    def _read_entry(self, directory: pathlib.Path, key: Key, expected: list) -> Any:
        """The design stored for key, or None when there is none or it cannot
        be trusted (unreadable, another key, a class that will not load, a
        from_dict that fails or a design that does not bind `expected`)."""
        try:
            text = (directory / ENTRY_FILE).read_text()
        except OSError:
            return None
        try:
            entry = json.loads(text)
            if entry.get("format") != CACHE_FORMAT or canonical(entry.get("key")) != key.text:
                return None
            design = import_class(entry["design_class"]).from_dict(entry["design"])
            check_design(design, expected, f"cache entry {directory}")
            return design
        except Exception:  # whatever went wrong, the entry is rebuilt
            return None

    def _store_entry(self, directory: pathlib.Path, key: Key, design: Any):
        cls = type(design)
        path = class_path(cls)
        try:
            loadable = import_class(path) is cls and callable(getattr(cls, "from_dict", None))
        except Exception:
            loadable = False
        if not loadable:  # e.g. a class defined inside a function: it stays in memory only
            return
        entry = {
            "format": CACHE_FORMAT,
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
            write_entry(directory, text)


# --------------------------------------------------------------------------------------------
# The decorator


def jit(generator: Optional[Callable] = None, /, **specialized: Any) -> Any:
    """Decorate a design generator: `@iron.jit`, `@iron.jit(count=3)` or
    `iron.jit(generator, count=3)`. Keywords specialise DispatchTime or
    CompileTime parameters (TypeError for any other name). Returns a
    JitDesign, or, without a generator, a decorator that makes one."""
    options = {k: specialized.pop(k) for k in OPTIONS if k in specialized}
    if generator is None:
        return lambda fn: JitDesign(fn, specialized, options=options)
    return JitDesign(generator, specialized, options=options)


def clear_memory_cache() -> None:
    """Forget every in-memory build of every JitDesign (the disk cache
    stays): the next call loads from disk or builds again."""
    for design in list(_LIVE_DESIGNS):
        with design._lock:
            design._kernel_cache.clear()


# Reachable as iron.jit.clear_memory_cache() whether `iron.jit` names this
# module or the decorator.
jit.clear_memory_cache = clear_memory_cache
