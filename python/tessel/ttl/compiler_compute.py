"""The compute statements of the TT-Lang compiler (compiler.py): block
expressions built from operators, ttl.math and ttl.block calls, and
store(), lowered by blockexpr.py.
"""

import ast

from . import blockexpr, composed
from .blockexpr import Node
from .compiler_values import Block, CompileError, Expr, _const, _is_const, _two_d


# ttl.add(a, b) and the others: the compiler's spellings of the block operators.
_ARITHMETIC = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


class ComputeStatements:
    # ---- compute ----

    def is_block_value(self, v):
        return isinstance(v, (Block, Expr))

    def as_node(self, v, e):
        if isinstance(v, Expr):
            # A copy per use: an expression used twice is computed twice (a result is
            # overwritten in place by the op that consumes it).
            return v.node.copy()
        if isinstance(v, Block):
            if not self.compute:
                raise self.error("block arithmetic runs in a compute kernel; a data-movement kernel copies blocks",
                                 e)
            if v.reserved:
                raise self.error(f"block '{v.name}' was reserved, not waited: an expression reads waited blocks", e)
            self.emit(f"ttl_dsl::compute_reads(s{v.var}, __builtin_FILE(), __builtin_LINE());")
            return Node("block", tuple(_two_d(v.shape)), block=v, line=self.line)
        return Node("scalar", None, param=self.float_now(v, e), line=self.line)

    def matrix_leaf(self, v, what, e):
        """`v` as a block leaf for an operation on 2-D blocks (@, transpose,
        broadcast, reduce): an expression over a block of more dimensions
        (one whose leading dimensions are not all 1) is refused."""
        node = v.node if isinstance(v, Expr) else None
        leaves = [v] if isinstance(v, Block) else [n.block for n in node.walk() if n.kind == "block"] if node else []
        for blk in leaves:
            if len(blk.shape) > 2 and any(d != 1 for d in blk.shape[:-2]):
                raise self.error(f"{what} of a block of shape {tuple(blk.shape)}: tessel does these on 2-D blocks "
                                 "(elementwise operations take blocks of any rank)", e)
        return self.as_leaf(v, e)

    def as_leaf(self, v, e):
        """A block leaf for an operation that reads CB tiles (@, transpose,
        broadcast, reduce): a waited block as it is; an expression computed
        first into a temporary of its own (made for this statement, released
        after the statements of this list that read it)."""
        x = self.as_node(v, e)
        if x.kind == "block" or x.shape is None:
            return x
        name = f"<expression at line {self.line}, column {e.col_offset}>"
        self.materialize(name, Expr(x), e)
        blk = self.env.pop(name)
        self.auto[-1].append((name, blk))
        return self.as_node(blk, e)

    def block_binop(self, a, sym, b, e):
        if sym == "**":
            # block ** n: a non-negative integer constant exponent (power_tile).
            if not self.is_block_value(a) or not _is_const(b) or not isinstance(_const(b), int) or \
                    isinstance(_const(b), bool) or _const(b) < 0:
                raise self.error("'**' on a block takes a non-negative integer constant exponent (block ** 2)", e)
            x = self.as_node(a, e)
            return self.carry_dims(Expr(Node("unary", x.shape, [x], op="power", param=str(_const(b)),
                                             line=self.line)), (a,))
        if sym not in ("+", "-", "*", "/", "@"):
            raise self.error(f"'{sym}' is not defined on blocks (+ - * / @ and ** with an integer)", e)
        if sym == "@":
            return self.matmul(a, b, e)
        x, y = self.as_node(a, e), self.as_node(b, e)
        shape = x.shape or y.shape
        if x.shape is not None and y.shape is not None and x.shape != y.shape:
            raise self.error(f"'{sym}' of blocks of shapes {x.shape} and {y.shape}: the shapes differ (use "
                             "ttl.block.broadcast to expand one)", e)
        return self.carry_dims(Expr(Node("binary", shape, [x, y], op=sym, line=self.line)), (a, b))

    def matmul(self, a, b, e):
        """a @ b: (..., M, K) @ (..., K, N) blocks of tiles. Leading (batch)
        dimensions are equal, or all 1 on one side (that operand serves every
        batch)."""
        if not self.is_block_value(a) or not self.is_block_value(b):
            raise self.error("the operands of @ are blocks", e)
        fa, fb = self.dims_shape(a), self.dims_shape(b)
        x, y = self.as_leaf(a, e), self.as_leaf(b, e)
        fa = fa if tuple(_two_d(fa)) == x.shape and len(fa) >= 2 else x.shape
        fb = fb if tuple(_two_d(fb)) == y.shape and len(fb) >= 2 else y.shape
        (m, k), (k2, n) = fa[-2:], fb[-2:]
        if k != k2:
            raise self.error(f"@ of blocks of shapes {tuple(fa)} and {tuple(fb)}: the inner dimensions differ", e)
        lead_a, lead_b = tuple(fa[:-2]), tuple(fb[:-2])
        if not lead_a and not lead_b:
            return Expr(Node("matmul", (m, n), [x, y], line=self.line))
        ones_a, ones_b = all(d == 1 for d in lead_a), all(d == 1 for d in lead_b)
        if lead_a == lead_b or ones_a or ones_b:
            lead = lead_b if ones_a and not ones_b else lead_a
        else:
            raise self.error(f"@ of blocks of shapes {tuple(fa)} and {tuple(fb)}: the batch dimensions differ (they "
                             "must be equal, or all 1 on one side)", e)
        out = tuple(lead) + (m, n)
        batches = 1
        for d in lead:
            batches *= d
        node = Node("matmul", (batches * m, n), [x, y], line=self.line,
                    tiles=(m, not ones_a or batches == 1, not ones_b and batches > 1))
        return Expr(node, out)

    def unary(self, op, v, e, param=None):
        x = self.as_node(v, e)
        if x.shape is None:
            raise self.error(f"ttl.math.{op} takes a block", e)
        return Expr(Node("unary", x.shape, [x], op=op, param=param or "", line=self.line))

    def carry_dims(self, result, operands):
        """An elementwise result keeps its operands' dimensions (a (1, 2, 2)
        block times 2 is (1, 2, 2), not its 2-D fold)."""
        if isinstance(result, Expr) and result.dims is None:
            for v in operands:
                if self.is_block_value(v):
                    full = self.dims_shape(v)
                    if len(full) != 2 and tuple(_two_d(full)) == result.node.shape:
                        result.dims = tuple(full)
                        break
        return result

    def block_call(self, op, e):
        args = self.call_args(e)
        return self.carry_dims(self.block_function(op, args, e), args)

    def block_function(self, op, args, e):
        kwargs = {k.arg: self.expr(k.value) for k in e.keywords}
        if not self.compute:
            raise self.error(f"ttl.math.{op} runs in a compute kernel", e)
        if op in _ARITHMETIC:
            if len(args) != 2 or kwargs:
                raise self.error(f"ttl.{op} takes two blocks", e)
            return self.block_binop(args[0], _ARITHMETIC[op], args[1], e)
        if op == "exp" and kwargs:
            return self.exp(args, kwargs, e)
        if op in blockexpr.UNARY:
            if len(args) != 1:
                raise self.error(f"ttl.math.{op} takes one block", e)
            if kwargs:
                raise self.error(f"ttl.math.{op} takes no keyword arguments, got {', '.join(sorted(kwargs))}", e)
            return self.unary(op, args[0], e)
        if op in blockexpr.UNARY_PARAM:
            value = args[1] if len(args) > 1 else next(iter(kwargs.values()), None)
            if value is None:
                raise self.error(f"ttl.math.{op} takes a block and a number", e)
            return self.unary(op, args[0], e, param=self.float_now(value, e))
        if op == "round":
            d = args[1] if len(args) > 1 else kwargs.get("decimals", ("const", 0))
            if len(args) < 1 or not _is_const(d) or not isinstance(_const(d), int) or isinstance(_const(d), bool):
                raise self.error("ttl.math.round takes a block and decimals=, an integer constant", e)
            x = self.as_node(args[0], e)
            return Expr(Node("unary", x.shape, [x], op="round", param=str(_const(d)), line=self.line))
        if op in composed.COMPOSED:
            return self.composed(op, args, kwargs, e)
        if op in ("max", "min"):
            x, y = self.same_shape(op, args, e)
            return Expr(Node("binary", x.shape or y.shape, [x, y], op=op, line=self.line))
        if op == "fill":
            value = args[0] if args else kwargs.get("value")
            shape = kwargs.get("shape", args[1] if len(args) > 1 else None)
            if value is None or shape is None or not _is_const(shape):
                raise self.error("ttl.block.fill takes a value and shape=(rows, cols)", e)
            n = Node("scalar", tuple(_two_d(_const(shape))), param=self.float_now(value, e),
                     line=self.line)
            return Expr(n)
        if op == "typecast":
            if not args:
                raise self.error("ttl.math.typecast takes a block expression and a dtype", e)
            # DST holds the value; the pack into the stored block converts it to that block's dtype.
            return Expr(self.as_node(args[0], e))
        if op == "broadcast":
            return self.broadcast(args, kwargs, e)
        if op in ("reduce_sum", "reduce_max"):
            return self.reduce(op, args, kwargs, e)
        if op == "transpose":
            x = self.matrix_leaf(args[0], "ttl.transpose", e)
            return Expr(Node("transpose", (x.shape[1], x.shape[0]), [x], line=self.line))
        if op in blockexpr.COMPARE:
            x, y = self.same_shape(op, args, e)
            diff = Node("binary", x.shape or y.shape, [x, y], op="-", line=self.line)
            return Expr(Node("unary", diff.shape, [diff], op=blockexpr.COMPARE[op], line=self.line))
        if op == "where":
            return self.where(args, kwargs, e)
        if op in ("mask", "mask_posinf", "threshold", "prelu"):
            return self.select(op, args, kwargs, e)
        if op in ("squeeze", "unsqueeze"):
            return self.reshape(op, args, kwargs, e)
        raise self.error(f"ttl.math.{op} is not supported by tessel yet (it has no lowering to the compute API)", e)

    def exp(self, args, kwargs, e):
        """ttl.math.exp(x, scale=None, approx=False, skip_clamp_check=False,
        iterations=8): e^(scale * x); approx selects exp_tile's approximate
        mode (docs/numerics.md); skip_clamp_check does not change tessel's
        results; iterations other than 8 (part of each tile) are refused."""
        known = ("scale", "approx", "skip_clamp_check", "iterations")
        unknown = sorted(set(kwargs) - set(known))
        if unknown or len(args) != 1:
            raise self.error("ttl.math.exp takes a block and the keywords scale, approx, skip_clamp_check, "
                             f"iterations{'; got ' + ', '.join(unknown) if unknown else ''}", e)
        x = self.as_node(args[0], e)
        if x.shape is None:
            raise self.error("ttl.math.exp takes a block", e)

        def flag(name):
            v = kwargs.get(name, ("const", False))
            if not _is_const(v) or not isinstance(_const(v), bool):
                raise self.error(f"ttl.math.exp: {name} must be True or False (a constant)", e)
            return _const(v)

        flag("skip_clamp_check")
        if "iterations" in kwargs:
            it = kwargs["iterations"]
            if not _is_const(it) or _const(it) != 8:
                raise self.error("ttl.math.exp: tessel models exp on whole tiles only (iterations=8); got "
                                 f"iterations={_const(it) if _is_const(it) else 'a runtime value'}", e)
        if kwargs.get("scale") is not None and not (_is_const(kwargs["scale"]) and _const(kwargs["scale"]) is None):
            x = Node("binary", x.shape, [x, Node("scalar", x.shape, param=self.float_now(kwargs["scale"], e),
                                                 line=self.line)], op="*", line=self.line)
        return Expr(Node("unary", x.shape, [x], op="exp_approx" if flag("approx") else "exp", line=self.line))

    def same_shape(self, op, args, e):
        """The two operands of ttl.math.<op> as nodes (one may be a number),
        of one shape."""
        if len(args) != 2:
            raise self.error(f"ttl.math.{op} takes two blocks", e)
        x, y = self.as_node(args[0], e), self.as_node(args[1], e)
        if x.shape is None and y.shape is None:
            raise self.error(f"ttl.math.{op} takes blocks (a number for at most one of the two)", e)
        if x.shape is not None and y.shape is not None and x.shape != y.shape:
            raise self.error(f"ttl.math.{op} of blocks of shapes {x.shape} and {y.shape}: the shapes differ (use "
                             "ttl.block.broadcast to expand one)", e)
        return x, y

    def where(self, args, kwargs, e):
        """ttl.block.where(condition, true_value, false_value): per element,
        the true value where the condition is 1.0, else the false value. The
        values may be numbers."""
        names = ("condition", "true_value", "false_value")
        values = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
        if len(values) != 3:
            raise self.error("ttl.block.where takes a condition block, a true value and a false value", e)
        nodes = [self.as_node(v, e) for v in values]
        if nodes[0].shape is None:
            raise self.error("ttl.block.where: the condition is a block (1.0 where true, 0.0 where false)", e)
        return self.where_node(nodes, "ttl.block.where", e)

    def where_node(self, nodes, what, e):
        shape = nodes[0].shape
        for n in nodes[1:]:
            if n.shape is not None and n.shape != shape:
                raise self.error(f"{what} of blocks of shapes {shape} and {n.shape}: the shapes differ (use "
                                 "ttl.block.broadcast to expand one)", e)
        nodes = [n if n.shape is not None else Node("scalar", shape, param=n.param, line=self.line) for n in nodes]
        return Expr(Node("where", shape, nodes, line=self.line))

    def select(self, op, args, kwargs, e):
        """Functions that select per element (built on where):
        ttl.block.mask(x, m) (0 where m is 1.0), mask_posinf(x, m) (+inf
        where m is 1.0), ttl.math.threshold(x, threshold, value) (value
        where x > threshold), prelu(x, alpha) (alpha * x where x < 0)."""
        space = "block" if op.startswith("mask") else "math"
        what = f"ttl.{space}.{op}"
        if not args or not self.is_block_value(args[0]):
            raise self.error(f"{what} takes a block first", e)
        x = self.as_node(args[0], e)

        def number(i, name):
            v = args[i] if len(args) > i else kwargs.get(name)
            if v is None:
                raise self.error(f"{what} takes {name}=", e)
            return self.float_now(v, e)

        if op == "prelu":
            return Expr(Node("unary", x.shape, [x], op="leaky_relu", param=number(1, "alpha"), line=self.line))
        if op == "threshold":
            limit, value = number(1, "threshold"), number(2, "value")
            above = Node("unary", x.shape, [Node("binary", x.shape, [x.copy(), Node("scalar", x.shape, param=limit)],
                                                 op="-")], op="gtz")
            return self.where_node([above, Node("scalar", x.shape, param=value), x], what, e)
        m = args[1] if len(args) > 1 else kwargs.get("mask_blk", kwargs.get("mask"))
        if m is None or not self.is_block_value(m):
            raise self.error(f"{what} takes a block and a mask block (1.0 where masked)", e)
        mask = self.as_node(m, e)
        if mask.shape != x.shape:
            raise self.error(f"{what} of blocks of shapes {x.shape} and {mask.shape}: the shapes differ", e)
        masked = Node("unary", x.shape, [Node("binary", x.shape, [mask, Node("scalar", x.shape, param="1.0f")],
                                              op="-")], op="eqz")
        fill = "0.0f" if op == "mask" else "__builtin_inff()"
        return self.where_node([masked, Node("scalar", x.shape, param=fill), x], what, e)

    def reshape(self, op, args, kwargs, e):
        """ttl.block.squeeze(x, dims=[...]) / unsqueeze(x, dims=[...]): the
        block's dimensions without (squeeze; each of size 1) or with
        (unsqueeze; positions in the result) dimensions of size 1. The tiles
        and their order do not change."""
        what = f"ttl.block.{op}"
        if len(args) != 1 and not (len(args) == 2 and "dims" not in kwargs):
            raise self.error(f"{what} takes a block and dims=[...]", e)
        v = args[0]
        if not self.is_block_value(v):
            raise self.error(f"{what} takes a block", e)
        shape = self.dims_shape(v)
        dims_value = args[1] if len(args) == 2 else kwargs.get("dims")
        if op == "squeeze":
            dims = self.dims_of(dims_value, len(shape), what, e)
            wide = [d for d in sorted(dims) if shape[d] != 1]
            if wide:
                raise self.error(f"{what}: dimension {wide[0]} of a block of shape {shape} has {shape[wide[0]]} "
                                 "tiles; only dimensions of size 1 are removed", e)
            new = tuple(s for i, s in enumerate(shape) if i not in dims)
            if not new:
                raise self.error(f"{what}: removing every dimension of a block of shape {shape} leaves none", e)
        else:
            raw = _const(dims_value) if _is_const(dims_value) else None
            count = 1 if isinstance(raw, int) else len(raw) if isinstance(raw, (list, tuple)) else 0
            dims = self.dims_of(dims_value, len(shape) + count, what, e)
            rest = iter(shape)
            new = tuple(1 if i in dims else next(rest) for i in range(len(shape) + len(dims)))
        x = self.as_node(v, e)
        if tuple(_two_d(new)) != x.shape and x.kind != "block" and not all(
                n.kind in ("block", "scalar", "unary", "binary") for n in x.walk()):
            # Tile indexing inside this tree follows its own shape: compute it first.
            x = self.as_leaf(v, e)
        x.shape = tuple(_two_d(new))
        return Expr(x, new)

    def dims_shape(self, v):
        """A block value's shape in all its dimensions."""
        return tuple(v.shape) if isinstance(v, Block) else tuple(v.dims or v.node.shape)

    def composed(self, op, args, kwargs, e):
        """A ttl.math function built from the engine's ops (composed.py)."""
        names, build = composed.PARAMETERS[op]
        what = f"ttl.math.{op}"
        if not args:
            raise self.error(f"{what} takes a block", e)
        x = self.as_node(args[0], e)
        if x.shape is None:
            raise self.error(f"{what} takes a block", e)
        values = []
        for i, (name, default) in enumerate(names):
            v = args[1 + i] if len(args) > 1 + i else kwargs.get(name)
            if v is None:
                if default is None:
                    raise self.error(f"{what} takes {name}=", e)
                values.append(default)
            else:
                values.append(self.float_now(v, e))
        if op == "pow":
            p = args[1] if len(args) > 1 else kwargs.get("exponent")
            if not _is_const(p) or not isinstance(_const(p), int) or _const(p) < 0:
                raise self.error(f"{what}: the exponent must be a non-negative integer constant (power_tile)", e)
            return Expr(Node("unary", x.shape, [x], op="power", param=str(_const(p)), line=self.line))
        return Expr(build(x, *values))

    def dims_of(self, value, rank, what, e):
        """Block dimensions (as a set of non-negative indices) from dims=[...]."""
        if value is None or not _is_const(value):
            raise self.error(f"{what} takes dims=[...], a list of constant dimensions", e)
        dims = _const(value)
        dims = [dims] if isinstance(dims, int) else list(dims)
        out = set()
        for d in dims:
            if not isinstance(d, int) or not -rank <= d < rank:
                raise self.error(f"{what}: dimension {d!r} is not one of the block's {rank} dimensions", e)
            out.add(d % rank)
        if not out:
            raise self.error(f"{what}: dims is empty", e)
        return out

    def broadcast(self, args, kwargs, e):
        """ttl.block.broadcast(x, dims=[...], shape=...) in two steps (spec
        Appendix B): inside each tile, the first row (dims has the block's
        second-to-last dimension), first column (its last) or element (both)
        fills the tile; then the block's tiles repeat along every dimension in
        dims where x has one tile and shape more."""
        what = "ttl.block.broadcast"
        if not args:
            raise self.error(f"{what} takes a waited block", e)
        full = self.dims_shape(args[0]) if self.is_block_value(args[0]) else None
        x = self.as_leaf(args[0], e)
        if x.shape is None:
            raise self.error(f"{what} takes a waited block", e)
        full = tuple(full) if full is not None and _two_d(full) == x.shape else tuple(x.shape)
        rank = len(full)
        dims = self.dims_of(kwargs.get("dims", args[1] if len(args) > 1 else None), rank, what, e)
        shape = kwargs.get("shape", args[2] if len(args) > 2 else None)
        if shape is None or not _is_const(shape):
            raise self.error(f"{what} takes shape=(...), the block shape to broadcast to", e)
        shape = tuple(_const(shape))
        if len(shape) != rank:
            raise self.error(f"{what}: shape {shape} has {len(shape)} dimensions and the block {full} {rank}", e)
        for d in range(rank):
            if d in dims and full[d] not in (1, shape[d]) or d not in dims and full[d] != shape[d]:
                raise self.error(f"{what}: a block of shape {full} broadcast along dims {sorted(dims)} cannot "
                                 f"have shape {shape}", e)
        in_tile = {d - rank + 2 for d in dims if d >= rank - 2}  # 0: the tile's rows, 1: its columns
        kind = {frozenset({0, 1}): "scalar", frozenset({0}): "rows", frozenset({1}): "cols"}.get(frozenset(in_tile),
                                                                                             "none")
        return Expr(Node("bcast", tuple(_two_d(shape)), [x], op=kind, line=self.line, tiles=(full, shape)), shape)

    def reduce(self, op, args, kwargs, e):
        """ttl.math.reduce_sum / reduce_max(x, dims=[...], shape=...): the
        tiles along dims combine element by element, then each tile reduces
        along the same dims into its first column (dim -1), first row (dim
        -2) or element (both); the rest of the tile is zero."""
        what = f"ttl.math.{op}"
        if not args:
            raise self.error(f"{what} takes a waited block", e)
        x = self.matrix_leaf(args[0], what, e)
        dims = self.dims_of(kwargs.get("dims", args[1] if len(args) > 1 else None), 2, what, e)
        out = tuple(1 if d in dims else x.shape[d] for d in range(2))
        shape = kwargs.get("shape", args[2] if len(args) > 2 else None)
        if shape is not None:
            if not _is_const(shape) or tuple(_two_d(_const(shape))) != out:
                raise self.error(f"{what}: shape {_const(shape) if _is_const(shape) else shape} is not the result "
                                 f"shape {out} of reducing a {x.shape} block along dims {sorted(dims)}", e)
        kind = "scalar" if dims == {0, 1} else ("col" if dims == {0} else "row")
        self.scratch_cb("ones")
        return Expr(Node("reduce", out, [x], op=op[len("reduce_"):] + ":" + kind, line=self.line))

    def keep_expressions_of(self, blk, node):
        """Before `blk` is released: every variable holding a block
        expression that reads it is computed now into a temporary (an
        operation-owned CB the compute kernel both fills and reads), and
        then names that temporary's block, as TT-Lang evaluates an expression
        when it is assigned."""
        for name, value in list(self.env.items()):
            if isinstance(value, Expr) and any(n.kind == "block" and n.block is blk for n in value.node.walk()):
                if self.read_later(name):
                    self.materialize(name, value, node)
                else:
                    del self.env[name]  # a dead value: nothing reads it again

    def materialize(self, name, expr, node):
        temp = self.ctx.temp_cb((self.kfn.name, name, expr.node.shape), self)
        self.env.pop(name, None)
        old = list(self.lists(temp)["wait"])
        saved, self.naming = self.naming, name
        try:
            fresh = self.acquire(temp, True, node)
            self.store(fresh, node, value=expr)
            self.release(fresh, node)
            for b in old:
                self.release(b, node)
            # The value keeps its C++ state across iterations of a loop that updates it.
            self.env[name] = self.acquire(temp, False, node, var=old[0].var if len(old) == 1 else None)
        finally:
            self.naming = saved

    def carry_expressions(self, loop):
        """Before a loop: a block expression variable the loop assigns is
        computed into its temporary now, so every iteration starts and ends
        holding that temporary's one block (the value carried between them)."""
        assigned = set()
        for n in ast.walk(loop):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
            for t in targets:
                assigned |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)}
        for name in sorted(assigned):
            if isinstance(self.env.get(name), Expr):
                self.materialize(name, self.env[name], loop)

    def drop_iteration_temporaries(self, before, loop):
        """At the end of a loop body: the temporaries first made in this
        iteration (a variable assigned in the iteration before it is read) are
        dropped, so the next iteration starts as this one did."""
        for temp in self.ctx.temps.values():
            held = self.lists(temp)["wait"]
            while len(held) > before.get(temp.index, 0):
                blk = held[0]
                for name, value in list(self.env.items()):
                    if value is blk:
                        del self.env[name]
                self.release(blk, loop)

    def scratch_cb(self, kind):
        """The CB of a constant tile the compute kernel makes at its start
        (zeros for broadcasts, ones for reduce scalers)."""
        return self.ctx.scratch_cb(kind, self)

    def store(self, blk, e, value=None, accumulate=False):
        """blk.store(expr), or blk += expr (accumulate: the packer adds into
        the block's tiles, TT-Lang's L1 accumulation; into a block nothing was
        stored into yet, it stores)."""
        what = "'+='" if accumulate else "store()"
        if not self.compute:
            raise self.error(f"{what} runs in a compute kernel; a data-movement kernel fills blocks with ttl.copy", e)
        if not blk.reserved:
            raise self.error(f"{what} into block '{blk.name}', which was waited: store into a reserved block", e)
        if value is None:
            if len(e.args) != 1:
                raise self.error("store() takes one expression", e)
            value = self.expr(e.args[0])
        v = value
        n = self.as_node(v, e)
        out_shape = tuple(_two_d(blk.shape))
        if n.shape is None:
            n = Node("scalar", out_shape, param=n.param, line=self.line)
        if n.shape != out_shape:
            raise self.error(f"store() of an expression of shape {n.shape} into block '{blk.name}' of shape "
                             f"{out_shape}", e)
        if accumulate:
            self.emit(f"pack_reconfig_l1_acc(s{blk.var}.state == ttl_dsl::kFresh ? 0u : 1u);")
        self.emit(f"ttl_dsl::compute_writes(s{blk.var}, __builtin_FILE(), __builtin_LINE());")
        offset = self.position(blk) * blk.dfb.pages
        if blockexpr.needs_zeros(n):
            self.scratch_cb("zeros")
        try:
            # Data formats are reconfigured before every operation: which formats the unpacker and the
            # packer hold at this point depends on stores compiled later (constant tiles, temporaries).
            blockexpr.lower_store(self.emit, (blk.dfb.index, offset, out_shape), n, self.tile_index,
                                  self.ctx.dst_capacity, True, self.ctx.scratch)
        except CompileError:
            raise
        except ValueError as err:
            raise self.error(str(err), e) from None
        if accumulate:
            self.emit("pack_reconfig_l1_acc(0);")
        return ("const", None)
