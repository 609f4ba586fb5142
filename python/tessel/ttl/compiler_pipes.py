"""Pipes in the TT-Lang compiler (compiler.py): if_src / if_dst callbacks
inlined once per pipe under a test of the node's coordinates, and
ttl.copy to and from a pipe.

The protocol of pipe k, between its source and each destination node:
  - every destination has a landing slot for pipe k (in the operation's
    pipe CB, at the same address on every core) and a `valid` semaphore;
    the source has a `ready` semaphore, which counts the destinations whose
    landing slot is free and starts at their number (every slot is free);
  - a send (ttl.copy(blk, pipe)) does its work in wait(): it waits for ready
    to count every destination, clears it, writes the block into each
    destination's landing slot and raises each destination's valid;
  - a receive (ttl.copy(pipe, blk)) does its work in wait(): it waits for
    valid, clears it, copies the landing slot into the block and tells the
    source the slot is free again (ready += 1 on the source).
The first send on a pipe never waits, so pipes in a ring (each node sending
to the next before receiving from the previous) make progress, as they do
on silicon and in TT-Lang's simulator. Semaphore ids: ready base + 2k, valid
base + 2k + 1 (operation-owned; base is after the DSL's ttl.Semaphores).
"""

import ast

from .compiler_values import Block, Transfer, _const, _describe, _is_const
from .pipes import DstPipeIdentity, Pipe, SrcPipeIdentity


class LocalFunction:
    """A function defined in a kernel function (a callback for if_src / if_dst)."""

    def __init__(self, node, name):
        self.node = node
        self.name = name


class PipeStatements:
    def stmt_FunctionDef(self, s):
        self.site(s)
        if s.decorator_list:
            raise self.error("a function defined in a kernel function takes no decorators", s)
        self.env[s.name] = LocalFunction(s, s.name)

    def expr_Lambda(self, e):
        return LocalFunction(e, "<lambda>")

    def pipe_method(self, net, attr, e):
        if attr in ("is_src", "is_dst", "is_active"):
            if e.args or e.keywords:
                raise self.error(f"PipeNet.{attr}() takes no arguments", e)
            src = [self.node_is(p._src, p) for p in net.pipes]
            dst = [self.node_in(p) for p in net.pipes]
            terms = src if attr == "is_src" else dst if attr == "is_dst" else src + dst
            return self.bool_any(terms)
        if attr not in ("if_src", "if_dst"):
            raise self.error(f"a PipeNet has no method '{attr}' in a kernel (if_src, if_dst, is_src, is_dst, "
                             "is_active)", e)
        if self.compute:
            raise self.error(f"PipeNet.{attr} runs in a data-movement kernel", e)
        if len(e.args) != 1 or e.keywords:
            raise self.error(f"PipeNet.{attr} takes one function (called once per pipe)", e)
        fn = self.expr(e.args[0])
        for p in net.pipes:
            if attr == "if_src":
                cond, identity = self.node_is(p._src, p), SrcPipeIdentity(p)
            else:
                cond, identity = self.node_in(p), DstPipeIdentity(p)
            self.emit(f"if ({cond}) {{")
            self.indent += 1
            self.call_back(fn, identity, e)
            self.indent -= 1
            self.emit("}")
        return ("const", None)

    def bool_any(self, terms):
        from .compiler_values import Scalar
        return Scalar("(" + " || ".join(terms) + ")" if terms else "false", "bool")

    def node_is(self, coords, pipe):
        here = self.node_coords(len(coords), None)
        here = here if isinstance(here, tuple) else (here,)
        return "(" + " && ".join(f"({self.scalar(h, None).code} == {c})" for h, c in zip(here, coords)) + ")"

    def node_in(self, pipe):
        here = self.node_coords(len(pipe._dst), None)
        here = here if isinstance(here, tuple) else (here,)
        terms = []
        for h, item in zip(here, pipe._dst):
            code = self.scalar(h, None).code
            if isinstance(item, slice):
                start, step = item.start or 0, item.step or 1
                terms.append(f"({code} >= {start})")
                if item.stop is not None:
                    terms.append(f"({code} < {item.stop})")
                if step != 1:
                    terms.append(f"(({code} - {start}) % {step} == 0)")
            else:
                terms.append(f"({code} == {item})")
        return "(" + " && ".join(terms or ["true"]) + ")"

    def call_back(self, fn, identity, e):
        """Compile `fn(identity)` inline, its locals its own."""
        if isinstance(fn, LocalFunction):
            node = fn.node
            params = node.args.args
            if len(params) != 1 or node.args.vararg or node.args.kwonlyargs:
                raise self.error(f"the callback '{fn.name}' must take one parameter (the pipe)", node)
            saved_env, saved_scope = dict(self.env), self.scope
            self.scope = self.fresh("f")
            self.env[params[0].arg] = ("const", identity)
            self.callback_depth += 1
            try:
                if isinstance(node, ast.Lambda):
                    self.stmt_Expr(ast.Expr(value=node.body, lineno=node.lineno, col_offset=0))
                else:
                    self.statements(node.body)
            finally:
                self.callback_depth -= 1
                self.env, self.scope = saved_env, saved_scope
            return
        raise self.error(f"if_src / if_dst take a function defined in the kernel function, got {_describe(fn)}", e)

    # ---- copies ----

    def copy_pipe(self, src, dst, call):
        """ttl.copy(blk, pipe) (a send) or ttl.copy(pipe, blk) (a receive)."""
        sending = isinstance(src, Block)
        blk, end = (src, dst) if sending else (dst, src)
        pipe = end.pipe if isinstance(end, (SrcPipeIdentity, DstPipeIdentity)) else end
        if not isinstance(blk, Block):
            raise self.error(f"ttl.copy with a pipe copies a block, got {_describe(blk)}", call)
        if sending and isinstance(end, DstPipeIdentity) or not sending and isinstance(end, SrcPipeIdentity):
            raise self.error(f"ttl.copy {'to' if sending else 'from'} a pipe passed to "
                             f"{'if_dst' if sending else 'if_src'}: a node sends on the pipes if_src gives it and "
                             "receives on those if_dst gives it", call)
        k = self.ctx.pipe_index(pipe, blk.dfb.block_bytes, self, call)
        if sending:
            self.emit(f"ttl_dsl::copy_reads(s{blk.var}, __builtin_FILE(), __builtin_LINE());")
        else:
            self.emit(f"ttl_dsl::copy_writes(s{blk.var}, __builtin_FILE(), __builtin_LINE());")
        return Transfer(blk, not sending, pipe=(pipe, k))

    def wait_pipe(self, tx):
        pipe, k = tx.pipe
        blk = tx.block
        base = self.ctx.pipe_semaphore_base
        bytes_ = blk.dfb.block_bytes
        landing = f"(get_write_ptr({self.ctx.pipe_cb}) + {k * self.ctx.pipe_slot}u)"
        if tx.wrote:  # a receive
            valid = f"reinterpret_cast<volatile uint32_t*>(get_semaphore({base + 2 * k + 1}))"
            self.emit(f"noc_semaphore_wait({valid}, 1);")
            self.emit(f"noc_semaphore_set({valid}, 0);")
            self.emit(f"noc_async_read(get_noc_addr({landing}), a{blk.var}, {bytes_}u);")
            self.emit("noc_async_read_barrier();")
            sx, sy = self.ctx.noc_xy(pipe._src)
            self.emit(f"noc_semaphore_inc(get_noc_addr({sx}, {sy}, get_semaphore({base + 2 * k})), 1);")
        else:
            dests = [self.ctx.noc_xy(d) for d in pipe.destinations(self.ctx.grid_dims(pipe.rank))]
            ready = f"reinterpret_cast<volatile uint32_t*>(get_semaphore({base + 2 * k}))"
            self.emit(f"noc_semaphore_wait({ready}, {len(dests)});")
            self.emit(f"noc_semaphore_set({ready}, 0);")
            for x, y in dests:
                self.emit(f"noc_async_write(a{blk.var}, get_noc_addr({x}, {y}, {landing}), {bytes_}u);")
            self.emit("noc_async_write_barrier();")
            for x, y in dests:
                self.emit(f"noc_semaphore_inc(get_noc_addr({x}, {y}, get_semaphore({base + 2 * k + 1})), 1);")
        self.emit(f"ttl_dsl::copy_done(s{blk.var}, {'true' if tx.wrote else 'false'});")


def is_pipe_end(v):
    if _is_const(v):
        v = _const(v)
    return isinstance(v, (Pipe, SrcPipeIdentity, DstPipeIdentity))


def pipe_end(v):
    return _const(v) if _is_const(v) else v

