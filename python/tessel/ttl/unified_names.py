"""What a unified body's statements read, bind and call (unified.py):
names with Python's scopes (a comprehension's or lambda's variables, a
nested def's parameters are theirs), and which calls are kernel calls.
"""

import ast
import builtins

from . import block as block_ns
from . import math as math_ns
from .dsl import (DataflowBuffer, GroupTransfer, copy, make_dataflow_buffer_like, make_dfb, node, raw_element_read,
                  raw_element_write, read_index, signpost)
from .pipes import PipeNet

# Methods kernels call on a DFB, a block, a copy handle or a group.
KERNEL_METHODS = {"reserve", "wait", "push", "pop", "store", "wait_all", "add"}
PIPE_METHODS = {"if_src", "if_dst"}
KERNEL_DECORATORS = ("compute", "datamovement")
_ELEMENT = (raw_element_read, raw_element_write, read_index)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _params(fn):
    a = fn.args
    return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {p.arg for p in (a.vararg, a.kwarg) if p}


def names_read(stmt):
    """The names `stmt` reads from its own scope (a comprehension's targets,
    a lambda's or nested def's parameters and locals are theirs)."""
    out = set()
    _reads(stmt, set(), out)
    return out


def _reads(n, local, out):
    if isinstance(n, ast.Name):
        if isinstance(n.ctx, ast.Load) and n.id not in local:
            out.add(n.id)
        return
    if isinstance(n, _DEFS):
        for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
            _reads(d, local, out)
        for d in getattr(n, "decorator_list", ()):
            _reads(d, local, out)
        inner = local | _params(n)
        body = n.body if isinstance(n.body, list) else [n.body]
        for s in body:
            inner |= names_bound(s)
        for s in body:
            _reads(s, inner, out)
        return
    if isinstance(n, _COMPREHENSIONS):
        inner = set(local)
        for i, g in enumerate(n.generators):
            _reads(g.iter, local if i == 0 else inner, out)
            inner |= {t.id for t in ast.walk(g.target) if isinstance(t, ast.Name)}
            for c in g.ifs:
                _reads(c, inner, out)
        for part in ("elt", "key", "value"):
            if hasattr(n, part):
                _reads(getattr(n, part), inner, out)
        return
    for c in ast.iter_child_nodes(n):
        _reads(c, local, out)


def names_bound(stmt):
    """The names `stmt` binds in its own scope (not inside a nested def,
    lambda or comprehension; a def binds its name)."""
    out = set()
    _binds(stmt, out)
    return out


def _binds(n, out):
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(n.name)
        return
    if isinstance(n, (ast.Lambda,) + _COMPREHENSIONS):
        return
    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
        out.add(n.id)
    for c in ast.iter_child_nodes(n):
        _binds(c, out)


class Resolver:
    """What a call's function is, from the body's globals and closure, and
    what the operation scope binds a name to (a DFB, a PipeNet)."""

    def __init__(self, fn):
        self.values = dict(fn.__globals__)
        for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                self.values[n] = c.cell_contents
            except ValueError:
                pass
        self.builtins = vars(builtins)
        self.params = set()
        self.scope_kinds = {}  # a name the operation scope binds -> "dfb" / "pipenet" / "python"

    def value(self, e):
        if isinstance(e, ast.Name):
            return self.values.get(e.id, self.builtins.get(e.id))
        if isinstance(e, ast.Attribute):
            base = self.value(e.value)
            return getattr(base, e.attr, None) if base is not None else None
        return None

    def kind(self, call):
        """'copy', 'node', 'group', 'signpost', 'element', 'math' (a block
        function), 'dfb', 'pipenet' (making one) or None."""
        v = self.value(call.func)
        if v is None:
            return None
        for kind, values in (("copy", (copy,)), ("node", (node,)), ("group", (GroupTransfer,)),
                             ("signpost", (signpost,)), ("element", _ELEMENT),
                             ("dfb", (make_dataflow_buffer_like, make_dfb)), ("pipenet", (PipeNet,))):
            if any(v is x for x in values):
                return kind
        try:
            if math_ns.kind_of(v) or block_ns.kind_of(v):
                return "math"
        except TypeError:
            return None
        return None

    def note_scope(self, stmt):
        """Record what a statement of the operation scope binds: DFBs,
        PipeNets, or plain Python values (made by no call the body's globals
        do not name)."""
        if isinstance(stmt, ast.Assign):
            calls = [c for c in ast.walk(stmt.value) if isinstance(c, ast.Call)]
            made = {self.kind(c) for c in calls} & {"dfb", "pipenet"}
            kind = ("dfb" if "dfb" in made else "pipenet") if made else None
            if kind is None and all(self.value(c.func) is not None for c in calls):
                kind = "python"
            for t in stmt.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        if kind:
                            self.scope_kinds[n.id] = kind
                        else:
                            self.scope_kinds.pop(n.id, None)
        else:
            for name in names_bound(stmt):
                self.scope_kinds.pop(name, None)

    def object_kind(self, e):
        """'dfb', 'pipenet' or 'python' for an expression whose root the
        operation scope binds to one (or to a collection of them), or that
        is a parameter or a global value; else None (not known)."""
        root = e
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if not isinstance(root, ast.Name):
            return None
        if root.id in self.scope_kinds:
            return self.scope_kinds[root.id]
        if root.id in self.params:
            return "python"
        v = self.values.get(root.id)
        if isinstance(v, DataflowBuffer) and root is e:
            return "dfb"
        if isinstance(v, PipeNet) and root is e:
            return "pipenet"
        return "python" if v is not None else None

    def kernel_decorator(self, fn):
        """Whether the def `fn` is a kernel function (@ttl.compute() / @ttl.datamovement())."""
        from .dsl import compute, datamovement

        for d in fn.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            v = self.value(target)
            if v is compute or v is datamovement or (v is None and isinstance(target, (ast.Name, ast.Attribute)) and (
                    target.id if isinstance(target, ast.Name) else target.attr) in KERNEL_DECORATORS):
                return True
        return False


def acquires(e):
    """Whether `e` is `<dfb>.reserve()` / `<dfb>.wait()`."""
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("reserve", "wait") \
        and not e.args and not e.keywords


def is_kernel_call(n, resolve, kernel_names):
    """Whether `n` is a call only a kernel makes: a DSL kernel function, or a
    kernel method on a DFB, block, copy handle, group or PipeNet. A method
    call's receiver decides: what the operation scope binds it to, or a name
    a kernel statement binds (`kernel_names`)."""
    if not isinstance(n, ast.Call):
        return False
    if isinstance(n.func, ast.Attribute):
        attr, receiver = n.func.attr, n.func.value
        if attr in PIPE_METHODS:
            return resolve.object_kind(receiver) == "pipenet"
        if attr in KERNEL_METHODS:
            return kernel_receiver(receiver, resolve, kernel_names, attr)
    return resolve.kind(n) not in (None, "signpost", "dfb", "pipenet")


def kernel_receiver(e, resolve, kernel_names, method="wait"):
    """Whether the receiver `e` of a kernel method is (or may be) a DFB,
    block, copy handle or group: a kernel call's result, a name a kernel
    statement binds, a DFB of the operation scope; for the methods plain
    Python values have too (pop, add) only those; for the others, also
    any receiver not known to be a Python value."""
    if isinstance(e, ast.Call):
        return is_kernel_call(e, resolve, kernel_names)
    root = e
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if isinstance(root, ast.Name) and root.id in kernel_names:
        return True
    kind = resolve.object_kind(e)
    if kind == "dfb":
        return True
    return method not in ("pop", "add") and kind is None
