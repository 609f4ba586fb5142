"""The persistent-dispatch ABI as the host reads it from C/C++ headers.

- constants(path, known=None) -> {name: int}: every integer `constexpr`
  (also `static`/`inline`, in namespaces and structs), every
  `#define KM*_* expr` and every `enum` / `enum class` value of a header.
- headers() -> Headers: the constants of the runtime's own headers
  (tessel/persistent_abi.h and, when there, tessel/engine_abi.h and
  tessel/persistent.h), cached.
- handlers(source) -> {name: number}: a program's handler table, from a dict
  or from a header's `constexpr uint32_t kHandlerName = n;` lines.

How a header is read. The reader is not a compiler and runs nothing: it
tokenizes the file (comments, line continuations, string and character
literals, digit separators), keeps track of namespace, struct and enum
scopes, skips what cannot hold a constant (function bodies, templates) and
evaluates each initializer with a small recursive-descent parser:

- integer literals (decimal, hex, octal, binary; u/U/l/L/z suffixes; '
  separators) and character literals, typed as C++ types them;
- ( ), unary + - ~ !, * / % + - << >> < <= > >= == != & ^ | && || ?:, with
  C++'s precedence, integer promotions and usual arithmetic conversions
  (so ~0u is 4294967295 and -1 < 0u is false); division truncates; a shift
  count outside the operand's width and a division by zero are errors;
  signed results wrap (a compiler would reject the overflow);
- casts: uint32_t(x), uint32_t{x}, (uint32_t)x, static_cast<uint32_t>(x),
  to the fixed-width, fundamental and file-local enum types;
- names: constants defined earlier in the file, macros (expanded where they
  are used, so a macro may name a constant defined before its use), and the
  caller's `known` constants, by plain name or qualified (ns::kX, ::ns::kX):
  a qualified name resolves in the file by C++'s scope rules, then against
  `known` by its full spelling and by its last component.

A constant's value is converted to its declared type (constexpr uint32_t
kX = -1 is 4294967295; auto and macros keep the expression's type). What
the reader skips, without an error: function-like macros, macros and auto
constants whose value is not an integer expression (strings, floats,
attributes, statements), constexprs of non-integer type (float, pointers,
strings, arrays, structs), constexpr functions and anything in a template
or a function body. Everything else it cannot evaluate (sizeof, function
calls, unknown names) raises HeaderError with the file, the line, the
constant, its expression and the part it could not read. #if is not
evaluated: every branch is read, and a constant defined twice with
different values is an error.

The result's keys are the constants' plain names, and for a constant in a
namespace, struct or enum class also its qualified name (ns::kX,
Color::kRed). A plain name that two scopes give different values is
offered only qualified.
"""

import functools
import operator
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .. import _check
from .errors import ProgramError
from .header_expr import HeaderError
from .header_reader import _Reader

__all__ = ["HeaderError", "Headers", "constants", "headers", "handlers"]

# The handler numbers a program may use (tessel/persistent_abi.h: KM_HANDLER_FIRST
# .. KM_HANDLER_LAST; a test checks these against the header).
HANDLER_FIRST = 1
HANDLER_LAST = 239
_HANDLER_RULE = "handler numbers are 1 to 239: 0 is NOP, 240 to 251 are reserved"



def _read(path, known, what):
    """The reader of `path` after reading it whole."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise HeaderError(f"{what}: cannot read {path}: {e.strerror or e}") from None
    reader = _Reader(os.fspath(path), text, known)
    reader.read()
    reader.km_macros()
    return reader


def _known(known, what):
    if known is None:
        return {}
    if not isinstance(known, Mapping):
        raise TypeError(f"{what}: known must be a dict of name -> int (or None), got {_describe(known)}")
    out = {}
    for k, v in known.items():
        if not isinstance(k, str):
            raise TypeError(f"{what}: known's keys must be str names, got {_describe(k)}")
        if isinstance(v, bool) or not hasattr(type(v), "__index__"):
            raise TypeError(f"{what}: known[{k!r}] must be an integer, got {_describe(v)}")
        out[k] = operator.index(v)
    return out


def _describe(value):
    return _check.describe(value)


def _path(path, what):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what}: path must be a str or os.PathLike, got {_describe(path)}")
    return os.fspath(path)


def constants(path: "str | os.PathLike[str]", known: "Mapping[str, int] | None" = None) -> dict[str, int]:
    """Every integer constant of the C/C++ header at `path` as {name: int}: its
    constexprs, its #define KM*_* macros and its enum values (see the module's
    docstring for what is read). `known` ({name: int}, for example
    headers().constants) supplies the constants the header uses from elsewhere.
    Raises HeaderError for a file it cannot read or a constant it cannot evaluate."""
    known = _known(known, "abi.constants")
    return _read(_path(path, "abi.constants"), known, "abi.constants").result()


# ---- The runtime's headers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Headers:
    """The runtime's own ABI: `constants` {name: int} of every header in `paths`
    (persistent.h's also as persistent::kName), a fresh dict per headers() call."""

    constants: dict[str, int]
    paths: tuple[str, ...]


def _include_dir():
    env = os.environ.get("TESSEL_KERNEL_INCLUDE_DIR")
    if env:
        return env
    # python/tessel/dispatch/abi.py in a checkout; the wheel sets the variable.
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir, "kernel",
                        "include")


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _runtime_headers(abi_path, abi_stamp, persistent_path, persistent_stamp):
    del abi_stamp, persistent_stamp  # part of the cache key only
    abi = _read(abi_path, {}, "abi.headers")
    merged = abi.result()
    paths = [abi_path]
    # The engines' ABI beside it (tessel/engine_abi.h), when there.
    engine_path = os.path.join(os.path.dirname(abi_path), "engine_abi.h")
    if os.path.exists(engine_path):
        for name, value in _read(engine_path, dict(merged), "abi.headers").result().items():
            if name in merged and merged[name] != value:
                raise HeaderError(f"abi.headers: {name} is {value} in {engine_path} but {merged[name]} in {abi_path}")
            merged[name] = value
        paths.append(engine_path)
    if persistent_path is not None:
        reader = _read(persistent_path, dict(merged), "abi.headers")
        for name, value in reader.result().items():
            if name in merged and merged[name] != value:
                raise HeaderError(f"abi.headers: {name} is {value} in {persistent_path} but {merged[name]} in "
                                  f"{abi_path}")
            merged[name] = value
        # persistent.h's constants by their C++ names in namespace persistent
        # (also when it lives in tessel::persistent, or in no namespace).
        for c in sorted(reader.constants, key=lambda c: c.line):
            if c.kind == "macro":
                continue
            if "persistent" in c.qual[:-1]:
                merged.setdefault("::".join(c.qual[c.qual.index("persistent"):]), c.value[0])
            elif len(c.qual) == 1:
                merged.setdefault("persistent::" + c.name, c.value[0])
        paths.append(persistent_path)
    return merged, tuple(paths)


def headers() -> Headers:
    """The constants of the runtime's headers: tessel/persistent_abi.h and, when
    they exist, tessel/engine_abi.h and tessel/persistent.h, in $TESSEL_KERNEL_INCLUDE_DIR (or the checkout's
    kernel/include). Parsed once per file version; each call returns its own dict."""
    include = os.path.normpath(_include_dir())
    abi_path = os.path.join(include, "tessel", "persistent_abi.h")
    persistent_path = os.path.join(include, "tessel", "persistent.h")
    abi_stamp = _stamp(abi_path)
    if abi_stamp is None:
        raise HeaderError(f"abi.headers: no tessel/persistent_abi.h in {include} (the kernel include directory: "
                          "set TESSEL_KERNEL_INCLUDE_DIR to the directory that holds tessel/)")
    persistent_stamp = _stamp(persistent_path)
    merged, paths = _runtime_headers(abi_path, abi_stamp, persistent_path if persistent_stamp else None,
                                     persistent_stamp)
    return Headers(dict(merged), paths)


# ---- Handlers -----------------------------------------------------------------------------------------------------

_HANDLER_NAME = re.compile(r"kHandler([A-Z0-9][A-Za-z0-9_]*)")


def _snake(camel):
    """BigStep -> big_step, Step2 -> step2, Step2Go -> step2_go, MatMul2D -> mat_mul2d,
    HTTPGet -> http_get."""
    s = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[0-9A-Z])(?=[A-Z][a-z])", "_", camel).lower()
    return re.sub(r"_+", "_", s).strip("_")


def _handler_number(value, where, what):
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise ProgramError(f"{what}: {where} is {_describe(value)}: {_HANDLER_RULE}")
    v = operator.index(value)
    if not HANDLER_FIRST <= v <= HANDLER_LAST:
        raise ProgramError(f"{what}: {where} is {v}: {_HANDLER_RULE}")
    return v


def handlers(source: "Mapping[str, int] | str | os.PathLike[str]", *, what: str = "Program.handlers") -> dict[str, int]:
    """A program's handlers as {name: number}, from a dict {name: number} (checked)
    or a header whose `constexpr uint32_t kHandlerName = n;` lines give them
    (kHandlerBigStep -> 'big_step', kHandlerStep2 -> 'step2'). Numbers are 1 to 239
    (0 is NOP, 240 to 251 are reserved), names and numbers unique; otherwise
    ProgramError naming the handler, the number and the rule."""
    owners = {}
    out = {}
    if isinstance(source, Mapping):
        for name, value in source.items():
            if not isinstance(name, str) or not name:
                raise ProgramError(f"{what}: a handler name must be a non-empty str, got {_describe(name)}")
            number = _handler_number(value, f"handler {name!r}", what)
            if number in owners:
                raise ProgramError(f"{what}: handlers {owners[number]!r} and {name!r} are both {number}: each "
                                   "handler needs its own number")
            owners[number] = name
            out[name] = number
        return out
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"{what} must be a dict {{name: number}} or a header path, got {_describe(source)}")
    path = os.fspath(source)
    reader = _read(path, headers().constants, what)
    names = {}
    for c in sorted(reader.constants, key=lambda c: c.line):
        m = _HANDLER_NAME.fullmatch(c.name)
        if c.kind != "constexpr" or not m:
            continue
        name = _snake(m.group(1))
        where = f"handler {name!r} ({c.name}, {path}:{c.line})"
        number = _handler_number(c.value[0], where, what)
        if name in names:
            raise ProgramError(f"{what}: {c.name} ({path}:{c.line}) and {names[name].name} (line "
                               f"{names[name].line}) are both handler {name!r}: handler names must be unique")
        if number in owners:
            raise ProgramError(f"{what}: handlers {owners[number]!r} and {name!r} ({path}:{c.line}) are both "
                               f"{number}: each handler needs its own number")
        names[name] = c
        owners[number] = name
        out[name] = number
    return out
