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

The body's top-level statements are split in two, keeping their order:

- operation scope: the statements with no kernel call in them and that read
  no name an earlier kernel statement binds (making DFBs and pipe nets,
  shapes, loop counts, helper defs). They run in Python once per call, as
  the body of an operation with kernel functions does. Which calls are
  kernel calls, and which names a statement reads (a comprehension's or
  lambda's own variables are not), is unified_names.py's;
- kernel statements, each assigned to threads by unified_threads.py: a
  block's thread follows its binding (copies from tensors into it: the
  reader; out of it: the writer; store() and block expressions: compute;
  pipe copies and element functions: a data-movement thread), and a
  statement runs on the threads of what it uses, or on every thread.

Each thread becomes a kernel function (reader, compute, writer) compiled
like any other, with the operation scope's values captured (a scalar the
scope set and the thread rebinds starts as the scope left it); every report
names the body's own lines. A block two threads would need is an error
naming both lines, and so is a body that also declares kernel functions.
"""

import ast
import functools
import inspect
import textwrap
import types

from .dsl import KernelFunction
from .records import KernelKind
from .unified_names import Resolver, is_kernel_call, names_bound, names_read
from .unified_threads import COMPUTE, READER, WRITER, Threads, UnifiedBodyError

__all__ = ["UnifiedBodyError", "unified_body"]

ROLES = (READER, COMPUTE, WRITER)
_KINDS = {READER: KernelKind.DATA_MOVEMENT, COMPUTE: KernelKind.COMPUTE, WRITER: KernelKind.DATA_MOVEMENT}
_SCOPE_VALUE = "_ttl_scope_"  # the captured operation-scope value of a name a thread rebinds


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
            closure = []
            for n in code.co_freevars:
                source = n[len(_SCOPE_VALUE):] if n.startswith(_SCOPE_VALUE) else n
                closure.append(cells[source] if source not in env and source in cells
                               else types.CellType(env.get(source)))
            kfn = KernelFunction(types.FunctionType(code, fn.__globals__, role, None, tuple(closure)), _KINDS[role],
                                 None, (code.co_filename, split.lines[role]))
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
    if not isinstance(func, ast.FunctionDef):
        return None
    resolve = Resolver(fn)
    resolve.params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    kernel = _kernel_statements(body, resolve)
    kernel_fns = [n for n in ast.walk(func) if n is not func and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and resolve.kernel_decorator(n)]
    if kernel_fns:
        if kernel:
            kfn = kernel_fns[0]
            raise UnifiedBodyError(
                f"{code.co_filename}:{kernel[0].lineno}: this statement runs in a kernel, but the operation also "
                f"declares the kernel function '{kfn.name}' (line {kfn.lineno}); an operation body either holds its "
                "kernel statements itself (a unified body) or declares kernel functions "
                "(@ttl.compute() / @ttl.datamovement()) that hold them all, not both")
        return None
    if not kernel:
        return None
    scope = [s for s in body if s not in kernel]
    threads = Threads(kernel, resolve, code.co_filename)
    bound = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    for s in scope:
        bound |= names_bound(s)
    for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs:
        a.annotation = None
    func.returns = None
    # The operation scope: the body without its kernel statements, returning its locals.
    scope_def = ast.copy_location(ast.FunctionDef(name=func.name, args=func.args, body=scope + [_return_locals(func)],
                                                  decorator_list=[], returns=None, type_params=[]), func)
    scope_code = _inner_code(scope_def, code.co_freevars, code.co_filename)
    role_codes, asts, first = {}, {}, {}
    for role in ROLES:
        stmts = threads.statements(role) or [ast.copy_location(ast.Pass(), func)]
        read = set().union(*(names_read(s) for s in stmts))
        # A name the operation scope set and this thread rebinds (a counter) starts as the scope left it.
        rebound = sorted(_read_first(stmts) & bound & set().union(*(names_bound(s) for s in stmts)))
        init = [ast.copy_location(ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                                             value=ast.Name(id=_SCOPE_VALUE + n, ctx=ast.Load())), stmts[0])
                for n in rebound]
        role_def = ast.copy_location(ast.FunctionDef(name=role, args=_no_args(), body=init + stmts, decorator_list=[],
                                                     returns=None, type_params=[]), func)
        freevars = (read & bound) | set(code.co_freevars) | {_SCOPE_VALUE + n for n in rebound}
        role_codes[role] = _inner_code(role_def, sorted(freevars), code.co_filename)
        asts[role] = role_def
        first[role] = stmts[0].lineno
    return _Split(scope_code, role_codes, asts, first)


def _read_first(stmts):
    """The names `stmts` read before they bind them (in the order Python
    evaluates them: an assignment's value before its targets, a loop's
    test or iterable before its body)."""
    seen, out = set(), set()

    def note(n, reading):
        if n not in seen:
            seen.add(n)
            if reading:
                out.add(n)

    def expr(e):
        for n in sorted(names_read(ast.Expr(value=e)) if e is not None else (), key=str):
            note(n, True)

    def visit(st):
        for s in st:
            if isinstance(s, ast.Assign):
                expr(s.value)
                for t in s.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            note(n.id, not isinstance(n.ctx, ast.Store))
            elif isinstance(s, ast.AugAssign):
                expr(s.value)
                if isinstance(s.target, ast.Name):
                    note(s.target.id, True)
                else:
                    expr(s.target)
            elif isinstance(s, (ast.For, ast.AsyncFor)):
                expr(s.iter)
                for name in names_bound(ast.Assign(targets=[s.target], value=ast.Constant(0))):
                    note(name, False)
                visit(s.body + s.orelse)
            elif isinstance(s, (ast.While, ast.If)):
                expr(s.test)
                visit(s.body + s.orelse)
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                for item in s.items:
                    expr(item.context_expr)
                    for name in names_bound(ast.Assign(targets=[item.optional_vars], value=ast.Constant(0))) \
                            if item.optional_vars is not None else ():
                        note(name, False)
                visit(s.body)
            else:
                for name in names_read(s):
                    note(name, True)
                for name in names_bound(s):
                    note(name, False)

    visit(stmts)
    return out


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


def _kernel_statements(body, resolve):
    """The top-level statements of the body (in its order) that are kernel
    statements: those making a kernel call, and those reading a name an
    earlier kernel statement binds (to a fixed point). What the operation
    scope binds DFBs and PipeNets to decides which method calls are kernel
    calls."""
    kernel = set()
    while True:
        bound = set()
        resolve.scope_kinds = {}
        found = set()
        for s in body:
            kernel_fn = isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and resolve.kernel_decorator(s)
            if not kernel_fn and (id(s) in kernel or names_read(s) & bound
                                  or any(is_kernel_call(n, resolve, bound) for n in ast.walk(s))):
                found.add(id(s))
                bound |= names_bound(s)
            else:
                resolve.note_scope(s)
        if found == kernel:
            return [s for s in body if id(s) in kernel]
        kernel |= found
