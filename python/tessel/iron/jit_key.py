"""iron.jit's cache keys: a stable text for every value that can be part of
a key (equal across processes exactly when the values are), and the
fingerprint of a generator (its bytecode, nested code, and the plain values
its closures and globals hold, following helper functions of its own
module)."""

import dataclasses
import enum
import functools
import hashlib
import json
import types
from typing import Any

import numpy as np


class NoStableForm(Exception):
    """A value with no text that means the same in another process."""


def stable_form(value: Any, plain_only: bool) -> Any:
    """A JSON-able form of value that is equal across processes exactly when
    the values are equal, or NoStableForm. `plain_only` admits only
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
        return ["tuple", [stable_form(v, plain_only) for v in value]]
    if isinstance(value, frozenset):
        return ["frozenset", sorted(canonical(stable_form(v, plain_only)) for v in value)]
    if plain_only:
        raise NoStableForm
    if isinstance(value, list):
        return ["list", [stable_form(v, plain_only) for v in value]]
    if isinstance(value, set):
        return ["set", sorted(canonical(stable_form(v, plain_only)) for v in value)]
    if isinstance(value, dict):
        return ["dict", sorted([canonical(stable_form(k, plain_only)), stable_form(v, plain_only)] for k, v in value.items())]
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return ["ndarray", value.dtype.name, value.dtype.str, list(value.shape), hashlib.sha256(data).hexdigest()]
    if isinstance(value, types.FunctionType):
        return ["function", value.__module__, value.__qualname__, function_fingerprint(value, value.__module__, {})]
    if dataclasses.is_dataclass(value):
        fields = [[f.name, stable_form(getattr(value, f.name), False)] for f in dataclasses.fields(value)]
        return ["dataclass", type(value).__module__, type(value).__qualname__, fields]
    key = getattr(value, "stable_key", None)
    if callable(key):  # an object that names what it is (an ExternalFunction: its source, flags and types)
        return ["object", type(value).__module__, type(value).__qualname__, key()]
    raise NoStableForm


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


def cell_full(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def function_fingerprint(fn: types.FunctionType, module: str, seen: dict, with_defaults: bool = True) -> list:
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
            return ["function", value.__qualname__, function_fingerprint(value, module, seen)]
        return ["function", value.__module__, value.__qualname__]
    try:
        return stable_form(value, plain_only=True)
    except NoStableForm:
        return None


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclasses.dataclass(frozen=True)
class Key:
    """`text`: the canonical JSON of everything stable; `digest` its
    SHA-256; `memory`: the in-memory key (the digest, with the values that
    have no stable form appended); `on_disk`: whether the key may be
    written to the disk cache."""

    text: str
    digest: str
    memory: Any
    on_disk: bool
