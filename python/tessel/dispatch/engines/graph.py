"""Graph: command and cpu nodes with dependencies, run by the card's
dispatcher round after round while its `again` register is set
(tessel/engine_abi.h has the encoding, docs/engines.md the rules).

    graph = Graph(deadline_microseconds=200_000, max_runs=50, req=6, keep=True)
    state, iteration, limit = graph.bindings("state", "iteration", "limit")
    error = graph.register()
    step = graph.command(step_handler, group=(0, 60), args=[state, iteration])
    norm = graph.command(norm_handler, group=(0, 60), args=[state, 60], after=[step], result=error)
    cpu = graph.cpu(after=[norm])
    cpu.addi(iteration, iteration, 1)
    cpu.lt(graph.again, error, limit)      # go round again while error < limit

A round runs every node once, each when the nodes it comes after have
finished: a command node sends its command (its args are the values'
words, integers become constants), a cpu node runs its operations in
order. When every node has finished, the round ends: with `again` set the
graph posts a `round` event and runs another (at most max_runs rounds: one
more is the error `runs`), else it ends. Values live in 16 registers:
those a node writes first (bindings, then registers), then the other
bindings, then the constants, so the end event's registers 0 and 1 are the
graph's first two results.
"""

from collections.abc import Mapping

from ... import _check
from .ops import OPS, K

__all__ = ["Graph", "Value", "Node", "CpuNode"]


class Value:
    """A word of a graph: a binding (given at start), a register (computed),
    a constant, or `again`."""

    __slots__ = ("graph", "id", "kind", "name")

    def __init__(self, graph, id, kind, name=None):
        self.graph, self.id, self.kind, self.name = graph, id, kind, name

    def __repr__(self):
        return f"Value({self.kind}{' ' + repr(self.name) if self.name else ''})"


class Node:
    """A node of a graph (for after=)."""

    __slots__ = ("graph", "index")

    def __init__(self, graph, index):
        self.graph, self.index = graph, index

    def __repr__(self):
        return f"{type(self).__name__}({self.index})"


def _cpu_op(name, code):
    def register_form(self, rd, rs, rt):
        g = self.graph
        rd, rs = g._value(rd, f"cpu.{name}", write=True), g._value(rs, f"cpu.{name}")
        if isinstance(rt, Value):
            g._native.op(self.index, code, rd, rs, g._value(rt, f"cpu.{name}"))
        else:
            g._native.op_imm(self.index, code, rd, rs, _check.word(rt, f"Graph cpu.{name}: its value"))
        return self

    def immediate_form(self, rd, rs, imm):
        g = self.graph
        g._native.op_imm(self.index, code, g._value(rd, f"cpu.{name}i", write=True), g._value(rs, f"cpu.{name}i"),
                         _check.word(imm, f"Graph cpu.{name}i: its value"))
        return self

    register_form.__name__, immediate_form.__name__ = name, name + "i"
    register_form.__doc__ = f"rd = rs {name} rt (rt a value or an integer)"
    immediate_form.__doc__ = f"rd = rs {name} imm"
    return register_form, immediate_form


class CpuNode(Node):
    """A cpu node: its operations run in order when it is ready. Each ALU
    operation is a method (add, sub, mul, and_, or_, xor, shl, shr, min,
    max, lt, le, gt, ge, eq, ne; `addi` and the like with an integer), plus
    mov(rd, rs) and li(rd, value)."""

    __slots__ = ()

    def mov(self, rd, rs):
        g = self.graph
        g._native.op(self.index, OPS["mov"], g._value(rd, "cpu.mov", write=True), g._value(rs, "cpu.mov"),
                     g._value(rs, "cpu.mov"))
        return self

    def li(self, rd, value):
        g = self.graph
        rd = g._value(rd, "cpu.li", write=True)
        g._native.op_imm(self.index, OPS["mov"], rd, rd, _check.word(value, "Graph cpu.li: value"))
        return self


for _name, _code in OPS.items():
    if _name != "mov":
        _r, _i = _cpu_op(_name, _code)
        setattr(CpuNode, _name + ("_" if _name in ("and", "or") else ""), _r)
        setattr(CpuNode, _name + "i", _i)
del _name, _code, _r, _i


class Graph:
    """Graph(deadline_microseconds, max_runs, req, keep=False): req 1..255
    names its events; deadline_microseconds (0: none) bounds its start to
    its end; max_runs (0: no limit) the rounds; keep leaves it loaded after
    its end, for restart."""

    kind = "graph"

    def __init__(self, deadline_microseconds, max_runs, req, keep=False):
        from ... import _tessel

        self.deadline_microseconds = _check.integer(deadline_microseconds, "Graph: deadline_microseconds", 0,
                                                    0xFFFFFFFF)
        self.max_runs = _check.integer(max_runs, "Graph: max_runs", 0, 0xFFFFFFFF)
        self.req = _check.integer(req, "Graph: req", 1, K["KM_ENGINE_REQ_MAX"])
        self.keep = _check.flag(keep, "Graph: keep")
        self._native = _tessel.EngineGraph(self.deadline_microseconds, self.max_runs, self.req, self.keep)
        self.again = Value(self, self._native.again(), "again")
        self._nodes = 0

    def _value(self, v, what, write=False):
        if isinstance(v, Value):
            if v.graph is not self:
                raise ValueError(f"Graph.{what}: a value of another graph")
            if write and v.kind == "constant":
                raise ValueError(f"Graph.{what}: an operation cannot write a constant")
            return v.id
        if write:
            raise TypeError(f"Graph.{what}: the destination must be a binding, a register or graph.again, got "
                            f"{_check.describe(v)}")
        return self._native.constant(_check.word(v, f"Graph.{what}: a constant"))

    def _after(self, after, what):
        if isinstance(after, Node):
            after = [after]
        out = []
        for n in after:
            if not isinstance(n, Node) or n.graph is not self:
                raise TypeError(f"Graph.{what}: after= takes nodes of this graph, got {_check.describe(n)}")
            out.append(n.index)
        return out

    def bindings(self, *names):
        """Values given at start, by name: one Value, or a tuple for several names."""
        values = tuple(Value(self, self._native.binding(_check.text(n, "Graph.bindings: a name")), "binding", n)
                       for n in names)
        return values[0] if len(values) == 1 else values

    def register(self):
        """A value the graph computes (a command's result, a cpu operation's destination); 0 at start."""
        return Value(self, self._native.add_register(), "register")

    def command(self, handler, group, args=(), after=(), result=None, exclusive=False):
        """A command node: handler (a number: program.handler(name)), group
        (first, count), args (values and integers, at most ten), after
        (nodes), result (a register or binding for the leader's result word)."""
        handler = _check.integer(handler, "Graph.command: handler", 0, 239)
        if not isinstance(group, (tuple, list)) or len(group) != 2:
            raise TypeError(f"Graph.command: group must be (first, count), got {_check.describe(group)}")
        first = _check.integer(group[0], "Graph.command: group's first core", 0, 0xFFFF)
        count = _check.integer(group[1], "Graph.command: group's count", 1, 0xFFFF)
        if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
            raise TypeError("Graph.command: args must be a sequence of values and integers")
        ids = [self._value(a, "command") for a in args]
        rid = None if result is None else self._value(result, "command", write=True)
        flags = K["KM_FLAG_EXCLUSIVE"] if _check.flag(exclusive, "Graph.command: exclusive") else 0
        index = self._native.command(handler, first, count, ids, self._after(after, "command"), rid, flags)
        return Node(self, index)

    def cpu(self, after=()):
        """A cpu node: add its operations with its methods (cpu.addi(...), cpu.lt(...))."""
        return CpuNode(self, self._native.cpu(self._after(after, "cpu")))

    def register_of(self, value):
        """The register a value lives in (0..15; `again` is 16)."""
        return self._native.register_of(self._value(value, "register_of"))

    @property
    def binding_names(self):
        return list(self._native.binding_names())

    def binding_values(self, values):
        """The start's binding words from {name: value}, constants included."""
        if not isinstance(values, Mapping):
            raise TypeError(f"Graph.binding_values: expected {{name: value}}, got {_check.describe(values)}")
        words = {_check.text(k, "Graph.binding_values: a name"): _check.word(v, f"Graph.binding_values[{k!r}]")
                 for k, v in values.items()}
        return list(self._native.binding_values(words))

    def encode(self):
        """The upload's bytes (whole 64-byte lines)."""
        return self._native.encode()

    def __repr__(self):
        return f"Graph(req={self.req}, keep={self.keep}, bindings={self.binding_names})"
