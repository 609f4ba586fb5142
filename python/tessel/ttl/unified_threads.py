"""The thread of every kernel statement of a unified body (unified.py).

A block, copy handle or value belongs to its binding (the assignment or
`with ... as` that names it), not to its name: the statements are walked in
program order and every name read is resolved to the binding it sees, so a
name reused for the reader's block and the writer's is two blocks.

A block's thread:
  - a copy from a tensor into it: the reader; from it into a tensor: the
    writer; store(), `+=` and block expressions with it: compute;
  - else a pipe copy with it (in an if_src / if_dst callback): its send
    runs on the writer, its receive on the reader;
  - else the element functions (raw_element_read / raw_element_write /
    read_index), which run on a data-movement thread: the data-movement
    thread of the statements that use what they read, else the reader for
    a reserved block (it fills the block) and the writer for a waited one.
A statement runs on the threads of the blocks and handles it uses and of
the calls it makes, or on every thread when it uses none (a device scalar
such as ttl.node()); a value it binds takes its thread when it has one.
"""

import ast

from .compiler_values import CompileError
from .unified_names import acquires

READER, COMPUTE, WRITER = "reader", "compute", "writer"
DM = "data-movement"
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


class UnifiedBodyError(CompileError):
    """A unified body whose statements cannot be assigned to threads."""


class Binding:
    """One binding of a name: an acquire ('reserve' / 'wait'), or a value
    ('value', 'param')."""

    def __init__(self, name, kind, line, stmt):
        self.name, self.kind, self.line, self.stmt = name, kind, line, stmt
        self.role = None
        self.claims = []  # (role or DM, line, default role or None)
        self.element_stmts = []  # statements calling an element function on this block

    @property
    def block(self):
        return self.kind in ("reserve", "wait")


class Threads:
    """The thread of every kernel statement (`kernel`, in body order)."""

    def __init__(self, kernel, resolve, filename):
        self.resolve = resolve
        self.filename = filename
        self.kernel = kernel
        self.ref = {}  # id(Name node) -> the Binding it reads or binds
        self.made = {}  # id(statement) -> the bindings it makes
        self.bindings = []
        self.scopes = [{}]
        self.stmt = None
        for s in kernel:
            self.walk_stmt(s)
        self.decide()

    # ---- bindings, in program order ----

    def lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, target, kind, stmt):
        for n in ast.walk(target):
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store):
                self.ref[id(n)] = self.lookup(n.id)  # an index or base in a target, read
            elif isinstance(n, ast.Name):
                b = Binding(n.id, kind if isinstance(target, ast.Name) else "value", n.lineno, stmt)
                self.scopes[-1][n.id] = b
                self.ref[id(n)] = b
                self.bindings.append(b)
                self.made.setdefault(id(stmt), []).append(b)

    def walk_stmt(self, s):
        outer = self.stmt
        if not isinstance(s, (ast.For, ast.While, ast.If, ast.With)):
            self.stmt = s
        if isinstance(s, ast.Assign):
            self.expr(s.value)
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) and isinstance(s.value, ast.Tuple) \
                    and len(s.targets[0].elts) == len(s.value.elts):
                for t, v in zip(s.targets[0].elts, s.value.elts):
                    self.bind(t, v.func.attr if acquires(v) else "value", s)
            else:
                for t in s.targets:
                    self.bind(t, s.value.func.attr if acquires(s.value) else "value", s)
        elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
            if s.value is not None:
                self.expr(s.value)
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                b = self.lookup(s.target.id)
                self.ref[id(s.target)] = b
                if b is not None and b.block:
                    b.claims.append((COMPUTE, s.lineno, None))
            else:
                self.bind(s.target, "value", s)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.expr(s.iter)
            self.bind(s.target, "value", s)
            self.walk_body(s.body + s.orelse)
        elif isinstance(s, (ast.While, ast.If)):
            self.expr(s.test)
            self.walk_body(s.body + s.orelse)
        elif isinstance(s, ast.With):
            for item in s.items:
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, item.context_expr.func.attr if acquires(item.context_expr)
                              else "value", s)
            self.walk_body(s.body)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(s, s.body)
            self.bind(ast.Name(id=s.name, ctx=ast.Store(), lineno=s.lineno), "value", s)
        else:
            for c in ast.iter_child_nodes(s):
                if isinstance(c, ast.stmt):
                    self.walk_stmt(c)
                else:
                    self.expr(c)
        self.stmt = outer

    def walk_body(self, stmts):
        for c in stmts:
            self.walk_stmt(c)

    def function(self, fn, body):
        for d in fn.args.defaults:
            self.expr(d)
        self.scopes.append({})
        for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
            self.scopes[-1][p.arg] = Binding(p.arg, "param", fn.lineno, self.stmt)
        if isinstance(body, list):
            self.walk_body(body)
        else:
            self.expr(body)
        self.scopes.pop()

    def expr(self, e):
        if isinstance(e, ast.Name):
            self.ref[id(e)] = self.lookup(e.id)
            return
        if isinstance(e, ast.Lambda):
            self.function(e, e.body)
            return
        if isinstance(e, _COMPREHENSIONS):
            self.scopes.append({})
            for g in e.generators:
                self.expr(g.iter)
                for n in ast.walk(g.target):
                    if isinstance(n, ast.Name):
                        self.scopes[-1][n.id] = Binding(n.id, "param", n.lineno, self.stmt)
                for c in g.ifs:
                    self.expr(c)
            for part in ("elt", "key", "value"):
                if hasattr(e, part):
                    self.expr(getattr(e, part))
            self.scopes.pop()
            return
        for c in ast.iter_child_nodes(e):
            self.expr(c)
        if isinstance(e, ast.Call):
            self.note_call(e)
        elif isinstance(e, ast.BinOp):
            for side in (e.left, e.right):
                self.claim_compute(side, e.lineno)

    def block_of(self, e):
        b = self.ref.get(id(e)) if isinstance(e, ast.Name) else None
        return b if b is not None and b.block else None

    def claim_compute(self, e, line):
        b = self.block_of(e)
        if b is not None:
            b.claims.append((COMPUTE, line, None))

    def note_call(self, n):
        kind = self.resolve.kind(n)
        if kind == "copy" and len(n.args) == 2:
            src, dst = n.args
            if isinstance(src, ast.Subscript) and not isinstance(dst, ast.Subscript):
                if self.block_of(dst):
                    self.block_of(dst).claims.append((READER, n.lineno, None))
            elif isinstance(dst, ast.Subscript) and not isinstance(src, ast.Subscript):
                if self.block_of(src):
                    self.block_of(src).claims.append((WRITER, n.lineno, None))
            elif self.block_of(src):
                self.block_of(src).claims.append((DM, n.lineno, WRITER))  # a send on a pipe
            elif self.block_of(dst):
                self.block_of(dst).claims.append((DM, n.lineno, READER))  # a receive
        elif kind == "element" and n.args:
            b = self.block_of(n.args[0])
            if b is not None:
                b.claims.append((DM, n.lineno, None))
                b.element_stmts.append(self.stmt)
        elif kind == "math":
            for a in n.args:
                for m in ast.walk(a):
                    self.claim_compute(m, n.lineno)
        elif isinstance(n.func, ast.Attribute) and n.func.attr == "store":
            self.claim_compute(n.func.value, n.lineno)
            for a in n.args:
                for m in ast.walk(a):
                    self.claim_compute(m, n.lineno)

    # ---- deciding ----

    def decide(self):
        blocks = [b for b in self.bindings if b.block]
        for b in blocks:
            b.role = self.fixed_role(b)
        self.value_roles()
        for b in blocks:
            if b.role is None and b.claims:
                b.role = self.dm_role(b)
        self.value_roles()

    def fixed_role(self, b):
        prior = None
        for role, line, _ in b.claims:
            if role == DM:
                continue
            if prior is not None and prior[0] != role:
                raise self.conflict(b.name, role, line, prior)
            prior = (role, line)
        for role, line, _ in b.claims:
            if role == DM and prior is not None and prior[0] == COMPUTE:
                raise self.conflict(b.name, "compute", prior[1], ("data-movement", line))
        return prior[0] if prior else None

    def conflict(self, name, role, line, prior):
        return UnifiedBodyError(
            f"{self.filename}:{line}: '{name}' is used by the {role} thread here and by the {prior[0]} thread "
            f"at line {prior[1]}; in a unified body each block belongs to one thread (copies into blocks run on "
            "the reader, copies out of blocks on the writer, store() and block expressions on compute)")

    def dm_role(self, b):
        """The data-movement thread of a block only pipe copies or element functions use."""
        for _, _, default in b.claims:
            if default is not None:
                return default
        users = set()
        for s in b.element_stmts:
            users |= self.stmt_roles(s)
            made = self.made.get(id(s), [])
            for user in self.statements_reading(made):
                users |= self.stmt_roles(user)
        users &= {READER, WRITER}
        if len(users) == 1:
            return users.pop()
        return READER if b.kind == "reserve" else WRITER

    def statements_reading(self, bindings):
        wanted = {id(b) for b in bindings}
        out = []
        for s in self.simple_statements(self.kernel):
            if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(self.ref.get(id(n))) in wanted
                   for n in ast.walk(s)):
                out.append(s)
        return out

    def simple_statements(self, stmts):
        for s in stmts:
            if isinstance(s, (ast.For, ast.While, ast.If)):
                yield from self.simple_statements(s.body + s.orelse)
            elif isinstance(s, ast.With):
                yield from self.simple_statements(s.body)
            else:
                yield s

    def value_roles(self):
        """Values bound by statements of one thread take that thread, in program order."""
        for b in self.bindings:
            if not b.block:
                b.role = None
        for s in self.simple_statements(self.kernel):
            roles = self.stmt_roles(s)
            if len(roles) == 1:
                for b in self.made.get(id(s), []):
                    if not b.block:
                        b.role = next(iter(roles))

    def stmt_roles(self, node):
        """The threads of the blocks, handles and calls `node` uses (empty: every thread)."""
        roles = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                b = self.ref.get(id(n))
                if b is not None and b.role is not None:
                    roles.add(b.role)
            elif isinstance(n, ast.Call):
                kind = self.resolve.kind(n)
                if kind == "copy" and len(n.args) == 2:
                    src, dst = n.args
                    if isinstance(src, ast.Subscript):
                        roles.add(READER)
                    elif isinstance(dst, ast.Subscript):
                        roles.add(WRITER)
                    elif not (self.block_of(src) or self.block_of(dst)):
                        roles.add(WRITER)
                elif kind == "math" or (isinstance(n.func, ast.Attribute) and n.func.attr == "store"):
                    roles.add(COMPUTE)
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
            items = [i for i in s.items if not acquires(i.context_expr) or self.item_role(i) == role]
            blocks_here = any(acquires(i.context_expr) for i in items)
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
        for b in self.made.get(id(s), []):
            if b.block and b.role is None:
                raise self.unused(b.name, b.line)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) \
                and isinstance(s.value, ast.Tuple) and len(s.targets[0].elts) == len(s.value.elts):
            return self.keep_pairs(s, role)
        roles = self.stmt_roles(s)
        if not roles or role in roles:
            return s
        return None

    def keep_pairs(self, s, role):
        """`a, b = x, y` with the pairs thread `role` runs (acquires of other threads' blocks left out)."""
        pairs = [(t, v) for t, v in zip(s.targets[0].elts, s.value.elts)
                 if not (self.stmt_roles(t) | self.stmt_roles(v)) or role in self.stmt_roles(t) | self.stmt_roles(v)]
        if not pairs:
            return None
        if len(pairs) == len(s.value.elts):
            return s
        new = _copy_node(s)
        new.targets = [ast.copy_location(ast.Tuple(elts=[t for t, _ in pairs], ctx=ast.Store()), s.targets[0])]
        new.value = ast.copy_location(ast.Tuple(elts=[v for _, v in pairs], ctx=ast.Load()), s.value)
        return new

    def item_role(self, item):
        b = self.ref.get(id(item.optional_vars)) if isinstance(item.optional_vars, ast.Name) else None
        if b is not None and b.role is not None:
            return b.role
        raise self.unused(b.name if b else None, item.context_expr.lineno)

    def unused(self, name, line):
        return UnifiedBodyError(f"{self.filename}:{line}: the block '{name}' is acquired but no statement copies "
                                "into it, out of it, or computes with it, so no thread can be chosen for it")


def _copy_node(s):
    new = type(s)(**{f: getattr(s, f) for f in s._fields})
    ast.copy_location(new, s)
    return new
