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
from ...errors import ValidationError
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
        g, what = self.graph, f"cpu.{name}"
        g._check(rd, what, write=True), g._check(rs, what)  # before any constant is made
        if isinstance(rt, Value):
            g._check(rt, what)
            g._native.op(self.index, code, g._id(rd), g._id(rs), g._id(rt))
        else:
            rt = _check.word(rt, f"Graph.{what}: its value")
            g._native.op_imm(self.index, code, g._id(rd), g._id(rs), rt)
        return self

    def immediate_form(self, rd, rs, imm):
        g, what = self.graph, f"cpu.{name}i"
        g._check(rd, what, write=True), g._check(rs, what)
        imm = _check.word(imm, f"Graph.{what}: its value")
        g._native.op_imm(self.index, code, g._id(rd), g._id(rs), imm)
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
        g._check(rd, "cpu.mov", write=True), g._check(rs, "cpu.mov")
        g._native.op(self.index, OPS["mov"], g._id(rd), g._id(rs), g._id(rs))
        return self

    def li(self, rd, value):
        g = self.graph
        g._check(rd, "cpu.li", write=True)
        value = _check.word(value, "Graph.cpu.li: value")
        g._native.op_imm(self.index, OPS["mov"], g._id(rd), g._id(rd), value)
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
        self._constants = {}  # value -> id

    def _check(self, v, what, write=False):
        """Checks a value or an integer operand (nothing is added to the graph)."""
        if isinstance(v, Value):
            if v.graph is not self:
                raise ValueError(f"Graph.{what}: a value of another graph")
            if write and v.kind == "constant":
                raise ValueError(f"Graph.{what}: an operation cannot write a constant")
            return
        if write:
            raise TypeError(f"Graph.{what}: the destination must be a binding, a register or graph.again, got "
                            f"{_check.describe(v)}")
        _check.word(v, f"Graph.{what}: a constant")

    def _id(self, v):
        """A checked operand's value id: an integer becomes a constant."""
        if isinstance(v, Value):
            return v.id
        if v not in self._constants:
            self._constants[v] = self._native.constant(v)
        return self._constants[v]

    def _after(self, after, what):
        if isinstance(after, Node):
            after = [after]
        if not isinstance(after, (list, tuple)):
            raise TypeError(f"Graph.{what}: after= takes a node or a list of nodes of this graph, got "
                            f"{_check.describe(after)}")
        out = []
        for n in after:
            if not isinstance(n, Node) or n.graph is not self:
                raise TypeError(f"Graph.{what}: after= takes nodes of this graph, got {_check.describe(n)}")
            out.append(n.index)
        if len(out) > K["KM_GRAPH_DEPS_MAX"]:
            raise ValidationError(f"Graph: a node comes after {len(out)} nodes: at most {K['KM_GRAPH_DEPS_MAX']}")
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
        args = list(args)
        if len(args) > K["KM_ARGS_MAX"]:
            raise ValidationError(f"Graph.command: {len(args)} args: a command carries at most {K['KM_ARGS_MAX']}")
        for a in args:
            self._check(a, "command")
        if result is not None:
            self._check(result, "command", write=True)
            if result is self.again:
                raise ValidationError("Graph.command: result= must be a register or a binding of this graph")
        flags = K["KM_FLAG_EXCLUSIVE"] if _check.flag(exclusive, "Graph.command: exclusive") else 0
        deps = self._after(after, "command")
        self._room("command")
        ids = [self._id(a) for a in args]  # constants only once everything is checked
        index = self._native.command(handler, first, count, ids, deps, None if result is None else result.id, flags)
        self._nodes += 1
        return Node(self, index)

    def _room(self, what):
        if self._nodes >= K["KM_GRAPH_NODES_MAX"]:
            raise ValidationError(f"Graph: more than {K['KM_GRAPH_NODES_MAX']} nodes")

    def cpu(self, after=()):
        """A cpu node: add its operations with its methods (cpu.addi(...), cpu.lt(...))."""
        deps = self._after(after, "cpu")
        self._room("cpu")
        node = CpuNode(self, self._native.cpu(deps))
        self._nodes += 1
        return node

    def register_of(self, value):
        """The register a value (or a constant already used) lives in (0..15; `again` is 16)."""
        self._check(value, "register_of")
        if not isinstance(value, Value):
            if value not in self._constants:
                raise ValueError(f"Graph.register_of: {value} is not a constant of the graph")
            return self._native.register_of(self._constants[value])
        return self._native.register_of(value.id)

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
