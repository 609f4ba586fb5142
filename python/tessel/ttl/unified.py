"""Unified-body operations (TT-Lang spec 0.19, "Thread assignment"): an
@ttl.operation whose body holds the kernel statements itself (reserve,
wait, ttl.copy, store, push, pop) instead of @ttl.compute() and
@ttl.datamovement() functions.

    @ttl.operation(grid=(1, 1))
    def add(a, b, out):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        ...
        a_blk = a_dfb.reserve()
        ttl.copy(a[0:1, 0:1], a_blk).wait()      # the reader
        a_blk.push()
        ...
        out_blk.store(x_blk + y_blk)              # compute
        ...
        ttl.copy(out_dfb.wait(), out[0:1, 0:1]).wait()   # the writer

The body's statements are split in two:

- operation scope: the statements with no kernel call in them and that read
  no name a kernel statement binds (making DFBs, shapes, loop counts). They
  run in Python once per call, as the body of an operation with kernel
  functions does;
- kernel statements, each assigned to a thread: a copy from a tensor into
  a block (and the block's reserve and push) to the reader, a copy from a
  block into a tensor (and its wait and pop) to the writer, store() and
  block expressions to compute. A loop, `if` or `with` goes to every thread
  its body has statements for; a statement that uses no block (a device
  scalar such as ttl.node()) to every thread.

Each thread becomes a kernel function (reader, compute, writer) compiled
like any other, with the operation scope's values captured; every report
names the body's own lines. A block one thread uses for something another
thread's statement needs (a reserved block both copied into and stored
into) is an error naming both lines.
"""

import ast
import functools
import inspect
import textwrap
import types

from . import block as block_ns
from . import math as math_ns
from .compiler_values import CompileError
from .dsl import GroupTransfer, KernelFunction, copy, node, signpost
from .records import KernelKind

__all__ = ["unified_body"]

READER, COMPUTE, WRITER = "reader", "compute", "writer"
ROLES = (READER, COMPUTE, WRITER)
_KINDS = {READER: KernelKind.DATA_MOVEMENT, COMPUTE: KernelKind.COMPUTE, WRITER: KernelKind.DATA_MOVEMENT}
# Methods only kernels call: a statement calling one is a kernel statement.
_KERNEL_METHODS = {"reserve", "wait", "push", "pop", "store", "wait_all"}


class UnifiedBodyError(CompileError):
    """A unified body whose statements cannot be assigned to threads."""


def unified_body(fn):
    """A callable running `fn` as a unified body (the operation scope in
    Python, the kernel statements declared as kernel functions of the
    running trace), or None when fn declares kernel functions (or has no
    kernel statements)."""
    try:
        split = _split(fn.__code__, fn)
    except UnifiedBodyError as e:
        error = str(e)

        def refused(*args):
            raise UnifiedBodyError(error)  # when the operation is called, as other compile errors are

        return refused
    if split is None:
        return None

    def body(*args):
        from .extern import current_trace

        trace = current_trace("a unified-body operation")
        scope = split.scope(fn)
        env = scope(*args)
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        for role in ROLES:
            code = split.roles[role]
            closure = tuple(cells[n] if n not in env and n in cells else types.CellType(env.get(n))
                            for n in code.co_freevars)
            kfn = KernelFunction(types.FunctionType(code, fn.__globals__, role, None, closure), _KINDS[role], None,
                                 (code.co_filename, split.lines[role]))
            kfn.ast = split.asts[role]
            trace.functions.append(kfn)

    return body


class _Split:
    def __init__(self, scope_code, roles, asts, lines):
        self._scope_code = scope_code
        self.roles = roles  # role -> code object of the kernel function
        self.asts = asts  # role -> its FunctionDef (lines are the file's)
        self.lines = lines  # role -> the line of its first statement

    def scope(self, fn):
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        closure = tuple(cells[n] for n in self._scope_code.co_freevars)
        return types.FunctionType(self._scope_code, fn.__globals__, fn.__name__, fn.__defaults__, closure)


@functools.lru_cache(maxsize=64)
def _split(code, fn):
    """The operation scope and the threads of a unified body (None for a
    body with kernel functions); per code object, once. `fn` is read only
    on the first call for a code object (its source and globals)."""
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, start - 1)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef) or any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                    for n in ast.walk(func) if n is not func):
        return None
    resolve = _Resolver(fn)
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    kernel = _kernel_statements(body, resolve)
    if not kernel:
        return None
    scope = [s for s in body if s not in kernel]
    roles = _Roles(body, kernel, resolve, code.co_filename)
    names = set().union(*(_names_read(s) for s in kernel))
    bound = set()
    for s in scope:
        bound |= _names_bound(s)
    for a in func.args.args + func.args.kwonlyargs:
        bound.add(a.arg)
        a.annotation = None
    func.returns = None
    # The operation scope: the body without its kernel statements, returning its locals.
    scope_def = ast.copy_location(ast.FunctionDef(name=func.name, args=func.args, body=scope + [_return_locals(func)],
                                                  decorator_list=[], returns=None, type_params=[]), func)
    scope_code = _inner_code(scope_def, code.co_freevars, code.co_filename)
    role_codes, asts, first = {}, {}, {}
    for role in ROLES:
        stmts = roles.statements(role) or [ast.copy_location(ast.Pass(), func)]
        role_def = ast.copy_location(ast.FunctionDef(name=role, args=_no_args(), body=stmts, decorator_list=[],
                                                     returns=None, type_params=[]), func)
        role_codes[role] = _inner_code(role_def, sorted((names & bound) | set(code.co_freevars)), code.co_filename)
        asts[role] = role_def
        first[role] = stmts[0].lineno
    return _Split(scope_code, role_codes, asts, first)


def _inner_code(funcdef, freevars, filename):
    """The code object of `funcdef` compiled as a closure over `freevars`."""
    outer = ast.copy_location(ast.FunctionDef(name="__outer", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=n) for n in freevars], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[funcdef, ast.copy_location(ast.Return(value=ast.Name(id=funcdef.name, ctx=ast.Load())), funcdef)],
        decorator_list=[], returns=None, type_params=[]), funcdef)
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    top = compile(module, filename, "exec")
    outer_code = next(c for c in top.co_consts if isinstance(c, types.CodeType))
    return next(c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == funcdef.name)


def _return_locals(func):
    return ast.copy_location(ast.Return(value=ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                                       keywords=[])), func)


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])


class _Resolver:
    """What a call's function is, from the body's globals and closure."""

    def __init__(self, fn):
        self.values = dict(fn.__globals__)
        for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.values[n] = c.cell_contents
            except ValueError:
                pass

    def value(self, e):
        if isinstance(e, ast.Name):
            return self.values.get(e.id)
        if isinstance(e, ast.Attribute):
            base = self.value(e.value)
            return getattr(base, e.attr, None) if base is not None else None
        return None

    def kind(self, call):
        """'copy', 'node', 'group', 'signpost', 'math' (a block function) or
        None for a call that is not one of the DSL's kernel calls."""
        v = self.value(call.func)
        if v is None:
            return None
        if v is copy:
            return "copy"
        if v is node:
            return "node"
        if v is GroupTransfer:
            return "group"
        if v is signpost:
            return "signpost"
        try:
            if math_ns.kind_of(v) or block_ns.kind_of(v):
                return "math"
        except TypeError:
            return None
        return None


def _is_kernel_call(n, resolve):
    if not isinstance(n, ast.Call):
        return False
    if isinstance(n.func, ast.Attribute) and n.func.attr in _KERNEL_METHODS:
        return True
    return resolve.kind(n) not in (None, "signpost")


def _kernel_statements(body, resolve):
    """The top-level statements of the body that are kernel statements: those
    calling a kernel function or method, and those reading a name such a
    statement binds (to a fixed point)."""
    kernel = [s for s in body if any(_is_kernel_call(n, resolve) for n in ast.walk(s))]
    while True:
        device = set().union(*(_names_bound(s) for s in kernel)) if kernel else set()
        more = [s for s in body if s not in kernel and _names_read(s) & device]
        if not more:
            return kernel
        kernel += more


def _names_read(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _names_bound(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


class _Roles:
    """The thread of every kernel statement."""

    def __init__(self, body, kernel, resolve, filename):
        self.resolve = resolve
        self.filename = filename
        self.kernel = kernel
        self.owner = {}  # a block's or copy handle's name -> (role, line that decided it)
        for s in kernel:
            for n in ast.walk(s):
                self.note(n)

    # ---- who uses what ----

    def claim(self, name, role, line):
        if name is None:
            return
        prior = self.owner.get(name)
        if prior is not None and prior[0] != role:
            raise UnifiedBodyError(
                f"{self.filename}:{line}: '{name}' is used by the {role} thread here and by the {prior[0]} thread "
                f"at line {prior[1]}; in a unified body each block belongs to one thread (copies into blocks run on "
                "the reader, copies out of blocks on the writer, store() and block expressions on compute)")
        self.owner[name] = (role, line)

    def note(self, n):
        """Record what `n` says about the threads of the names it uses."""
        if isinstance(n, ast.Call):
            kind = self.resolve.kind(n)
            if kind == "copy" and len(n.args) == 2:
                src, dst = n.args
                if isinstance(src, ast.Subscript) and not isinstance(dst, ast.Subscript):
                    self.claim(_block_name(dst), READER, n.lineno)
                elif isinstance(dst, ast.Subscript) and not isinstance(src, ast.Subscript):
                    self.claim(_block_name(src), WRITER, n.lineno)
            elif kind == "math":
                for a in n.args:
                    for m in ast.walk(a):
                        if isinstance(m, ast.Name):
                            self.claim_if_block(m.id, n.lineno)
            elif isinstance(n.func, ast.Attribute) and n.func.attr == "store":
                self.claim(_block_name(n.func.value), COMPUTE, n.lineno)
                for a in n.args:
                    for m in ast.walk(a):
                        if isinstance(m, ast.Name):
                            self.claim_if_block(m.id, n.lineno)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and self.is_block(n.target.id):
            self.claim(n.target.id, COMPUTE, n.lineno)
        elif isinstance(n, ast.BinOp):
            for side in (n.left, n.right):
                if isinstance(side, ast.Name):
                    self.claim_if_block(side.id, n.lineno)

    def claim_if_block(self, name, line):
        if self.is_block(name):
            self.claim(name, COMPUTE, line)

    def is_block(self, name):
        """Whether `name` is bound to a reserve()/wait() result (or by with ... as)."""
        for s in self.kernel:
            for n in ast.walk(s):
                if isinstance(n, ast.Assign) and _acquires(n.value) and any(
                        isinstance(t, ast.Name) and t.id == name for t in n.targets):
                    return True
                if isinstance(n, ast.withitem) and _acquires(n.context_expr) and isinstance(
                        n.optional_vars, ast.Name) and n.optional_vars.id == name:
                    return True
        return False

    def roles_of(self, stmt):
        """The threads a simple statement runs on (empty: every thread)."""
        roles = set()
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and n.id in self.owner:
                roles.add(self.owner[n.id][0])
            elif isinstance(n, ast.Call):
                kind = self.resolve.kind(n)
                if kind == "copy" and len(n.args) == 2:
                    src, dst = n.args
                    roles.add(READER if isinstance(src, ast.Subscript) else WRITER)
                elif kind == "math" or (isinstance(n.func, ast.Attribute) and n.func.attr == "store"):
                    roles.add(COMPUTE)
        # A copy handle takes its copy's thread, a name assigned from blocks theirs.
        if isinstance(stmt, ast.Assign) and roles:
            for t in stmt.targets:
                if isinstance(t, ast.Name) and len(roles) == 1:
                    self.owner.setdefault(t.id, (next(iter(roles)), stmt.lineno))
        return roles

    # ---- the threads' statements ----

    def statements(self, role):
        return self.filter(self.kernel, role)

    def filter(self, stmts, role):
        out = []
        for s in stmts:
            kept = self.keep(s, role)
            if kept is not None:
                out.append(kept)
        return out

    def keep(self, s, role):
        """`s` as thread `role` runs it, or None when it has nothing for it."""
        if isinstance(s, (ast.For, ast.While, ast.If)):
            body = self.filter(s.body, role)
            orelse = self.filter(s.orelse, role)
            if not body and not orelse:
                return None
            new = _copy_node(s)
            new.body = body or [ast.copy_location(ast.Pass(), s)]
            new.orelse = orelse
            return new
        if isinstance(s, ast.With):
            body = self.filter(s.body, role)
            items = [i for i in s.items if not _acquires(i.context_expr) or self.item_role(i) == role]
            blocks_here = any(_acquires(i.context_expr) for i in items)
            if not body and not blocks_here:
                return None
            new = _copy_node(s)
            new.items = items if items else None
            new.body = body or [ast.copy_location(ast.Pass(), s)]
            if new.items is None:
                return ast.copy_location(ast.If(test=ast.Constant(value=True), body=new.body, orelse=[]), s)
            return new
        if isinstance(s, ast.Pass):
            return None
        roles = self.roles_of(s)
        if not roles or role in roles:
            return s
        return None

    def item_role(self, item):
        name = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
        if name in self.owner:
            return self.owner[name][0]
        raise UnifiedBodyError(f"{self.filename}:{item.context_expr.lineno}: the block '{name}' is acquired but "
                               "no statement copies into it, out of it, or computes with it, so no thread can "
                               "be chosen for it")


def _acquires(e):
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("reserve", "wait") \
        and not e.args and not e.keywords


def _block_name(e):
    if isinstance(e, ast.Name):
        return e.id
    return None


def _copy_node(s):
    new = type(s)(**{f: getattr(s, f) for f in s._fields})
    ast.copy_location(new, s)
    return new

