"""The DSL calls of the TT-Lang compiler (compiler.py): ttl.copy,
ttl.node, ttl.grid_size, GroupTransfer, print(), ttl.math and ttl.block
functions, the methods of dataflow buffers, blocks and copy handles, and
the builtins a kernel may call on device numbers.
"""

import ast

from .compiler_values import Block, DeviceSlice, Group, Scalar, Signpost, Transfer, _const, _describe, _escape, _is_const
from .dsl import (DataflowBuffer, GroupTransfer, copy, grid_size, node, raw_element_read, raw_element_write, read_index,
                  shape_dims, signpost)
from .pipes import PipeNet, expand
from .semaphores import RemoteSemaphore, Semaphore

_NONE = object()


class CallStatements:
    def scalar_builtin(self, fn, args, e):
        vals = [self.scalar(a, e) for a in args]
        if fn in (min, max):
            if len(vals) < 2:
                raise self.error(f"{fn.__name__}() of device values takes two or more numbers", e)
            t = "float" if any(v.type == "float" for v in vals) else "int"
            code = vals[0].code
            for v in vals[1:]:
                cmp = "<" if fn is min else ">"
                code = f"(({code}) {cmp} ({v.code}) ? ({code}) : ({v.code}))"
            return Scalar(code, t)
        (v,) = vals
        if fn is abs:
            return Scalar(f"(({v.code}) < 0 ? -({v.code}) : ({v.code}))", v.type)
        ctype = {int: ("int32_t", "int"), float: ("float", "float"), bool: ("bool", "bool")}[fn]
        return Scalar(f"{ctype[0]}({v.code})", ctype[1])

    def special(self, fn, e):
        """DSL calls: ttl.copy, ttl.node, ttl.grid_size, ttl.GroupTransfer, print, ttl.math, ttl.block."""
        from . import block as block_ns
        from . import math as math_ns
        if fn is copy:
            return self.copy(e)
        if fn in (raw_element_read, raw_element_write, read_index):
            return self.raw_element(fn.__name__, e)
        if fn is node:
            dims = self.kwarg_const(e, "dims", 0, 2)
            return self.node_coords(dims, e)
        if fn is grid_size:
            dims = self.kwarg_const(e, "dims", 0, 2)
            return ("const", shape_dims(self.ctx.grid, dims, "ttl.grid_size"))
        if fn is GroupTransfer:
            return Group()
        if fn is signpost:
            name = self.kwarg_const(e, "name", 0, None)
            if not isinstance(name, str) or not name:
                raise self.error("ttl.signpost takes a name, a non-empty constant str", e)
            return Signpost(name)
        if fn is print:
            self.print(e)
            return ("const", None)
        if fn is slice:
            args = self.call_args(e)
            if e.keywords or not 1 <= len(args) <= 3:
                raise self.error("slice() takes 1 to 3 arguments", e)
            if all(_is_const(a) for a in args):
                return ("const", slice(*[_const(a) for a in args]))
            bounds = ([("const", None)] + args) if len(args) == 1 else args  # slice(stop)
            bounds = [b if _is_const(b) else self.now(b, e) for b in bounds]  # the values they have now
            return DeviceSlice(*(bounds + [("const", None)] * 3)[:3])
        op = math_ns.kind_of(fn) or block_ns.kind_of(fn)
        if op is not None:
            return self.block_call(op, e)
        return _NONE

    def kwarg_const(self, e, name, position, default):
        value = None
        if len(e.args) > position:
            value = self.expr(e.args[position])
        for k in e.keywords:
            if k.arg == name:
                value = self.expr(k.value)
        if value is None:
            return default
        if not _is_const(value):
            raise self.error(f"{name} must be a constant", e)
        return _const(value)

    def node_coords(self, dims, e):
        grid = tuple(self.ctx.grid)
        x, y = Scalar("int32_t(get_absolute_logical_x())", "int"), Scalar("int32_t(get_absolute_logical_y())", "int")
        coords = [x, y][:len(grid)]
        if dims < len(coords):
            # Flatten the first dimensions: x * grid_y + y (TT-Lang's linear node order).
            code = coords[0].code
            for i in range(1, len(coords) - dims + 1):
                code = f"({code} * {grid[i]} + {coords[i].code})"
            coords = [Scalar(code, "int")] + coords[len(coords) - dims + 1:]
        while len(coords) < dims:
            coords.append(("const", 0))
        return coords[0] if dims == 1 else tuple(coords)

    def method(self, base, attr, e):
        if isinstance(base, PipeNet):
            return self.pipe_method(base, attr, e)
        if isinstance(base, (Semaphore, RemoteSemaphore)):
            return self.semaphore_method(base, attr, e)
        if isinstance(base, DataflowBuffer) or (_is_const(base) and isinstance(_const(base), DataflowBuffer)):
            dfb = _const(base) if _is_const(base) else base
            if attr in ("reserve", "wait"):
                if e.args or e.keywords:
                    raise self.error(f"{attr}() takes no arguments", e)
                blk = self.acquire(dfb, attr == "reserve", e)
                if self.acquired:
                    self.acquired[-1].append(blk)  # the statement list releases it after its last use
                return blk
            raise self.error(f"a dataflow buffer has no method '{attr}' in a kernel (reserve, wait)", e)
        if isinstance(base, Block):
            if attr in ("push", "pop"):
                if attr == "push" and not base.reserved or attr == "pop" and base.reserved:
                    raise self.error(f"{attr}() of a block from {'reserve' if base.reserved else 'wait'}(); "
                                     f"use {'push' if base.reserved else 'pop'}()", e)
                self.release(base, e, explicit=True)
                return ("const", None)
            if attr == "store":
                return self.store(base, e)
            raise self.error(f"a block has no method '{attr}' in a kernel (store, push, pop)", e)
        if isinstance(base, Transfer):
            if attr == "wait":
                self.wait_transfer(base, e)
                return ("const", None)
            raise self.error(f"a copy handle has no method '{attr}' (wait)", e)
        if isinstance(base, Group):
            if attr == "add":
                (tx,) = [self.expr(a) for a in e.args]
                if not isinstance(tx, Transfer):
                    raise self.error("GroupTransfer.add takes a copy's handle", e)
                base.transfers.append(tx)
                return ("const", None)
            if attr == "wait_all":
                for tx in base.transfers:
                    self.wait_transfer(tx, e)
                base.transfers = []
                return ("const", None)
        raise self.error(f"{_describe(base)} has no method '{attr}' in a kernel", e)

    def semaphore_method(self, sem, attr, e):
        """wait_eq / wait_ge / set (/ inc) of a Semaphore, set / inc of a remote one."""
        remote = isinstance(sem, RemoteSemaphore)
        what = f"{'RemoteSemaphore' if remote else 'Semaphore'}.{attr}"
        if self.compute:
            raise self.error(f"{what} runs in a data-movement kernel; a compute kernel has no semaphores", e)
        if len(e.args) > 1 or e.keywords or (not e.args and attr != "inc"):
            raise self.error(f"{what} takes one value", e)
        value = self.int_code(self.expr(e.args[0]), e) if e.args else "1"
        own = sem.semaphore if remote else sem
        sid = self.ctx.semaphore_id(own, self, e)
        local = f"reinterpret_cast<volatile uint32_t*>(get_semaphore({sid}))"
        if not remote:
            calls = {"wait_eq": f"noc_semaphore_wait({local}, uint32_t({value}));",
                     "wait_ge": f"noc_semaphore_wait_min({local}, uint32_t({value}));",
                     "set": f"noc_semaphore_set({local}, uint32_t({value}));",
                     "inc": f"noc_semaphore_inc(get_noc_addr(get_semaphore({sid})), uint32_t({value}));"}
            if attr not in calls:
                raise self.error(f"a Semaphore has no method '{attr}' (wait_eq, wait_ge, set, inc)", e)
            self.emit(calls[attr])
            return ("const", None)
        if attr == "inc" and sem.multicast:
            raise self.error("a multicast semaphore handle sets; it does not increment (get_remote(node).inc)", e)
        if attr not in ("set", "inc"):
            raise self.error(f"a remote semaphore handle has no method '{attr}' (set, inc)", e)
        nodes = [sem.nodes] if not sem.multicast else expand(sem.nodes, self.ctx.grid_dims(len(sem.nodes)))
        targets = [self.ctx.noc_xy(n) for n in nodes]
        if attr == "inc":
            for x, y in targets:
                self.emit(f"noc_semaphore_inc(get_noc_addr({x}, {y}, get_semaphore({sid})), uint32_t({value}));")
            return ("const", None)
        # A remote set writes the value from a word of this node's own (this kernel's source word).
        src = self.ctx.source_semaphore_id(self.kfn.name)
        self.emit(f"noc_semaphore_set(reinterpret_cast<volatile uint32_t*>(get_semaphore({src})), "
                  f"uint32_t({value}));")
        for x, y in targets:
            self.emit(f"noc_semaphore_set_remote(get_semaphore({src}), get_noc_addr({x}, {y}, get_semaphore({sid})));")
        self.emit("noc_async_write_barrier();")
        return ("const", None)


    # ---- print ----

    def print(self, e):
        parts = []
        for i, a in enumerate(e.args):
            if i:
                parts.append('" "')
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                parts.append(f'"{_escape(a.value)}"')
                continue
            if isinstance(a, ast.JoinedStr):
                for p in a.values:
                    if isinstance(p, ast.Constant):
                        parts.append(f'"{_escape(p.value)}"')
                    else:
                        parts.append(self.print_value(self.expr(p.value), e))
                continue
            parts.append(self.print_value(self.expr(a), e))
        # tessel prefixes each DPRINT line with the core (the node) and the RISC; a compute
        # kernel prints from its math thread only (once, not once per TRISC).
        text = "DPRINT << " + " << ".join(parts or ['""']) + " << ENDL()"
        self.emit(f"DPRINT_MATH({text});" if self.compute else text + ";")

    def print_value(self, v, e):
        if _is_const(v):
            return f'"{_escape(str(_const(v)))}"'
        if isinstance(v, Scalar):
            return v.code
        raise self.error(f"print() of {_describe(v)} in a kernel is not supported (numbers and strings)", e)

