"""Block expressions of compute kernels, and how a store() of one becomes
compute-API tile operations.

A block expression is a tree (Node) built by the compiler from the DSL's
operators (+ - * / @), ttl.math functions and ttl.block functions; its
leaves are waited blocks (CB tiles), fills and scalars. `lower_store`
emits, for `out.store(expr)`, a loop over the output block's tiles in
chunks that fit DST: per chunk one tile_regs_acquire, the tree's operations
in post-order (each init once, then the op for every tile of the chunk),
commit/wait, one pack per tile into the reserved block, release. Registers
are allocated per tile (allocate): results go into their left operand's
register, and a matmul or reduce (which accumulate) always gets a register
the acquire zeroed.

A binary + - * of two blocks of the same shape is one FPU operation
(add_tiles, ...); anything else loads its operands into DST (copy_tile,
fill_tile) and combines them with SFPU operations.
"""

from dataclasses import dataclass, field

__all__ = ["Node", "UNARY", "BINARY_SFPU", "lower_store"]

# ttl.math functions that are one SFPU op: name -> (init, call with {d} for the register).
UNARY = {
    "exp": ("exp_tile_init();", "exp_tile({d});"),
    "exp_approx": ("exp_tile_init<true>();", "exp_tile<true>({d});"),
    "exp2": ("exp2_tile_init();", "exp2_tile({d});"),
    "log": ("log_tile_init();", "log_tile({d});"),
    "sqrt": ("sqrt_tile_init();", "sqrt_tile({d});"),
    "rsqrt": ("rsqrt_tile_init();", "rsqrt_tile({d});"),
    "recip": ("recip_tile_init();", "recip_tile({d});"),
    "relu": ("relu_tile_init();", "relu_tile({d});"),
    "sigmoid": ("sigmoid_tile_init();", "sigmoid_tile({d});"),
    "tanh": ("tanh_tile_init();", "tanh_tile({d});"),
    "gelu": ("gelu_tile_init<false>();", "gelu_tile<false>({d});"),
    "silu": ("silu_tile_init();", "silu_tile({d});"),
    "abs": ("abs_tile_init();", "abs_tile({d});"),
    "neg": ("negative_tile_init();", "negative_tile({d});"),
    "sign": ("sign_tile_init();", "sign_tile({d});"),
    "square": ("square_tile_init();", "square_tile({d});"),
    "sin": ("sin_tile_init();", "sin_tile({d});"),
    "cos": ("cos_tile_init();", "cos_tile({d});"),
    "floor": ("rounding_op_tile_init();", "floor_tile({d});"),
    "ceil": ("rounding_op_tile_init();", "ceil_tile({d});"),
    "tan": ("tan_tile_init();", "tan_tile({d});"),
    "asin": ("asin_tile_init();", "asin_tile({d});"),
    "acos": ("acos_tile_init();", "acos_tile({d});"),
    "atan": ("atan_tile_init();", "atan_tile({d});"),
    "sinh": ("sinh_tile_init();", "sinh_tile({d});"),
    "cosh": ("cosh_tile_init();", "cosh_tile({d});"),
    "asinh": ("asinh_tile_init();", "asinh_tile({d});"),
    "acosh": ("acosh_tile_init();", "acosh_tile({d});"),
    "atanh": ("atanh_tile_init();", "atanh_tile({d});"),
    "erf": ("erf_tile_init<false>();", "erf_tile<false>({d});"),
    "erfc": ("erfc_tile_init();", "erfc_tile({d});"),
    "erfinv": ("erfinv_tile_init();", "erfinv_tile({d});"),
    "expm1": ("expm1_tile_init();", "expm1_tile({d});"),
    "log1p": ("log1p_tile_init();", "log1p_tile({d});"),
    "logp1": ("log1p_tile_init();", "log1p_tile({d});"),
    "trunc": ("rounding_op_tile_init();", "trunc_tile({d});"),
    "frac": ("rounding_op_tile_init();", "frac_tile({d});"),
    "signbit": ("signbit_tile_init();", "signbit_tile({d});"),
    "isnan": ("isnan_tile_init();", "isnan_tile({d});"),
    "isinf": ("isinf_tile_init();", "isinf_tile({d});"),
    "isfinite": ("isfinite_tile_init();", "isfinite_tile({d});"),
    "hardsigmoid": ("hardsigmoid_tile_init();", "hardsigmoid_tile({d});"),
    "hardswish": ("hardswish_tile_init();", "hardswish_tile({d});"),
    "softsign": ("softsign_tile_init();", "softsign_tile({d});"),
    # Comparisons against zero: 1.0 where true, 0.0 where false.
    "eqz": ("eqz_tile_init();", "eqz_tile({d});"),
    "nez": ("nez_tile_init();", "nez_tile({d});"),
    "ltz": ("ltz_tile_init();", "ltz_tile({d});"),
    "gtz": ("gtz_tile_init();", "gtz_tile({d});"),
    "lez": ("lez_tile_init();", "lez_tile({d});"),
    "gez": ("gez_tile_init();", "gez_tile({d});"),
}
# ttl.math comparisons of two blocks: the sign of a - b against zero. The
# difference of two floats of one format is exact unless it overflows
# (Sterbenz), so the test is exact; a - b of two equal infinities is NaN.
COMPARE = {"eq": "eqz", "ne": "nez", "lt": "ltz", "gt": "gtz", "le": "lez", "ge": "gez"}
# where(condition, true value, false value): condition 1.0 selects the true value.
WHERE = ("where_tile_init();", "where_tile({c}, {t}, {f}, {c});")
# Unary functions with one float parameter: name -> (init, call with {d} and {p} (the float's bits)).
# Unary functions with an integer parameter ({p}: the integer).
UNARY_INT = {
    "power": ("power_tile_init();", "power_tile({d}, {p}u);"),
    "round": ("rounding_op_tile_init();", "round_tile({d}, {p});"),
}
UNARY_PARAM = {
    "relu_max": ("relu_max_tile_init();", "relu_max_tile({d}, {p});"),
    "relu_min": ("relu_min_tile_init();", "relu_min_tile({d}, {p});"),
    "leaky_relu": ("leaky_relu_tile_init();", "leaky_relu_tile({d}, {p});"),
}
# Binary operations on two DST registers: op -> (init, call).
BINARY_SFPU = {
    "+": ("add_binary_tile_init();", "add_binary_tile({a}, {b}, {a});"),
    "-": ("sub_binary_tile_init();", "sub_binary_tile({a}, {b}, {a});"),
    "*": ("mul_binary_tile_init();", "mul_binary_tile({a}, {b}, {a});"),
    "/": ("div_binary_tile_init();", "div_binary_tile({a}, {b}, {a});"),
    "max": ("binary_max_tile_init();", "binary_max_tile({a}, {b}, {a});"),
    "min": ("binary_min_tile_init();", "binary_min_tile({a}, {b}, {a});"),
}
# Binary operations the FPU does on two CB tiles: op -> (init, call).
BINARY_FPU = {
    "+": ("add_tiles_init({ca}, {cb});", "add_tiles({ca}, {cb}, {ia}, {ib}, {d});"),
    "-": ("sub_tiles_init({ca}, {cb});", "sub_tiles({ca}, {cb}, {ia}, {ib}, {d});"),
    "*": ("mul_tiles_init({ca}, {cb});", "mul_tiles({ca}, {cb}, {ia}, {ib}, {d});"),
}


@dataclass(eq=False)
class Node:
    """One node of a block expression. kind: 'block' (a held block: cb,
    block), 'scalar' (value: C++ float expression), 'unary' (op, param),
    'binary' (op), 'where' (condition, true, false), 'matmul', 'transpose'. shape: (rows, cols) in tiles
    (None for a scalar, which broadcasts)."""

    kind: str
    shape: "tuple | None"
    children: list = field(default_factory=list)
    op: str = ""
    param: str = ""  # a C++ expression (a scalar's value, a unary op's float parameter)
    block: object = None  # the compiler's held block, for a 'block' leaf
    line: int = 0
    tiles: tuple = ()  # a broadcast's (input, output) shapes in tiles, all dimensions

    def copy(self):
        """This tree with fresh nodes (the leaves' blocks shared)."""
        return Node(self.kind, self.shape, [c.copy() for c in self.children], self.op, self.param, self.block,
                    self.line, self.tiles)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


def _narrow(leaf):
    """Whether a block's elements fit the FPU's 19-bit source registers
    without loss (32-bit ones go through DST and the SFPU instead, as
    TT-Lang's compiler routes them)."""
    return leaf.block.dfb.dtype.name not in ("Float32", "Int32", "UInt32")


def _fpu(node):
    """Whether `node` is one FPU op on two same-shape blocks."""
    if node.kind != "binary" or node.op not in BINARY_FPU:
        return False
    a, b = node.children
    return a.kind == "block" and b.kind == "block" and a.shape == b.shape and _narrow(a) and _narrow(b)


def _fpu_bcast(node):
    """(block, broadcast) when `node` is one FPU broadcast op: a block of the
    result's shape + - * a broadcast block (either order for + and *)."""
    if node.kind != "binary" or node.op not in BINARY_FPU:
        return None
    a, b = node.children
    if a.kind == "block" and a.shape == node.shape and b.kind == "bcast" and b.op != "none":
        pair = a, b
    elif node.op != "-" and b.kind == "block" and b.shape == node.shape and a.kind == "bcast" and a.op != "none":
        pair = b, a
    else:
        return None
    return pair if _narrow(pair[0]) and _narrow(pair[1].children[0]) else None


def _leaf(node):
    """Nodes lowered as one step into one register."""
    return _fpu(node) or _fpu_bcast(node) is not None or node.kind in (
        "block", "scalar", "matmul", "transpose", "bcast", "reduce")


def needs_zeros(expr):
    """Whether a broadcast of the expression loads through the zero tile (one
    not folded into an FPU broadcast op)."""
    if _fpu_bcast(expr) is not None:
        return False
    if expr.kind == "bcast":
        return expr.op != "none"
    return any(needs_zeros(c) for c in expr.children)


def allocate(expr):
    """The steps of `expr` in post-order (the operand that needs more
    registers first) and each node's DST register (per output tile), and how
    many registers a tile takes. A binary op leaves its result in its left
    operand's register and frees the right one; a unary op works in place; a
    matmul or reduce accumulates, so it gets a register nothing has written
    since the acquire."""
    regs, steps, free, used = {}, [], [], [0]

    def fresh():
        used[0] += 1
        return used[0] - 1

    def need(node):
        """Registers the subtree needs (Sethi-Ullman)."""
        if _leaf(node):
            return 1
        needs = sorted((need(c) for c in node.children), reverse=True)
        return max(n + i for i, n in enumerate(needs))

    def walk(node):
        if _leaf(node):
            accumulates = node.kind in ("matmul", "reduce")
            regs[node] = fresh() if accumulates or not free else free.pop()
            steps.append(node)
            return
        # The operand needing more registers first: the other then reuses what it freed.
        for c in sorted(node.children, key=need, reverse=True):
            walk(c)
        regs[node] = regs[node.children[0]]
        for c in node.children[1:]:
            free.append(regs[c])
        steps.append(node)

    walk(expr)
    return steps, regs, used[0]


def lower_store(emit, out, expr, tile_index, dst_capacity, reconfig, scratch=None):
    """Emit the store of `expr` into the reserved compute block `out`.
    out: (cb, tile offset of the block in the reservation, shape);
    tile_index(block) -> C++ tile index of a leaf's block's first tile
    (its offset in the CB's waited front); dst_capacity: DST tiles;
    reconfig: emit data-format reconfiguration before each op; scratch:
    {"zeros" | "ones": CB} of the constant tiles the kernel made."""
    out_cb, out_offset, out_shape = out
    rows, cols = out_shape
    tiles = rows * cols
    steps, regs, per_tile = allocate(expr)
    if per_tile > dst_capacity:
        raise ValueError(f"the expression needs {per_tile} DST tiles per output tile and DST holds {dst_capacity}; "
                         "split it into several store()s through an intermediate dataflow buffer")
    chunk = max(d for d in range(1, dst_capacity // per_tile + 1) if tiles % d == 0)
    emit(f"for (uint32_t t = 0; t < {tiles}u; t += {chunk}u) {{")
    emit("  tile_regs_acquire();")
    for node in steps:
        _emit_step(emit, node, regs, per_tile, chunk, tile_index, (out_cb, cols), reconfig, scratch or {})
    emit("  tile_regs_commit();")
    emit("  tile_regs_wait();")
    if reconfig:
        emit(f"  pack_reconfig_data_format({out_cb});")
    emit(f"  for (uint32_t u = 0; u < {chunk}u; ++u) "
         f"pack_tile<true>(u * {per_tile}u + {regs[expr]}u, {out_cb}, {out_offset}u + t + u);")
    emit("  tile_regs_release();")
    emit("}")


def _operand_index(node, tile_index, out_cols, transposed=False):
    """The C++ tile index of a leaf block's tile for output tile t + u."""
    base = tile_index(node.block)
    rows, cols = node.shape
    if (rows, cols) == (1, 1):
        return f"{base}u"
    if transposed:
        # Output tile (i, j) reads input tile (j, i); the output has `rows` columns.
        return f"{base}u + ((t + u) % {rows}u) * {cols}u + (t + u) / {rows}u"
    return f"{base}u + t + u"


def _bcast_source(node, tile_index, out_cols):
    """The C++ tile index a broadcast's block supplies to output tile t + u:
    the output tile's coordinates, each dimension the input has only one
    tile along read at 0 (the block's tiles are row-major over all its
    dimensions)."""
    (leaf,) = node.children
    shape_in, shape_out = node.tiles
    terms, stride_in, stride_out = [], 1, 1
    for n_in, n_out in zip(reversed(shape_in), reversed(shape_out)):
        if n_in > 1:
            coordinate = f"((t + u) / {stride_out}u % {n_out}u)" if stride_out > 1 else f"((t + u) % {n_out}u)"
            terms.append(f"{coordinate} * {stride_in}u" if stride_in > 1 else coordinate)
        stride_in *= n_in
        stride_out *= n_out
    return f"{tile_index(leaf.block)}u" + "".join(f" + {t}" for t in reversed(terms))


_FPU_NAMES = {"+": "add", "-": "sub", "*": "mul"}
_REDUCE_DIMS = {"row": "REDUCE_ROW", "col": "REDUCE_COL", "scalar": "REDUCE_SCALAR"}


def _emit_step(emit, node, regs, per_tile, chunk, tile_index, out, reconfig, scratch):
    out_cb, out_cols = out
    d = f"u * {per_tile}u + {regs[node]}u"
    loop = f"  for (uint32_t u = 0; u < {chunk}u; ++u) "
    fused = _fpu_bcast(node)
    if fused is not None:
        a, b = fused
        name, kind = _FPU_NAMES[node.op], b.op
        ca, cb = a.block.dfb.index, b.children[0].block.dfb.index
        if reconfig:
            emit(f"  reconfig_data_format({ca}, {cb});")
        emit(f"  {name}_bcast_{kind}_init_short({ca}, {cb});")
        emit(loop + f"{name}_tiles_bcast_{kind}({ca}, {cb}, {_operand_index(a, tile_index, out_cols)}, "
             f"{_bcast_source(b, tile_index, out_cols)}, {d});")
        return
    if node.kind == "bcast" and node.op == "none":
        # Whole tiles repeated: a copy of the tile the output tile reads.
        cb = node.children[0].block.dfb.index
        emit(f"  reconfig_data_format_srca({cb});")
        emit(f"  copy_tile_to_dst_init_short({cb});")
        emit(loop + f"copy_tile({cb}, {_bcast_source(node, tile_index, out_cols)}, {d});")
        return
    if node.kind == "bcast":
        z, cb = scratch["zeros"], node.children[0].block.dfb.index
        emit(f"  reconfig_data_format({z}, {cb});")
        emit(f"  add_bcast_{node.op}_init_short({z}, {cb});")
        emit(loop + f"add_tiles_bcast_{node.op}({z}, {cb}, 0, {_bcast_source(node, tile_index, out_cols)}, {d});")
        return
    if node.kind == "reduce":
        (leaf,) = node.children
        op, kind = node.op.split(":")
        ones, cb = scratch["ones"], leaf.block.dfb.index
        rows, cols = leaf.shape
        base = tile_index(leaf.block)
        targs = f"<PoolType::{op.upper()}, ReduceDim::{_REDUCE_DIMS[kind]}>"
        if kind == "row":
            count, index = cols, f"{base}u + (t + u) * {cols}u + k"
        elif kind == "col":
            count, index = rows, f"{base}u + k * {cols}u + (t + u)"
        else:
            count, index = rows * cols, f"{base}u + k"
        emit(f"  reconfig_data_format({cb}, {ones});")
        emit(f"  reduce_init{targs}({cb}, {ones}, {out_cb});")
        emit(loop + f"for (uint32_t k = 0; k < {count}u; ++k) reduce_tile{targs}({cb}, {ones}, {index}, 0, {d});")
        emit("  reduce_uninit();")
        return
    if node.kind == "block":
        cb = node.block.dfb.index
        if reconfig:
            emit(f"  reconfig_data_format_srca({cb});")
        emit(f"  copy_tile_to_dst_init_short({cb});")
        emit(loop + f"copy_tile({cb}, {_operand_index(node, tile_index, out_cols)}, {d});")
    elif node.kind == "scalar":
        emit("  fill_tile_init();")
        emit(loop + f"fill_tile({d}, {node.param});")
    elif _fpu(node):
        a, b = node.children
        init, call = BINARY_FPU[node.op]
        ca, cb = a.block.dfb.index, b.block.dfb.index
        if reconfig:
            emit(f"  reconfig_data_format({ca}, {cb});")
        emit("  " + init.format(ca=ca, cb=cb))
        emit(loop + call.format(ca=ca, cb=cb, ia=_operand_index(a, tile_index, out_cols),
                                ib=_operand_index(b, tile_index, out_cols), d=d))
    elif node.kind == "binary":
        a, b = node.children
        init, call = BINARY_SFPU[node.op]
        emit("  " + init)
        emit(loop + call.format(a=f"u * {per_tile}u + {regs[a]}u", b=f"u * {per_tile}u + {regs[b]}u"))
    elif node.kind == "where":
        c, t, f = (f"u * {per_tile}u + {regs[x]}u" for x in node.children)
        init, call = WHERE
        emit("  " + init)
        emit(loop + call.format(c=c, t=t, f=f))
    elif node.kind == "unary":
        (child,) = node.children
        if node.op in UNARY:
            init, call = UNARY[node.op]
            text = call.format(d=f"u * {per_tile}u + {regs[child]}u")
        elif node.op in UNARY_INT:
            init, call = UNARY_INT[node.op]
            text = call.format(d=f"u * {per_tile}u + {regs[child]}u", p=node.param)
        else:
            init, call = UNARY_PARAM[node.op]
            text = call.format(d=f"u * {per_tile}u + {regs[child]}u", p=f"ttl_dsl::bits({node.param})")
        emit("  " + init)
        emit(loop + text)
    elif node.kind == "matmul":
        a, b = node.children
        (_, k), (_, n) = a.shape, b.shape
        ca, cb = a.block.dfb.index, b.block.dfb.index
        base_a, base_b = tile_index(a.block), tile_index(b.block)
        if reconfig:
            emit(f"  reconfig_data_format({ca}, {cb});")
        emit(f"  mm_init_short({ca}, {cb});")
        # Output tile t + u is (batch l, row i, column j); node.tiles says which operands have a batch dimension.
        row_a = f"((t + u) / {n}u)"
        col_b = f"(t + u) % {n}u"
        if node.tiles:
            m, a_batched, b_batched = node.tiles
            if not a_batched:
                row_a = f"((t + u) / {n}u % {m}u)"
            if b_batched:
                col_b = f"(t + u) / {m * n}u * {k * n}u + (t + u) % {n}u"
        emit(loop + f"for (uint32_t k = 0; k < {k}u; ++k) matmul_tiles({ca}, {cb}, "
             f"{base_a}u + {row_a} * {k}u + k, {base_b}u + k * {n}u + {col_b}, {d});")
    elif node.kind == "transpose":
        (a,) = node.children
        cb = a.block.dfb.index
        if reconfig:
            emit(f"  reconfig_data_format_srca({cb});")
        emit(f"  transpose_wh_init_short({cb});")
        emit(loop + f"transpose_wh_tile({cb}, {_operand_index(a, tile_index, out_cols, transposed=True)}, {d});")
    else:
        raise AssertionError(node.kind)
