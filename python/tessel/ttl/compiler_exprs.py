"""The expressions of the TT-Lang compiler (compiler.py): names and what
they stand for, constants folded in Python, device numbers as C++
expressions with Python's semantics, tensor subscripts, calls (a function
given constants runs at compile time), and the C++ of a device number.
"""

import ast
import builtins
import math

from .compiler_calls import _NONE
from .compiler_values import (
    Ambiguous,
    Block,
    DeviceSlice,
    CompileError,
    Expr,
    Scalar,
    Slice,
    _const,
    _describe,
    _is_const,
    _is_tensor_like,
)
from .dsl import DataflowBuffer, KernelFunction
from .pipes import PipeNet
from .semaphores import RemoteSemaphore, Semaphore
from .tensor import Tensor

_TILE = 32


class ExpressionCompiler:
    # ---- expressions ----

    def name(self, ident, node):
        if ident in self.env:
            value = self.env[ident]
            if isinstance(value, Ambiguous):
                raise self.error(f"'{ident}' is given a different block, block expression or constant on each "
                                 f"branch of the if at line {value.line}, whose condition is known only on the "
                                 "device; tessel binds these when it compiles: store the value into a dataflow "
                                 "buffer in each branch, or assign it before the if", node)
            return value
        if ident in self.captured:
            return ("const", self.captured[ident])
        if ident in self.globals:
            return ("const", self.globals[ident])
        if hasattr(builtins, ident):
            return ("const", getattr(builtins, ident))
        raise self.error(f"name '{ident}' is not defined", node)

    def expr(self, e):
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.error(f"{type(e).__name__} expressions are not supported in a kernel function", e)
        return method(e)

    def expr_Constant(self, e):
        return ("const", e.value)

    def expr_Name(self, e):
        return self.name(e.id, e)

    def expr_Tuple(self, e):
        items = [self.expr(x) for x in e.elts]
        if all(_is_const(i) for i in items):
            return ("const", tuple(_const(i) for i in items))
        return tuple(items)

    expr_List = expr_Tuple

    def expr_Attribute(self, e):
        base = self.expr(e.value)
        if _is_const(base):
            obj = _const(base)
            if isinstance(obj, DataflowBuffer) and e.attr in ("reserve", "wait"):
                return ("attr", obj, e.attr)
            if isinstance(obj, PipeNet) and e.attr in ("if_src", "if_dst", "is_src", "is_dst", "is_active"):
                return ("attr", obj, e.attr)
            if isinstance(obj, (Semaphore, RemoteSemaphore)) and e.attr in ("wait_eq", "wait_ge", "set", "inc"):
                return ("attr", obj, e.attr)
            try:
                return ("const", getattr(obj, e.attr))
            except AttributeError:
                raise self.error(f"{_describe(obj)} has no attribute '{e.attr}'", e) from None
        if isinstance(base, (Block, Expr)) and e.attr == "shape":
            return ("const", tuple(base.shape if isinstance(base, Block) else base.node.shape))
        if isinstance(base, Block) and e.attr == "dtype":
            return ("const", base.dfb.dtype)
        return ("attr", base, e.attr)

    def expr_Subscript(self, e):
        base = self.expr(e.value)
        if _is_const(base) and isinstance(_const(base), Tensor) or _is_tensor_like(base):
            return self.slice(_const(base), e)
        if _is_const(base):
            key = self.expr(e.slice)
            if _is_const(key):
                try:
                    return ("const", _const(base)[_const(key)])
                except (IndexError, KeyError, TypeError) as err:
                    raise self.error(f"{ast.unparse(e)}: {err}", e) from None
        raise self.error(f"cannot subscript {_describe(base)} in a kernel function", e)

    def slice(self, tensor, e):
        from .tensor import as_tensor
        t = as_tensor(tensor, "a tensor slice")
        index = self.ctx.tensor_index(t)
        if index is None:
            raise self.error("the sliced tensor is not one of the operation's arguments", e)
        elts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(elts) == 1 and not isinstance(elts[0], ast.Slice):
            key = self.expr(elts[0])
            if _is_const(key) and isinstance(_const(key), tuple):
                # t[index] with index a constant tuple of slices and integers.
                elts = [ast.Constant(value=k) for k in _const(key)]
        dims = []
        for x in elts:
            if isinstance(x, ast.Slice):
                if x.step is not None:
                    raise self.error("a tensor slice in a copy takes no step", e)
                start = self.int_code(self.expr(x.lower), e) if x.lower is not None else "0"
                stop = self.int_code(self.expr(x.upper), e) if x.upper is not None else None
                dims.append([start, stop, True])
                continue
            v = self.expr(x)
            if _is_const(v) and isinstance(_const(v), slice):
                py = _const(v)
                v = DeviceSlice(("const", py.start), ("const", py.stop), ("const", py.step))
            if isinstance(v, DeviceSlice):  # slice(...) made in the kernel
                if not (_is_const(v.step) and _const(v.step) in (None, 1)):
                    raise self.error("a tensor slice in a copy takes no step", e)
                start = "0" if _is_const(v.start) and _const(v.start) is None else self.int_code(v.start, e)
                stop = None if _is_const(v.stop) and _const(v.stop) is None else self.int_code(v.stop, e)
                dims.append([start, stop, True])
            else:
                dims.append([self.int_code(v, e), None, False])
        sizes = (list(t.shape[:-2]) + [t.shape[-2] // _TILE, t.shape[-1] // _TILE]) if t.tiled else list(t.shape)
        out = []
        for (start, stop, is_range), size in zip(dims, sizes + [0] * len(dims)):
            if is_range and stop is None:
                stop = str(size)
            out.append((start, stop))
        return Slice(t, index, out, ast.unparse(e))

    def expr_BinOp(self, e):
        return self.binop(self.expr(e.left), e.op, self.expr(e.right), e)

    def binop(self, a, op, b, node):
        sym = _BINOPS.get(type(op))
        if sym is None:
            raise self.error(f"operator {type(op).__name__} is not supported in a kernel function", node)
        if _is_const(a) and _is_const(b):
            try:
                return ("const", _PY_BINOPS[sym](_const(a), _const(b)))
            except Exception as err:
                raise self.error(f"{ast.unparse(node) if isinstance(node, ast.expr) else sym}: {err}", node) from None
        if self.is_block_value(a) or self.is_block_value(b):
            return self.block_binop(a, sym, b, node)
        x, y = self.scalar(a, node), self.scalar(b, node)
        t = "float" if "float" in (x.type, y.type) or sym == "/" else "int"
        if sym == "//" and t == "int":
            return Scalar(f"ttl_dsl::floordiv({x.code}, {y.code}, __builtin_FILE(), __builtin_LINE())", "int")
        if sym == "%" and t == "int":
            return Scalar(f"ttl_dsl::mod({x.code}, {y.code}, __builtin_FILE(), __builtin_LINE())", "int")
        if sym == "**" and t == "int":
            return Scalar(f"ttl_dsl::pow({x.code}, {y.code}, __builtin_FILE(), __builtin_LINE())", "int")
        if sym in ("//", "%", "**"):
            raise self.error(f"'{sym}' on floats is not supported in a kernel function", node)
        if sym == "/":
            return Scalar(f"(float({x.code}) / float({y.code}))", "float")
        if sym == "@":
            raise self.error("'@' takes blocks", node)
        return Scalar(f"({x.code} {sym} {y.code})", t)

    def expr_UnaryOp(self, e):
        v = self.expr(e.operand)
        if _is_const(v):
            return ("const", {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x, ast.Not: lambda x: not x,
                              ast.Invert: lambda x: ~x}[type(e.op)](_const(v)))
        if self.is_block_value(v):
            if isinstance(e.op, ast.USub):
                return self.unary("neg", v, e)
            if isinstance(e.op, ast.UAdd):
                return v
            raise self.error(f"{type(e.op).__name__} is not defined on blocks", e)
        s = self.scalar(v, e)
        op = {ast.USub: "-", ast.UAdd: "+", ast.Not: "!", ast.Invert: "~"}[type(e.op)]
        return Scalar(f"({op}{s.code})", "bool" if op == "!" else s.type)

    def expr_BoolOp(self, e):
        values = [self.expr(v) for v in e.values]
        op = "&&" if isinstance(e.op, ast.And) else "||"
        if all(_is_const(v) for v in values):
            r = all(_const(v) for v in values) if op == "&&" else any(_const(v) for v in values)
            return ("const", r)
        return Scalar("(" + f" {op} ".join(f"bool({self.scalar(v, e).code})" for v in values) + ")", "bool")

    def expr_Compare(self, e):
        parts = []
        left = self.expr(e.left)
        for op, right_node in zip(e.ops, e.comparators):
            right = self.expr(right_node)
            sym = _CMPOPS.get(type(op))
            if sym is None:
                raise self.error(f"comparison {type(op).__name__} is not supported in a kernel function", e)
            if _is_const(left) and _is_const(right):
                parts.append(("const", _PY_CMP[sym](_const(left), _const(right))))
            elif sym in ("==", "!=") and _is_sequence(left) and _is_sequence(right):
                # Tuples (of device numbers): equal when their lengths and every item are.
                a, b = _items(left), _items(right)
                if len(a) != len(b):
                    parts.append(("const", sym == "!="))
                else:
                    same = [self.equal(x, y, e) for x, y in zip(a, b)]
                    code = " && ".join(self.scalar(p, e).code for p in same) or "true"
                    parts.append(Scalar(f"({code})" if sym == "==" else f"(!({code}))", "bool"))
            else:
                parts.append(Scalar(f"({self.scalar(left, e).code} {sym} {self.scalar(right, e).code})", "bool"))
            left = right
        if all(_is_const(p) for p in parts):
            return ("const", all(_const(p) for p in parts))
        return Scalar("(" + " && ".join(self.scalar(p, e).code for p in parts) + ")", "bool")

    def equal(self, x, y, e):
        if _is_const(x) and _is_const(y):
            return ("const", _const(x) == _const(y))
        return Scalar(f"({self.scalar(x, e).code} == {self.scalar(y, e).code})", "bool")

    def expr_IfExp(self, e):
        cond = self.expr(e.test)
        if _is_const(cond):
            return self.expr(e.body if _const(cond) else e.orelse)
        a, b = self.scalar(self.expr(e.body), e), self.scalar(self.expr(e.orelse), e)
        t = "float" if "float" in (a.type, b.type) else a.type
        return Scalar(f"({self.scalar(cond, e).code} ? {a.code} : {b.code})", t)

    def expr_JoinedStr(self, e):
        raise self.error("f-strings are only supported as print() arguments in a kernel function", e)

    def call_args(self, e):
        """A call's positional arguments, a *sequence of constants expanded."""
        out = []
        for a in e.args:
            if isinstance(a, ast.Starred):
                seq = self.expr(a.value)
                if not _is_const(seq):
                    raise self.error("*arguments in a kernel must be a constant sequence", e)
                out += [("const", v) for v in _const(seq)]
            else:
                out.append(self.expr(a))
        return out

    def comprehension(self, e):
        """A comprehension over constants, evaluated when the kernel is
        compiled (its iterables and the names it reads are all constants)."""
        bound = {n.id for g in e.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        env = {}
        for n in ast.walk(e):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound and n.id not in env:
                v = self.expr(n)
                if not _is_const(v):
                    raise self.error(f"a comprehension in a kernel is computed when the kernel is compiled, and "
                                     f"'{n.id}' is known only on the device", e)
                env[n.id] = _const(v)
        try:
            value = eval(compile(ast.fix_missing_locations(ast.Expression(body=e)), self.file, "eval"), {}, env)
        except Exception as err:
            raise self.error(f"{ast.unparse(e)} raised {type(err).__name__}: {err}", e) from None
        return ("const", tuple(value) if isinstance(e, ast.GeneratorExp) else value)

    expr_GeneratorExp = expr_ListComp = expr_SetComp = expr_DictComp = comprehension

    def expr_Call(self, e):
        f = self.expr(e.func)
        if isinstance(f, tuple) and f and f[0] == "attr":
            return self.method(f[1], f[2], e)
        if not _is_const(f):
            raise self.error(f"cannot call {_describe(f)}", e)
        fn = _const(f)
        special = self.special(fn, e)
        if special is not _NONE:
            return special
        args = self.call_args(e)
        kwargs = {k.arg: self.expr(k.value) for k in e.keywords}
        if all(_is_const(a) for a in args) and all(_is_const(v) for v in kwargs.values()):
            if isinstance(fn, KernelFunction):
                raise self.error("a kernel function cannot call another kernel function", e)
            try:
                return ("const", fn(*[_const(a) for a in args], **{k: _const(v) for k, v in kwargs.items()}))
            except CompileError:
                raise
            except Exception as err:
                raise self.error(f"{ast.unparse(e)} raised {type(err).__name__}: {err}", e) from None
        if fn in (min, max, abs, int, float, bool) and not kwargs:
            return self.scalar_builtin(fn, args, e)
        raise self.error(f"{getattr(fn, '__name__', fn)}() is called with values known only on the device; a "
                         "kernel can call it with constants only", e)

    # ---- scalars ----

    def scalar(self, v, node):
        if isinstance(v, Scalar):
            return v
        if _is_const(v):
            c = _const(v)
            if isinstance(c, bool):
                return Scalar("true" if c else "false", "bool")
            if isinstance(c, int):
                if not -(1 << 31) <= c < (1 << 31):
                    raise self.error(f"the integer {c} does not fit a kernel's 32-bit int", node)
                return Scalar(f"int32_t({c})", "int")
            if isinstance(c, float):
                if math.isnan(c):
                    return Scalar('__builtin_nanf("")', "float")
                if math.isinf(c):
                    return Scalar("__builtin_inff()" if c > 0 else "(-__builtin_inff())", "float")
                return Scalar(f"float({c!r})", "float")
        raise self.error(f"{_describe(v)} is not a number", node)

    def now(self, v, node):
        """`v` as a device number with the value it has now: a variable is
        copied into a C++ temporary, so a block expression or a slice()
        that keeps it sees the value it had when it was made (as Python
        evaluates it), not a later assignment's."""
        s = self.scalar(v, node)
        if _is_const(v) or s.code.lstrip("(-").split("(")[0] in ("int32_t", "float", "bool", "true", "false"):
            return s
        var = self.fresh("now")
        self.decls[var] = f"{ {'int': 'int32_t', 'float': 'float', 'bool': 'bool'}[s.type]} {var} = 0;"
        self.emit(f"{var} = {s.code};")
        return Scalar(var, s.type)

    def float_now(self, v, node):
        return f"float({self.now(v, node).code})"

    def int_code(self, v, node):
        s = self.scalar(v, node)
        if s.type == "float":
            raise self.error("a float where the kernel needs an integer", node)
        return s.code


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
           ast.RShift: ">>"}
_PY_BINOPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
              "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b,
              "@": lambda a, b: a @ b, "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
              "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b}
def _is_sequence(v):
    return isinstance(v, (tuple, list)) and not _is_const(v) or _is_const(v) and isinstance(_const(v), (tuple, list))


def _items(v):
    return [("const", x) for x in _const(v)] if _is_const(v) else list(v)


_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_PY_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
           "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
