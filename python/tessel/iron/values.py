"""The values of a Worker's core_fn written in Python: element reads of
acquired objects and Buffers, range_ indices, and the arithmetic and
comparisons on them. IRON builds MLIR's arith and memref operations from such
a body when it calls core_fn; tessel calls core_fn the same way and emits each
operation as one C++ statement of the worker's kernel (over
kernel/include/tessel/iron_values.h), at the line of core_fn it came from.

The rules are arith's: both operands of an operation have one type (a Python
number takes the other operand's type, and must fit it; a range_ index takes
an integer operand's type); integers wrap at their width; bfloat16 values are
computed in float and rounded to bfloat16 after each operation."""

import numpy as np

from . import trace
from .errors import IronRuntimeError


class Kind:
    """An element type as the kernel computes it."""

    def __init__(self, name, ctype, tag, integer, signed, bits):
        self.name, self.ctype, self.tag = name, ctype, tag
        self.integer, self.signed, self.bits = integer, signed, bits
        self.floating = not integer

    def fits(self, v):
        if not self.integer:
            return True
        lo, hi = (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1) if self.signed else (0, (1 << self.bits) - 1)
        return lo <= v <= hi

    def __repr__(self):
        return self.name


_KINDS = {n: Kind(n, c, c, True, n.startswith("i"), b) for n, c, b in (
    ("int8", "int8_t", 8), ("uint8", "uint8_t", 8), ("int16", "int16_t", 16), ("uint16", "uint16_t", 16),
    ("int32", "int32_t", 32), ("uint32", "uint32_t", 32), ("int64", "int64_t", 64), ("uint64", "uint64_t", 64))}
_KINDS["float32"] = Kind("float32", "float", "float", False, True, 32)
_KINDS["float64"] = Kind("float64", "double", "double", False, True, 64)
_KINDS["bfloat16"] = Kind("bfloat16", "float", "iron::bf16", False, True, 16)
INDEX = Kind("index", "int64_t", "int64_t", True, True, 64)
BOOL = Kind("bool", "bool", "bool", True, False, 1)


def kind_of(dtype):
    name = np.dtype(dtype).name
    if name not in _KINDS:
        raise TypeError(f"element type {name} is not computed in a core_fn; use one of {', '.join(_KINDS)}")
    return _KINDS[name]


def _trace(what):
    t = trace.worker_trace()
    if t is None:
        raise IronRuntimeError(f"{what} is used inside a Worker's core_fn only")
    return t


class Value:
    """One SSA value of the core_fn: a named C++ constant of the kernel."""

    __slots__ = ("t", "name", "kind", "block")

    def __init__(self, t, name, kind):
        self.t, self.name, self.kind = t, name, kind
        self.block = t.blocks[-1]

    def c_expr(self):
        t = _trace("a core_fn value")
        if t is not self.t:
            raise IronRuntimeError("a value of one core_fn is used in another")
        if self.block not in t.blocks:
            raise IronRuntimeError("a value computed inside a range_ loop or an if_ block is used after that block "
                                   "ended; in MLIR a value is visible only in the block defining it and the blocks "
                                   "inside it")
        return self.name

    # -- arithmetic ---------------------------------------------------------------------------------
    def __add__(self, o):
        return _binary(self, o, "+")

    def __radd__(self, o):
        return _binary(o, self, "+")

    def __sub__(self, o):
        return _binary(self, o, "-")

    def __rsub__(self, o):
        return _binary(o, self, "-")

    def __mul__(self, o):
        return _binary(self, o, "*")

    def __rmul__(self, o):
        return _binary(o, self, "*")

    def __truediv__(self, o):
        return _binary(self, o, "/")

    def __rtruediv__(self, o):
        return _binary(o, self, "/")

    def __floordiv__(self, o):
        return _binary(self, o, "//")

    def __rfloordiv__(self, o):
        return _binary(o, self, "//")

    def __mod__(self, o):
        return _binary(self, o, "%")

    def __rmod__(self, o):
        return _binary(o, self, "%")

    def __and__(self, o):
        return _binary(self, o, "&")

    def __rand__(self, o):
        return _binary(o, self, "&")

    def __or__(self, o):
        return _binary(self, o, "|")

    def __ror__(self, o):
        return _binary(o, self, "|")

    def __xor__(self, o):
        return _binary(self, o, "^")

    def __rxor__(self, o):
        return _binary(o, self, "^")

    def __lshift__(self, o):
        return _binary(self, o, "<<")

    def __rlshift__(self, o):
        return _binary(o, self, "<<")

    def __rshift__(self, o):
        return _binary(self, o, ">>")

    def __rrshift__(self, o):
        return _binary(o, self, ">>")

    def __lt__(self, o):
        return _binary(self, o, "<")

    def __le__(self, o):
        return _binary(self, o, "<=")

    def __gt__(self, o):
        return _binary(self, o, ">")

    def __ge__(self, o):
        return _binary(self, o, ">=")

    def __eq__(self, o):
        return _binary(self, o, "==")

    def __ne__(self, o):
        return _binary(self, o, "!=")

    __hash__ = object.__hash__

    def __neg__(self):
        k = self.kind
        if k is BOOL:
            raise TypeError("a comparison result has no negation; use ~ for its inverse")
        return _emit(self.t, k, f"iron::neg<{k.ctype}>({self.c_expr()})" if k.integer else _round(k, f"-{self.c_expr()}"))

    def __pos__(self):
        return self

    def __invert__(self):
        k = self.kind
        if k is BOOL:
            return _emit(self.t, k, f"!{self.c_expr()}")
        if not k.integer:
            raise TypeError(f"~ takes an integer or a comparison result, not a {k.name} value")
        return _emit(self.t, k, f"{k.ctype}(~{self.c_expr()})")

    def __abs__(self):
        k = self.kind
        if k is BOOL or (k.integer and not k.signed):
            return self
        e = self.c_expr()
        if k.integer:
            return _emit(self.t, k, f"({e} < 0 ? iron::neg<{k.ctype}>({e}) : {e})")
        return _emit(self.t, k, f"__builtin_fabs({e})" if k.ctype == "double" else f"__builtin_fabsf({e})")

    # -- what a traced value is not -----------------------------------------------------------------
    def __bool__(self):
        raise TypeError("a value of the core_fn has no Python truth value while core_fn is traced (it is known only "
                        "when the kernel runs): branch on it with `with if_(cond):` from aie.iron.controlflow, and "
                        "combine comparisons with & and | rather than `and` / `or`")

    def __index__(self):
        raise TypeError("a value of the core_fn is not a Python integer while core_fn is traced: loop over it with "
                        "range_, index objects with it directly")

    __int__ = __float__ = __index__

    def __repr__(self):
        return f"<core_fn value {self.name}: {self.kind.name}>"


def _round(kind, expr):
    return f"iron::rbf({expr})" if kind.name == "bfloat16" else expr


def _emit(t, kind, expr):
    name = t.fresh("v")
    t.emit(f"const {kind.ctype} {name} = {expr};")
    return Value(t, name, kind)


def constant(v, kind, what):
    """A Python number as a C++ literal of `kind`."""
    if isinstance(v, (bool, np.bool_)):
        v = int(v)
    if isinstance(v, (int, np.integer)):
        v = int(v)
        if kind.integer:
            if not kind.fits(v):
                raise ValueError(f"{what}: {v} does not fit {kind.name}")
            if kind.bits == 64:
                return f"{kind.ctype}({v}LL)" if kind.signed else f"{kind.ctype}({v}ULL)"
            return f"{kind.ctype}({v})"
        return f"{kind.ctype}({float(v)!r})"
    if isinstance(v, (float, np.floating)):
        if kind.integer:
            raise TypeError(f"{what}: the float {v!r} is combined with a {kind.name} value; IRON's arith needs one "
                            "type on both sides")
        f = float(v)
        if f != f:
            return "__builtin_nanf(\"\")" if kind.ctype == "float" else "__builtin_nan(\"\")"
        if f in (float("inf"), float("-inf")):
            return ("-" if f < 0 else "") + ("__builtin_inff()" if kind.ctype == "float" else "__builtin_inf()")
        return f"{kind.ctype}({f!r})" if kind.name != "bfloat16" else f"iron::rbf({f!r}f)"
    raise TypeError(f"{what}: expected a core_fn value or a number, got {v!r}")


def operand(v, kind, what):
    """v as a C++ expression of `kind` (a Value of that kind, an index where
    kind is an integer, or a Python number that fits)."""
    if isinstance(v, Value):
        if v.kind is kind:
            return v.c_expr()
        if kind.integer and kind is not BOOL and v.kind is INDEX:
            return f"{kind.ctype}({v.c_expr()})"
        if kind is INDEX and v.kind.integer and v.kind is not BOOL:
            return f"int64_t({v.c_expr()})"
        raise TypeError(f"{what}: a {v.kind.name} value where a {kind.name} one is expected; IRON's arith needs "
                        "one type on both sides")
    if hasattr(v, "c_value"):  # a value read elsewhere (an RTP read)
        return operand(v.c_value(), kind, what)
    return constant(v, kind, what)


def _kind_of_pair(a, b, op):
    ka = a.kind if isinstance(a, Value) else None
    kb = b.kind if isinstance(b, Value) else None
    if ka is None:
        return kb
    if kb is None or ka is kb:
        return ka
    if ka is INDEX and kb.integer and kb is not BOOL:
        return kb
    if kb is INDEX and ka.integer and ka is not BOOL:
        return ka
    raise TypeError(f"`{op}` between a {ka.name} value and a {kb.name} value: IRON's arith needs one type on both "
                    "sides")


_CALLS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "rem", "<<": "shl", ">>": "shr"}


def _binary(a, b, op):
    a = a.c_value() if hasattr(a, "c_value") else a
    b = b.c_value() if hasattr(b, "c_value") else b
    k = _kind_of_pair(a, b, op)
    t = (a if isinstance(a, Value) else b).t
    what = f"`{op}`"
    x, y = operand(a, k, what), operand(b, k, what)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return _emit(t, BOOL, f"({x} {op} {y})")
    if op in ("&", "|", "^"):
        if not k.integer:
            raise TypeError(f"`{op}` takes integers or comparison results, not {k.name} values")
        return _emit(t, k, f"{k.ctype}({x} {op} {y})")
    if k is BOOL:
        raise TypeError(f"`{op}` on comparison results: combine them with &, | and ^")
    if op in ("<<", ">>") and not k.integer:
        raise TypeError(f"`{op}` takes integers, not {k.name} values")
    call = _CALLS[op]
    if k.integer or op in ("/", "//", "%"):
        return _emit(t, k, _round(k, f"iron::{call}<{k.ctype}>({x}, {y})"))
    return _emit(t, k, _round(k, f"{x} {op} {y}"))


def load(t, base, index_expr, count, kind, what, volatile=False):
    tag = f"{kind.tag}, true" if volatile else kind.tag
    return _emit(t, kind, f"iron::load<{tag}>({base}, {index_expr}, {count}, \"{what}\")")


def flat_index(index, shape, what):
    """The row-major element number of `index` (an integer, a value, or a
    tuple of one per dimension) as a C++ expression; constant parts are
    checked here, the others when the kernel runs."""
    parts = index if isinstance(index, tuple) else (index,)
    if len(parts) != len(shape):
        raise IndexError(f"{what} has {len(shape)} dimension{'s' if len(shape) != 1 else ''} {tuple(shape)}: index "
                         f"it with {len(shape)} integers or values, got {len(parts)}")
    terms = []
    stride = 1
    for axis in range(len(shape) - 1, -1, -1):
        p, n = parts[axis], shape[axis]
        if hasattr(p, "c_value"):
            p = p.c_value()
        if isinstance(p, Value):
            if not p.kind.integer or p.kind is BOOL:
                raise TypeError(f"{what}: an index must be an integer value, got a {p.kind.name} value")
            e = f"int64_t({p.c_expr()})"
            if len(shape) > 1:  # each dimension is checked; the whole index is checked by the load or store
                e = f"iron::dim({e}, {n}, \"{what}\", {axis}, __FILE__, __LINE__)"
            terms.append(e if stride == 1 else f"{e} * {stride}")
        elif isinstance(p, (int, np.integer)) and not isinstance(p, bool):
            p = int(p)
            if not 0 <= p < n:
                raise IndexError(f"{what}: index {p} of dimension {axis} is outside 0 to {n - 1}")
            if p * stride:
                terms.append(str(p * stride))
        elif isinstance(p, slice):
            raise TypeError(f"{what}: slices are not supported in a core_fn; index single elements")
        else:
            raise TypeError(f"{what}: an index must be an integer or a core_fn value, got {p!r}")
        stride *= n
    return " + ".join(reversed(terms)) if terms else "0"


class Elements:
    """Element access on an array in the core's L1 (an acquired object or a
    Buffer): reads give values, writes store them."""

    volatile = False  # read again at every load (the host writes it while the kernel runs)

    def _elements(self):
        """(C pointer expression, shape, Kind, what) of the array."""
        raise NotImplementedError

    def _element_read(self, index):
        t = _trace("element access")
        base, shape, kind, what = self._elements()
        count = int(np.prod(shape))
        return load(t, base, flat_index(index, shape, what), count, kind, what, self.volatile)

    def _element_write(self, index, value):
        t = _trace("element access")
        base, shape, kind, what = self._elements()
        count = int(np.prod(shape))
        lin = flat_index(index, shape, what)
        v = operand(value, kind, f"{what}[...] = ")
        t.emit(f"iron::store<{kind.tag}>({base}, {lin}, {count}, {v}, \"{what}\");")
