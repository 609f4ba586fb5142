"""A TT-Lang kernel function, compiled from its Python source to a C++
kernel_main over tessel's kernel API.

What a kernel function's names are:
  - what it captures from the operation's body or its module (closure cells,
    globals) is a compile-time constant: numbers, tuples, tensors, dataflow
    buffers, modules and functions (a function called with constants runs
    at compile time);
  - a local assigned once from constants stays a constant; any other local
    number is a C++ int32_t (or float, or bool) declared at the top;
  - a block (from reserve()/wait()), a copy's handle and a block expression
    are compile-time objects that name C++ state.

How the DSL maps (docs/ttlang.md has the full table):
  - DFB i is CB i; reserve() is cb_reserve_back, wait() cb_wait_front, for
    all the blocks of that DFB the kernel holds (a run of acquires keeps
    each block: the second wait() waits for two blocks), push()/pop()
    release the oldest;
  - `with` releases its blocks when the body ends; a block acquired by an
    assignment and never released is released after the statement that last
    uses it (as TT-Lang's compiler does);
  - ttl.copy between a tensor slice and a block is one NoC read or write per
    tile (or row) through the tensor's TensorAccessor; wait() is the read or
    write barrier; a copy whose handle is never waited is waited at once;
  - block states are checked at run time (ttl_dsl.h), so a misuse is a
    kernel failure naming the Python line;
  - store(expr) in a compute kernel lowers the expression (blockexpr.py).

Every statement's code is preceded by a #line directive naming the Python
file and line, so every report names the DSL statement.
"""

import ast
import inspect
import textwrap

from .compiler_blocks import BlockStatements
from .compiler_calls import CallStatements
from .compiler_compute import ComputeStatements
from .compiler_exprs import ExpressionCompiler
from .compiler_pipes import PipeStatements
from .compiler_values import (
    Ambiguous,
    Block,
    DeviceSlice,
    CompileError,
    Expr,
    Group,
    Scalar,
    Signpost,
    Transfer,
    _const,
    _describe,
    _escape,
    _is_const,
    refers_to,
)
from .records import KernelKind

__all__ = ["CompileError", "compile_kernel"]


def compile_kernel(kfn, context):
    """The C++ source of kernel function `kfn` (a dsl.KernelFunction) of an
    operation; context: the operation's name, tensors (ttl.Tensor per
    parameter, with the parameter names), dfbs, grid and DST capacity."""
    return _Compiler(kfn, context).compile()


class _Compiler(ExpressionCompiler, BlockStatements, ComputeStatements, CallStatements, PipeStatements):
    def __init__(self, kfn, context):
        self.kfn = kfn
        self.ctx = context
        self.compute = kfn.kind is KernelKind.COMPUTE
        fn = kfn.fn
        self.file = fn.__code__.co_filename
        self.quoted_file = _escape(self.file)
        if getattr(kfn, "ast", None) is not None:
            # A thread of a unified body (unified.py): its statements, with the file's lines.
            self.func, self.offset = kfn.ast, 0
        else:
            try:
                lines, start = inspect.getsourcelines(fn)
            except (OSError, TypeError) as e:
                raise CompileError(f"{self.file}: kernel function '{fn.__name__}': its source is not available "
                                   f"({e}); tessel compiles kernel functions from their source file") from None
            tree = ast.parse(textwrap.dedent("".join(lines)))
            self.func = tree.body[0]
            self.offset = start - 1
        self.captured = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.captured[name] = cell.cell_contents
                except ValueError:
                    pass
        self.globals = fn.__globals__
        self.env = {}
        self.decls = {}  # C++ variable -> declaration
        self.out = []
        self.indent = 1
        self.line = self.func.lineno + self.offset
        self.counter = 0
        self.held = {}  # dfb index -> {"reserve": [Block], "wait": [Block]}
        self.auto = []  # per statement list: [(name, Block)] acquired by assignment (or inline)
        self.acquired = []  # per statement being compiled: the blocks it acquired
        self.mutable = _assigned_more_than_once(self.func)
        self.waited = _waited_names(self.func)
        self.used_tensors = set()
        self.loop_depth = 0
        self.naming = None  # the name the value being computed is assigned to (blocks carry it)
        self.scope = ""  # the C++ prefix of an inlined callback's locals
        self.future = []  # the statements that run after the one being compiled (liveness of variables)
        self.loop_counts = []  # the blocks held at the start of each enclosing loop's body
        self.callback_depth = 0
        for dfb in context.dfbs:
            names = [n for n, v in self.captured.items() if v is dfb]
            if names and dfb.name is None:
                dfb.name = names[0]

    # ---- errors and output ----

    def error(self, message, node=None):
        line = node.lineno + self.offset if node is not None and hasattr(node, "lineno") else self.line
        return CompileError(f"{self.file}:{line}: {message} (kernel function '{self.kfn.name}' of operation "
                            f"'{self.ctx.name}')")

    def emit(self, text):
        # #line names the next line only (the line after it counts on), so every line gets one.
        self.out.append(f'#line {self.line} "{self.quoted_file}"')
        self.out.append("  " * self.indent + text)

    def site(self, node):
        self.line = node.lineno + self.offset

    def read_later(self, name):
        """Whether a statement still to run may read `name`."""
        for stmts in self.future:
            for st in stmts:
                if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(st)):
                    return True
        return False

    def var_name(self, name):
        """The C++ variable of a Python local (an inlined callback's locals are its own)."""
        return f"v{self.scope}_{name}"

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ---- the kernel ----

    def compile(self):
        body = self.func.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        self.statements(body)
        self.release_all(self.func)
        for cb in sorted(self.ctx.scratch.values()) if self.compute else ():
            self.emit(f"cb_pop_front({cb}, 1);")
        head = self.header()
        decls = ["  " + d for d in self.decls.values()]
        return "\n".join(head + decls + self.out + ["}"]) + "\n"

    def header(self):
        ctx = self.ctx
        kind = "compute" if self.compute else "data-movement"
        lines = [f"// Generated by tessel.ttl from {self.kfn.name} ({self.file}:{self.kfn.site[1]}), the {kind} "
                 f"kernel of operation '{ctx.name}'."]
        if self.compute:
            lines += ['#include "api/compute/common.h"', '#include "api/compute/tile_move_copy.h"',
                      '#include "api/compute/eltwise_binary.h"', '#include "api/compute/eltwise_binary_sfpu.h"',
                      '#include "api/compute/binary_max_min.h"', '#include "api/compute/matmul.h"',
                      '#include "api/compute/transpose_wh.h"', '#include "api/compute/pack.h"',
                      '#include "api/compute/reconfig_data_format.h"',
                      '#include "api/compute/eltwise_unary/sfpu_split_includes.h"',
                      '#include "api/compute/eltwise_unary/fill.h"', '#include "compute_kernel_api.h"']
        else:
            lines += ['#include "api/dataflow/dataflow_api.h"']
        lines += ['#include "tessel/ttl_dsl.h"', "", "void kernel_main() {"]
        if self.compute and ctx.dfbs:
            first = ctx.dfbs[0].index
            last = ctx.dfbs[-1].index
            lines.append(f"  compute_kernel_hw_startup({first}, {first}, {last});")
            values = {"zeros": "0.0f", "ones": "1.0f"}
            for kind, cb in sorted(ctx.scratch.items(), key=lambda kv: kv[1]):
                lines += [f"  // CB {cb}: a tile of {kind} (broadcasts load through zeros, reduces scale by ones)",
                          f"  cb_reserve_back({cb}, 1);", "  tile_regs_acquire();", "  fill_tile_init();",
                          f"  fill_tile(0, {values[kind]});", "  tile_regs_commit();", "  tile_regs_wait();",
                          f"  pack_reconfig_data_format({cb});", f"  pack_tile(0, {cb});", "  tile_regs_release();",
                          f"  cb_push_back({cb}, 1);", f"  cb_wait_front({cb}, 1);"]
        for i in sorted(self.used_tensors):
            t, cta, crta, nxt_cta, nxt_crta = ctx.accessor(i)
            lines += [f"  constexpr auto tensor{i}_args = TensorAccessorArgs<{cta}, {crta}>();",
                      f"  static_assert(tensor{i}_args.next_compile_time_args_offset() == {nxt_cta}, "
                      f"\"tessel.ttl: tensor {i} has other accessor args than this kernel was generated for\");",
                      f"  const auto tensor{i} = TensorAccessor(tensor{i}_args, get_common_arg_val<uint32_t>({i}), "
                      f"{t.buffer.page_size});"]
        return lines

    # ---- statements ----

    def statements(self, stmts):
        self.auto.append([])
        for i, s in enumerate(stmts):
            self.future.append(stmts[i + 1:])
            self.acquired.append([])
            try:
                self.statement(s)
                # A block acquired inline (ttl.copy(dfb.wait(), t[...])) is released after its last use too.
                for blk in self.acquired[-1]:
                    if not blk.released and not any(b is blk for _, b in self.auto[-1]):
                        self.auto[-1].append((f"<block acquired at line {blk.line}>", blk))
                self.release_unused(stmts[i + 1:], s)
            finally:
                self.acquired.pop()
                self.future.pop()
        for name, blk in self.auto.pop():
            if not blk.released:
                self.release(blk, stmts[-1] if stmts else None)

    def release_unused(self, rest, stmt):
        """Release the blocks acquired by assignment in this statement list
        that no later statement of the list reads."""
        pending = self.auto[-1]
        if not pending:
            return
        loads = set()
        for s in rest:
            loads |= {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name, blk in list(pending):
            if blk.released:
                pending.remove((name, blk))
            elif name not in loads and not any(n in loads and refers_to(v, blk) for n, v in self.env.items()):
                self.release(blk, stmt)
                pending.remove((name, blk))

    def statement(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.error(f"a {type(s).__name__} statement is not supported in a kernel function", s)
        method(s)

    def stmt_Pass(self, s):
        pass

    def stmt_Expr(self, s):
        self.site(s)
        v = self.expr(s.value)
        if isinstance(v, Transfer):
            self.wait_transfer(v, s)  # a bare copy is waited at once
        elif isinstance(v, Expr):
            raise self.error("a block expression whose result is never stored (use out.store(expression))", s)

    def stmt_Assign(self, s):
        self.site(s)
        if len(s.targets) != 1:
            raise self.error("chained assignment (a = b = ...) is not supported in a kernel function", s)
        target = s.targets[0]
        self.naming = target.id if isinstance(target, ast.Name) else None
        value = self.expr(s.value)
        self.naming = None
        self.assign(target, value, s)

    def assign(self, target, value, s):
        if isinstance(target, ast.Tuple):
            items = self.unpack(value, len(target.elts), s)
            for t, v in zip(target.elts, items):
                self.assign(t, v, s)
            return
        if not isinstance(target, ast.Name):
            raise self.error("only names (and tuples of names) can be assigned in a kernel function", s)
        name = target.id
        if isinstance(value, Block):
            self.env[name] = value
            value.name = name if value.name is None else value.name
            self.auto[-1].append((name, value))
            return
        if isinstance(value, Transfer):
            self.env[name] = value
            if name not in self.waited:
                self.wait_transfer(value, s)  # never waited: waited before the next statement
            return
        if isinstance(value, (Group, Expr, DeviceSlice)):
            self.env[name] = value
            return
        if isinstance(value, Scalar) or name in self.mutable and not (
                _is_const(value) and not isinstance(_const(value), (bool, int, float))):
            scalar = self.scalar(value, s)
            var = self.var_name(name)
            ctype = {"int": "int32_t", "float": "float", "bool": "bool"}[scalar.type]
            existing = self.decls.get(var)
            if existing is None:
                self.decls[var] = f"{ctype} {var} = 0;"
            elif not existing.startswith(ctype + " "):
                raise self.error(f"'{name}' holds a {scalar.type} here and another type elsewhere; a kernel "
                                 "variable keeps one type", s)
            self.emit(f"{var} = {scalar.code};")
            self.env[name] = Scalar(var, scalar.type)
            return
        self.env[name] = value if _is_const(value) else ("const", value)

    def unpack(self, value, n, s):
        if isinstance(value, tuple) and len(value) == 2 and value[0] == "const":
            value = value[1]
        if isinstance(value, (tuple, list)) and len(value) == n:
            return list(value)
        raise self.error(f"cannot unpack {_describe(value)} into {n} names", s)

    def stmt_AugAssign(self, s):
        self.site(s)
        if not isinstance(s.target, ast.Name):
            raise self.error("only names can be updated with an augmented assignment in a kernel function", s)
        current = self.name(s.target.id, s)
        if isinstance(current, Block) and current.reserved:
            if not isinstance(s.op, ast.Add):
                raise self.error("a block takes '+=' (accumulation) only; use blk.store(expression)", s)
            self.store(current, s, value=self.expr(s.value), accumulate=True)
            return
        value = self.binop(current, s.op, self.expr(s.value), s)
        self.assign(s.target, value, s)

    def stmt_If(self, s):
        self.site(s)
        cond = self.expr(s.test)
        if _is_const(cond):
            self.statements(s.body if _const(cond) else s.orelse)
            return
        code = self.scalar(cond, s.test).code
        before = self.snapshot()
        env_before = dict(self.env)
        self.emit(f"if ({code}) {{")
        self.indent += 1
        self.statements(s.body)
        self.indent -= 1
        after_body = self.counts()
        env_body = self.env
        self.env = dict(env_before)
        self.restore(before)
        if s.orelse:
            self.emit("} else {")
            self.indent += 1
            self.statements(s.orelse)
            self.indent -= 1
        self.emit("}")
        if self.counts() != after_body:
            raise self.error("the branches of this if hold different dataflow-buffer blocks at their ends; acquire "
                             "and release blocks within each branch", s)
        self.merge_branches(env_body, s)

    def merge_branches(self, other, s):
        """After an if whose condition is known only on the device: a name the
        branches bind to different compile-time values (blocks, block
        expressions, copy handles, constants) has no single value after it."""
        for name in set(self.env) | set(other):
            a, b = self.env.get(name), other.get(name)
            if a is b or (isinstance(a, Scalar) and isinstance(b, Scalar) and a.code == b.code) or \
                    (_is_const(a) and _is_const(b) and _const(a) is _const(b)):
                continue
            if isinstance(a, Scalar) and b is None or isinstance(b, Scalar) and a is None:
                self.env[name] = a or b  # a device variable set on one branch only keeps its C++ variable
                continue
            self.env[name] = Ambiguous(name, s.lineno + self.offset)

    def stmt_For(self, s):
        self.site(s)
        if s.orelse:
            raise self.error("for ... else is not supported in a kernel function", s)
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and "range" not in self.env and "range" not in self.captured:
            args = [self.expr(a) for a in it.args]
            if it.keywords or not 1 <= len(args) <= 3:
                raise self.error("range() takes 1 to 3 positional arguments", s)
            if len(args) == 1:
                args = [("const", 0)] + args
            if len(args) == 2:
                args = args + [("const", 1)]
            start, stop, step = args
            if not _is_const(step) or not isinstance(_const(step), int) or _const(step) == 0:
                raise self.error("the step of range() in a kernel must be a non-zero integer constant", s)
            if not isinstance(s.target, ast.Name):
                raise self.error("a range loop's target must be a name", s)
            var = self.var_name(s.target.id)
            self.decls.setdefault(var, f"int32_t {var} = 0;")
            stop_var, counter = self.fresh("stop"), self.fresh("i")
            step_v = _const(step)
            if self.compute:
                self.carry_expressions(s)
            # A counter of the loop's own; the Python variable keeps the last value after the loop.
            self.emit(f"for (int32_t {stop_var} = {self.int_code(stop, s)}, {counter} = {self.int_code(start, s)}; "
                      f"{counter} {'<' if step_v > 0 else '>'} {stop_var}; {counter} += {step_v}) {{")
            self.emit(f"  {var} = {counter};")
            self.env[s.target.id] = Scalar(var, "int")
            self.loop_body(s)
            self.emit("}")
            return
        seq = self.expr(it)
        if not _is_const(seq):
            raise self.error("a for loop in a kernel iterates over range(...) or over a constant sequence", s)
        try:
            items = list(_const(seq))
        except TypeError:
            raise self.error(f"cannot iterate over {_describe(_const(seq))}", s) from None
        for item in items:  # unrolled
            self.assign(s.target, ("const", item), s)
            self.statements(s.body)

    def loop_body(self, s):
        before = self.counts()
        temps = {t.index: len(self.lists(t)["wait"]) for t in self.ctx.temps.values()}
        self.indent += 1
        self.loop_depth += 1
        self.loop_counts.append(before)
        self.future.append([s])  # the next iteration reads what the loop reads
        try:
            self.statements(s.body)
        finally:
            self.future.pop()
            self.loop_counts.pop()
        if self.compute:
            self.drop_iteration_temporaries(temps, s)
        self.loop_depth -= 1
        self.indent -= 1
        if self.counts() != before:
            raise self.error("the loop body ends holding other dataflow-buffer blocks than it started with; release "
                             "(push/pop) every block acquired in an iteration within that iteration", s)

    def stmt_While(self, s):
        self.site(s)
        if s.orelse:
            raise self.error("while ... else is not supported in a kernel function", s)
        if self.compute:
            self.carry_expressions(s)
        self.emit("while (true) {")
        self.indent += 1
        cond = self.scalar(self.expr(s.test), s.test).code
        self.emit(f"if (!({cond})) break;")
        self.indent -= 1
        self.loop_body(s)
        self.emit("}")

    def stmt_Break(self, s):
        self.jump(s, "break")

    def stmt_Continue(self, s):
        self.jump(s, "continue")

    def jump(self, s, word):
        self.site(s)
        if not self.loop_depth:
            raise self.error(f"{word} outside a loop the kernel runs (loops over constants are unrolled)", s)
        if self.counts() != self.loop_counts[-1]:
            raise self.error(f"{word} while this iteration holds dataflow-buffer blocks (inside a with, or acquired "
                             "and not released): tessel does not release them on that path; release them first or "
                             "restructure the loop with an if", s)
        self.emit(f"{word};")

    def stmt_Return(self, s):
        self.site(s)
        if s.value is not None:
            raise self.error("a kernel function returns nothing", s)
        if self.callback_depth:
            raise self.error("return in an if_src / if_dst callback is not supported (tessel inlines callbacks)", s)
        if any(v["reserve"] or v["wait"] for v in self.held.values()):
            raise self.error("return while dataflow-buffer blocks are held; release them first", s)
        self.emit("return;")

    def stmt_Assert(self, s):
        self.site(s)
        cond = self.expr(s.test)
        text = ast.unparse(s.test)
        if _is_const(cond):
            if not _const(cond):
                raise self.error(f"assertion {text} is false", s)
            return
        self.emit(f'if (!({self.scalar(cond, s).code})) ttl_dsl::fail("assertion failed: {_escape(text)}", '
                  "__builtin_FILE(), __builtin_LINE());")

    def stmt_With(self, s):
        self.site(s)
        blocks, zones = [], 0
        for item in s.items:
            self.naming = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
            v = self.expr(item.context_expr)
            self.naming = None
            if isinstance(v, Signpost):
                if item.optional_vars is not None:
                    raise self.error("with ttl.signpost(...) takes no 'as' name", s)
                self.emit(f'{{ DeviceZoneScopedN("{_escape(v.name)}");')
                zones += 1
                continue
            if not isinstance(v, Block):
                raise self.error("with takes dataflow-buffer blocks (dfb.reserve() or dfb.wait()) or "
                                 "ttl.signpost(name)", item.context_expr)
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, ast.Name):
                    raise self.error("with ... as takes a name", s)
                self.env[item.optional_vars.id] = v
                v.name = item.optional_vars.id
            blocks.append(v)
        self.statements(s.body)
        for blk in sorted(blocks, key=lambda b: (b.dfb.index, self.position(b))):
            if not blk.released:
                self.release(blk, s)
        for _ in range(zones):
            self.emit("}")


# ---------------------------------------------------------------------------

def _assigned_more_than_once(func):
    counts = {}

    def count(target):
        if isinstance(target, ast.Name):
            counts[target.id] = counts.get(target.id, 0) + 1
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                count(t)

    for n in ast.walk(func):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                count(t)
        elif isinstance(n, ast.AugAssign):
            count(n.target)
            count(n.target)
        elif isinstance(n, (ast.For, ast.While)):
            for inner in ast.walk(n):
                if isinstance(inner, ast.Assign):
                    for t in inner.targets:
                        count(t)
    return {name for name, c in counts.items() if c > 1}


def _waited_names(func):
    """Names whose .wait() is called, or that are added to a GroupTransfer."""
    out = set()
    for n in ast.walk(func):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            if n.func.attr == "wait" and isinstance(n.func.value, ast.Name):
                out.add(n.func.value.id)
            if n.func.attr == "add":
                out |= {a.id for a in n.args if isinstance(a, ast.Name)}
    return out
