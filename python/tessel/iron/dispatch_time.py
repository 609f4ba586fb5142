"""Dispatch-time scalars on the generator side: the symbolic parameter a jit
generator receives for each unbound `DispatchTime[T]`, and the rules for
binding it to the design's Runtime.

While the generator runs, a DispatchTime value does not exist yet: it is
given on each call, long after the design has been built. The generator
holds a DispatchParameter in its place. It may store and forward that
object, and must hand it, exactly once, to one Runtime as a direct
argument; the Runtime then passes the sequence body a runtime scalar (the
callback's argument), which is what runtime arithmetic and control flow use.

Invariants, checked here:

- **Inert.** Every use of a DispatchParameter that would need its value at
  generation time (arithmetic, comparison, truth test, `range()`/indexing,
  `int()`/`float()`/`complex()`, NumPy value and dtype conversion,
  iteration, `len()`) raises TypeError. Code in tessel therefore compares
  parameters with `is` and keys dicts by `id()`.
- **Identity.** A parameter is its identity: aliases are the same
  parameter, copies are the same object, and a parameter belongs to the one
  generation that made it (one from an earlier build is stale).
- **Bound once.** Within a generation each parameter is claimed by exactly
  one Runtime, at one position of its fn_args, as a direct entry (not inside
  a list, tuple or dict). A parameter left unclaimed when the generator
  returns is an error, as are a duplicate, a second Runtime and, while
  parameters are unbound, a bare NumPy scalar type standing in for one.
- **Not for Workers.** A Worker's fn_args are fixed when the design is
  built; no parameter may appear in them, at any depth.

The active generation is held in a ContextVar, so concurrent generations in
different threads do not see each other's claims.
"""

import contextlib
import contextvars
import types
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from .markers import integer_scalar_type, type_name

__all__ = [
    "NO_DEFAULT",
    "DispatchParameter",
    "Binding",
    "Generation",
    "generation",
    "active_generation",
    "claim_runtime_args",
    "check_worker_args",
]


class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __reduce__(self):
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()
"""DispatchParameter.default of a parameter whose value every call must give."""

_ADVICE = (
    "its value exists only at dispatch. Use the Runtime callback's argument for runtime arithmetic and "
    "control flow, or make `{name}` CompileTime[...] or fix it with specialize({name}=...) for a "
    "generation-time value"
)

# NumPy ufuncs that operators reach (np.int32(3) + p, array < p), named as the operator.
_UFUNC_OPERATORS = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/", "floor_divide": "//",
    "remainder": "%", "divmod": "divmod()", "power": "**", "matmul": "@", "left_shift": "<<", "right_shift": ">>",
    "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "negative": "unary -", "positive": "unary +",
    "absolute": "abs()", "invert": "~", "bitwise_invert": "~",
}
_UFUNC_COMPARISONS = {
    "equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
}


class DispatchParameter:
    """The symbolic stand-in for one unbound DispatchTime parameter during a
    generation. `name` is the generator's parameter name, `dtype` its NumPy
    integer scalar type, `default` the signature default or NO_DEFAULT.
    Hashed and compared by identity only; immutable."""

    __slots__ = ("name", "dtype", "default", "_generation")

    def __init__(self, name: str, dtype: type, default: Any = NO_DEFAULT):
        if not isinstance(name, str) or not name.isidentifier():
            raise TypeError(f"DispatchParameter name must be an identifier, got {name!r}")
        dtype = integer_scalar_type(dtype, f"DispatchParameter `{name}`")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "_generation", None)

    def __repr__(self) -> str:
        default = "" if self.default is NO_DEFAULT else f" = {self.default!r}"
        return f"DispatchParameter({self.name}: {type_name(self.dtype)}{default})"

    def __setattr__(self, attr, value):
        raise AttributeError(f"DispatchParameter `{self.name}` is immutable")

    def __delattr__(self, attr):
        raise AttributeError(f"DispatchParameter `{self.name}` is immutable")

    __hash__ = object.__hash__

    # Copies keep the identity that binds the parameter to its generation.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError(
            f"DispatchParameter `{self.name}` cannot be pickled: it is bound to the generation that made it"
        )

    def _refuse(self, what: str):
        raise TypeError(
            f"DispatchTime parameter `{self.name}` ({type_name(self.dtype)}) used in {what} while the design is "
            f"being generated: " + _ADVICE.format(name=self.name)
        )

    # Truth, conversion, indexing, containers.
    def __bool__(self):
        self._refuse("a truth test (`if`, `while`, `bool()`, `and`/`or`/`not`)")

    def __index__(self):
        self._refuse("`range()` or as an index (`__index__`)")

    def __int__(self):
        self._refuse("`int()`")

    def __float__(self):
        self._refuse("`float()`")

    def __complex__(self):
        self._refuse("`complex()`")

    def __iter__(self):
        self._refuse("iteration")

    def __len__(self):
        self._refuse("`len()`")

    def __contains__(self, item):
        self._refuse("a membership test (`in`)")

    def __getitem__(self, key):
        self._refuse("indexing (`[]`)")

    # NumPy: value and dtype conversion, ufuncs, array functions.
    def __array__(self, dtype=None, copy=None):
        self._refuse("a NumPy value conversion (`np.asarray`, `np.int32(...)`)")

    @property
    def __numpy_dtype__(self):
        self._refuse("a NumPy dtype conversion (`np.dtype(...)`)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        name = getattr(ufunc, "__name__", "?")
        if name in _UFUNC_COMPARISONS:
            self._refuse(f"a comparison (`{_UFUNC_COMPARISONS[name]}`)")
        if name in _UFUNC_OPERATORS:
            self._refuse(f"arithmetic (`{_UFUNC_OPERATORS[name]}`)")
        self._refuse(f"a NumPy ufunc (`np.{name}`)")

    def __array_function__(self, func, types, args, kwargs):
        self._refuse(f"a NumPy function (`np.{getattr(func, '__name__', '?')}`)")

    # Comparisons.
    def __eq__(self, other):
        self._refuse("a comparison (`==`)")

    def __ne__(self, other):
        self._refuse("a comparison (`!=`)")

    def __lt__(self, other):
        self._refuse("a comparison (`<`)")

    def __le__(self, other):
        self._refuse("a comparison (`<=`)")

    def __gt__(self, other):
        self._refuse("a comparison (`>`)")

    def __ge__(self, other):
        self._refuse("a comparison (`>=`)")

    # Unary arithmetic.
    def __neg__(self):
        self._refuse("arithmetic (`unary -`)")

    def __pos__(self):
        self._refuse("arithmetic (`unary +`)")

    def __abs__(self):
        self._refuse("arithmetic (`abs()`)")

    def __invert__(self):
        self._refuse("arithmetic (`~`)")

    def __round__(self, ndigits=None):
        self._refuse("arithmetic (`round()`)")

    def __trunc__(self):
        self._refuse("arithmetic (`math.trunc()`)")

    def __floor__(self):
        self._refuse("arithmetic (`math.floor()`)")

    def __ceil__(self):
        self._refuse("arithmetic (`math.ceil()`)")

    def __pow__(self, other, modulo=None):
        self._refuse("arithmetic (`**`)")

    def __rpow__(self, other, modulo=None):
        self._refuse("arithmetic (`**`)")

    def __ipow__(self, other):
        self._refuse("arithmetic (`**=`)")


def _binary_operator(symbol: str):
    def refuse(self, other):
        self._refuse(f"arithmetic (`{symbol}`)")

    return refuse


# The binary operators, their reflected forms and their in-place forms
# (pow is above: its signature takes a modulus).
for _name, _symbol in [
    ("add", "+"), ("sub", "-"), ("mul", "*"), ("matmul", "@"), ("truediv", "/"), ("floordiv", "//"),
    ("mod", "%"), ("divmod", "divmod()"), ("lshift", "<<"), ("rshift", ">>"), ("and", "&"), ("xor", "^"),
    ("or", "|"),
]:
    setattr(DispatchParameter, f"__{_name}__", _binary_operator(_symbol))
    setattr(DispatchParameter, f"__r{_name}__", _binary_operator(_symbol))
    if _name != "divmod":
        setattr(DispatchParameter, f"__i{_name}__", _binary_operator(f"{_symbol}="))
del _name, _symbol


@dataclass(frozen=True)
class Binding:
    """One claim: `parameter` is fn_args[`position`] of `runtime`."""

    parameter: DispatchParameter
    runtime: Any
    position: int


class Generation:
    """The claims made while one jit generator runs. `parameters` are the
    unbound DispatchTime parameters the generator received."""

    def __init__(self, parameters: Sequence[DispatchParameter], generator: str):
        self.generator = generator
        self.parameters = tuple(parameters)
        names = set()
        for p in self.parameters:
            if not isinstance(p, DispatchParameter):
                raise TypeError(f"generation(): parameters must be DispatchParameters, got {p!r}")
            if p.name in names:
                raise ValueError(f"generation(): two parameters are named `{p.name}`")
            if p._generation is not None:
                raise ValueError(
                    f"generation(): {p!r} already belongs to the generation of `{p._generation.generator}`"
                )
            names.add(p.name)
        for p in self.parameters:
            object.__setattr__(p, "_generation", self)
        self._bindings = {}  # id(parameter) -> Binding

    @property
    def bindings(self) -> tuple:
        """The claims so far, in the order the parameters were received."""
        return tuple(self._bindings[id(p)] for p in self.parameters if id(p) in self._bindings)

    def unbound(self) -> list:
        """The parameters no Runtime has claimed yet."""
        return [p for p in self.parameters if id(p) not in self._bindings]

    def _check_all_bound(self):
        missing = [p.name for p in self.unbound()]
        if len(missing) == 1:
            raise TypeError(
                f"`{self.generator}`: missing binding: forward `{missing[0]}` to exactly one Runtime as a direct "
                f"argument (Runtime(seq, fn_args=[..., {missing[0]}]))"
            )
        if missing:
            names = ", ".join(f"`{n}`" for n in missing)
            raise TypeError(
                f"`{self.generator}`: missing bindings: forward each of {names} to exactly one Runtime as a direct "
                f"argument (Runtime(seq, fn_args=[..., {missing[0]}]))"
            )


_active: contextvars.ContextVar = contextvars.ContextVar("tessel_iron_generation", default=None)


def active_generation():
    """The Generation the current thread is inside, or None."""
    return _active.get()


@contextlib.contextmanager
def generation(parameters: Sequence[DispatchParameter], *, generator: str = "the generator") -> Iterator[Generation]:
    """Run a jit generator's body: Runtimes created inside claim
    `parameters`. On normal exit every parameter must have been claimed
    (TypeError naming the ones that were not); an exception from the body
    passes through unchanged."""
    gen = Generation(parameters, generator)
    token = _active.set(gen)
    try:
        yield gen
    finally:
        _active.reset(token)
    gen._check_all_bound()


def _is_scalar_type(value: Any) -> bool:
    # A tensor type (np.ndarray[(n,), np.dtype[...]]) is a GenericAlias, which some Pythons report as a type.
    if isinstance(value, types.GenericAlias):
        return False
    return (isinstance(value, type) and issubclass(value, np.generic)) or isinstance(value, np.dtype)


def _find_nested(value: Any, path: str, seen: set):
    """(path, parameter) of the first DispatchParameter inside lists, tuples,
    sets and dicts (keys and values) of value, or None."""
    if isinstance(value, DispatchParameter):
        return path, value
    if not isinstance(value, (list, tuple, dict, set, frozenset)) or id(value) in seen:
        return None
    seen.add(id(value))
    if isinstance(value, dict):
        for k, v in value.items():
            found = _find_nested(k, f"{path} (a key)", seen) or _find_nested(v, f"{path}[{k!r}]", seen)
            if found:
                return found
    elif isinstance(value, (set, frozenset)):
        for v in value:
            found = _find_nested(v, f"{path} (a set member)", seen)
            if found:
                return found
    else:
        for i, v in enumerate(value):
            found = _find_nested(v, f"{path}[{i}]", seen)
            if found:
                return found
    return None


def claim_runtime_args(runtime: Any, fn_args: Sequence[Any]) -> list:
    """Called by Runtime.__init__: the [(position, DispatchParameter), ...]
    among `fn_args`, each of which the Runtime passes to its body as a
    runtime scalar. Inside a generation the positions are recorded as that
    Runtime's claims. Raises TypeError, before recording anything, for a
    parameter nested in a container, a duplicate, a parameter another
    Runtime of this generation already claimed, a stale parameter of another
    generation, and (while the generation has unbound parameters) a bare
    NumPy scalar type in place of one."""
    gen = _active.get()
    entries = list(fn_args) if fn_args is not None else []
    found = []  # (position, parameter)
    for i, entry in enumerate(entries):
        if isinstance(entry, DispatchParameter):
            found.append((i, entry))
            continue
        nested = _find_nested(entry, f"fn_args[{i}]", set())
        if nested:
            path, p = nested
            raise TypeError(
                f"Runtime {path} is DispatchTime parameter `{p.name}`, nested inside fn_args[{i}]: a DispatchTime "
                f"parameter must be a direct Runtime argument (fn_args=[..., {p.name}]), not inside a list, tuple "
                f"or dict"
            )
        if gen is not None and gen.parameters and _is_scalar_type(entry):
            names = ", ".join(f"`{p.name}`" for p in gen.parameters)
            raise TypeError(
                f"Runtime fn_args[{i}] is the bare scalar type {type_name(entry)} while `{gen.generator}` has "
                f"unbound DispatchTime parameters ({names}): a bare scalar-type substitute is bound to no "
                f"dispatch value. Pass the parameter the generator received (fn_args=[..., "
                f"{gen.parameters[0].name}]) and use the callback's argument"
            )
    first_position = {}  # id(parameter) -> position
    for i, p in found:
        if id(p) in first_position:
            raise TypeError(
                f"Runtime fn_args[{first_position[id(p)]}] and fn_args[{i}] are both DispatchTime parameter "
                f"`{p.name}`: duplicate binding; forward each parameter exactly once"
            )
        first_position[id(p)] = i
    if gen is None:
        return found
    for i, p in found:
        if p._generation is not gen:
            if p._generation is None:
                owner = "no generation"
            else:
                owner = f"an earlier generation of `{p._generation.generator}`"
            raise TypeError(
                f"Runtime fn_args[{i}] is DispatchTime parameter `{p.name}` of {owner}, not of this generation of "
                f"`{gen.generator}`: forward the parameter the generator received in this call"
            )
        earlier = gen._bindings.get(id(p))
        if earlier is not None and earlier.runtime is not runtime:
            raise TypeError(
                f"Runtime fn_args[{i}] is DispatchTime parameter `{p.name}`, already bound to another Runtime "
                f"(its fn_args[{earlier.position}]): bindings to multiple sequences are rejected; a design has one "
                f"runtime sequence, so forward `{p.name}` to exactly one Runtime"
            )
    # A Runtime initialised again replaces its own earlier claims.
    for key in [k for k, b in gen._bindings.items() if b.runtime is runtime]:
        del gen._bindings[key]
    for i, p in found:
        gen._bindings[id(p)] = Binding(p, runtime, i)
    return found


def check_worker_args(fn_args: Sequence[Any]) -> None:
    """Called by Worker.__init__: TypeError if a DispatchParameter appears in
    `fn_args` at any depth of lists, tuples, sets and dicts."""
    for i, entry in enumerate(list(fn_args) if fn_args is not None else []):
        found = _find_nested(entry, f"fn_args[{i}]", set())
        if found:
            path, p = found
            raise TypeError(
                f"Worker {path} is DispatchTime parameter `{p.name}`: a Worker's arguments are fixed when the "
                f"design is built, and `{p.name}` has a value only at dispatch. Make `{p.name}` CompileTime[...] or "
                f"fix it with specialize({p.name}=...) for worker configuration, or forward it to the Runtime and "
                f"use the callback's argument"
            )
