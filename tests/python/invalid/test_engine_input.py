"""Bad input to the engines (tessel.dispatch.engines: Stream, Graph and its
cpu nodes; Run.upload, release, start, restart, cancel, wait_engine and
run_hostfed): each case raises TypeError or ValueError with its exact
message, naming the call, the argument and what was expected. A refused Run
call changes nothing: the region's uploads and their states are as before,
and no command reaches the kernel (the run's result counts no rejection)."""

import pathlib
import re

import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch.engines import Graph, Stream

ROOT = pathlib.Path(__file__).resolve().parents[3]
BASIC = ROOT / "tests" / "dispatch" / "kernels" / "basic"
BASIC_HEADER = ROOT / "tests" / "dispatch" / "kernels" / "basic.hpp"
GRID = (4, 2)  # 8 cores
RESULT = 3     # basic.hpp's result handler
WORD = "an integer word (0..4294967295)"
STREAM_REG = "expected a register of this stream (Stream.register())"
STREAM_LABEL = "expected a label of this stream (Stream.label())"
VALUE_DEST = "the destination must be a binding, a register or graph.again"
LABEL_REPR = r"<tessel\.dispatch\.engines\.stream\.Label object at 0x[0-9a-f.]+ \(Label\)"


def basic_program():
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER))


def counting_graph(req, keep=False):
    g = Graph(0, 100, req, keep)
    counter, limit = g.bindings("counter", "limit")
    doubled = g.register()
    cmd = g.command(RESULT, group=(1, 2), args=[counter], result=doubled)
    cpu = g.cpu(after=[cmd])
    cpu.addi(counter, counter, 1)
    cpu.lt(g.again, counter, limit)
    return g


def counting_stream(req):
    s = Stream(req)
    i, out, more, n = (s.register() for _ in range(4))
    top = s.here()
    s.submit(RESULT, group=(2, 3), args=[i], result=out).event(out).addi(i, i, 1).lt(more, i, n).bnz(more, top)
    s.halt(i)
    return s


class Ctx:
    """What the Run cases use: a stream upload (its engine ended: handle), a graph
    upload from a Graph (graph), one from its raw bytes (raw), a kept graph
    (req 7) and a released upload."""


@pytest.fixture(scope="module")
def ctx():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        run = s.load(basic_program())
        c = Ctx()
        c.run = run
        c.stream = run.upload(counting_stream(3))
        c.handle = run.start(c.stream, [0, 0, 0, 1])
        run.wait_engine(c.handle, 10.0)
        c.g = counting_graph(6)
        c.graph = run.upload(c.g)
        c.raw = run.upload(c.g.encode(), kind="graph")
        c.kept = run.upload(counting_graph(7, keep=True))
        run.wait_engine(run.start(c.kept, {"counter": 0, "limit": 1}), 10.0)
        c.released = run.upload(Stream(9))
        run.release(c.released)
        yield c
        result = run.stop()
        assert result.rejected == 0  # nothing refused ever reached the kernel
        s.close()


def matches(e, text):
    message = str(e.value)
    if isinstance(text, re.Pattern):
        assert text.fullmatch(message), message
    else:
        assert message == text


def raises(exc, call, text):
    with pytest.raises(exc) as e:
        call()
    assert isinstance(e.value, (TypeError, ValueError))
    matches(e, text)


# ---------------------------------------------------------------------------
# Stream


def S():
    return Stream(1)


def SR(index=0):
    s = Stream(1)
    return s, s.register(index)


def other_reg():
    return Stream(2).register()


def with_reg(f):
    """f(stream, register) on a new stream."""
    return lambda: f(*SR())


STREAM = [
    ("req-str", TypeError, lambda: Stream("1"), "Stream: req must be an integer (1..255), got '1' (str)"),
    ("req-0", ValueError, lambda: Stream(0), "Stream: req must be an integer (1..255), got 0"),
    ("req-256", ValueError, lambda: Stream(256), "Stream: req must be an integer (1..255), got 256"),
    ("req-bool", TypeError, lambda: Stream(True), "Stream: req must be an integer (1..255), got True (bool)"),
    ("deadline-negative", ValueError, lambda: Stream(1, -1),
     "Stream: deadline_microseconds must be an integer (0..4294967295), got -1"),
    ("deadline-33-bits", ValueError, lambda: Stream(1, 1 << 32),
     "Stream: deadline_microseconds must be an integer (0..4294967295), got 4294967296"),
    ("max-steps-float", TypeError, lambda: Stream(1, 0, 1.5),
     "Stream: max_steps must be an integer (0..4294967295), got 1.5 (float)"),
    ("max-steps-negative", ValueError, lambda: Stream(1, max_steps=-1),
     "Stream: max_steps must be an integer (0..4294967295), got -1"),
    # registers
    ("register-16", ValueError, lambda: S().register(16), "Stream.register: index must be an integer (0..15), got 16"),
    ("register-negative", ValueError, lambda: S().register(-1),
     "Stream.register: index must be an integer (0..15), got -1"),
    ("register-str", TypeError, lambda: S().register("a"),
     "Stream.register: index must be an integer (0..15), got 'a' (str)"),
    ("register-17th", ValueError, lambda: [s.register() for s in [S()] for _ in range(17)],
     "Stream.register: all 16 registers are handed out"),
    ("li-int-register", TypeError, lambda: S().li(0, 1), f"Stream.li: {STREAM_REG}, got 0 (int)"),
    ("li-other-stream", TypeError, lambda: S().li(other_reg(), 1), f"Stream.li: {STREAM_REG}, got r0 (Reg)"),
    ("li-negative", ValueError, with_reg(lambda s, r: s.li(r, -1)), f"Stream.li: value must be {WORD}, got -1"),
    ("li-33-bits", ValueError, with_reg(lambda s, r: s.li(r, 1 << 32)),
     f"Stream.li: value must be {WORD}, got 4294967296"),
    ("li-float", TypeError, with_reg(lambda s, r: s.li(r, 1.0)), f"Stream.li: value must be {WORD}, got 1.0 (float)"),
    ("mov-int", TypeError, with_reg(lambda s, r: s.mov(r, 3)), f"Stream.mov: {STREAM_REG}, got 3 (int)"),
    ("mov-other-stream", TypeError, with_reg(lambda s, r: s.mov(other_reg(), r)),
     f"Stream.mov: {STREAM_REG}, got r0 (Reg)"),
    # ALU
    ("add-str", TypeError, with_reg(lambda s, r: s.add(r, r, "x")),
     f"Stream.add: its value must be {WORD}, got 'x' (str)"),
    ("add-negative", ValueError, with_reg(lambda s, r: s.add(r, r, -1)),
     f"Stream.add: its value must be {WORD}, got -1"),
    ("sub-int-destination", TypeError, with_reg(lambda s, r: s.sub(1, r, r)), f"Stream.sub: {STREAM_REG}, got 1 (int)"),
    ("lt-other-stream", TypeError, with_reg(lambda s, r: s.lt(r, other_reg(), r)),
     f"Stream.lt: {STREAM_REG}, got r0 (Reg)"),
    ("ne-other-stream-rt", TypeError, with_reg(lambda s, r: s.ne(r, r, other_reg())),
     f"Stream.ne: {STREAM_REG}, got r0 (Reg)"),
    ("addi-register", TypeError, with_reg(lambda s, r: s.addi(r, r, r)),
     f"Stream.addi: its value must be {WORD}, got r0 (Reg)"),
    ("shli-33-bits", ValueError, with_reg(lambda s, r: s.shli(r, r, 1 << 32)),
     f"Stream.shli: its value must be {WORD}, got 4294967296"),
    ("and-int-destination", TypeError, with_reg(lambda s, r: s.and_(1, r, r)),
     f"Stream.and: {STREAM_REG}, got 1 (int)"),
    ("ori-none", TypeError, with_reg(lambda s, r: s.ori(r, r, None)),
     f"Stream.ori: its value must be {WORD}, got None (NoneType)"),
    # branches and labels
    ("jmp-int", TypeError, lambda: S().jmp(5), f"Stream.jmp: {STREAM_LABEL}, got 5 (int)"),
    ("jmp-other-stream", TypeError, lambda: S().jmp(Stream(2).label()),
     re.compile(re.escape(f"Stream.jmp: {STREAM_LABEL}, got ") + LABEL_REPR)),
    ("bz-int-register", TypeError, lambda: (lambda s: s.bz(0, s.label()))(S()),
     f"Stream.bz: {STREAM_REG}, got 0 (int)"),
    ("bz-register-of-another-stream", TypeError, lambda: (lambda s: s.bz(other_reg(), s.label()))(S()),
     f"Stream.bz: {STREAM_REG}, got r0 (Reg)"),
    ("bnz-none-label", TypeError, with_reg(lambda s, r: s.bnz(r, None)),
     f"Stream.bnz: {STREAM_LABEL}, got None (NoneType)"),
    ("place-str", TypeError, lambda: S().place("x"), f"Stream.place: {STREAM_LABEL}, got 'x' (str)"),
    ("place-other-stream", TypeError, lambda: S().place(Stream(2).label()),
     re.compile(re.escape(f"Stream.place: {STREAM_LABEL}, got ") + LABEL_REPR)),
    ("place-twice", tessel.ValidationError, lambda: (lambda s: s.place(s.here()))(S()),
     "Stream.place: the label is placed already"),
    ("label-never-placed", tessel.ValidationError, lambda: (lambda s: s.nop().jmp(s.label()).encode())(S()),
     "Stream.encode: a branch at pc 1 goes to a label that was never placed"),
    ("label-never-placed-bz", tessel.ValidationError,
     lambda: (lambda s, r: s.li(r, 0).bz(r, s.here()).bnz(r, s.label()).encode())(*SR()),
     "Stream.encode: a branch at pc 4 goes to a label that was never placed"),
    # SUBMIT and ENQUEUE
    ("submit-handler-240", ValueError, lambda: S().submit(240, (0, 1)),
     "Stream.submit: handler must be an integer (0..239), got 240"),
    ("submit-handler-negative", ValueError, lambda: S().submit(-1, (0, 1)),
     "Stream.submit: handler must be an integer (0..239), got -1"),
    ("submit-handler-name", TypeError, lambda: S().submit("result", (0, 1)),
     "Stream.submit: handler must be an integer (0..239), got 'result' (str)"),
    ("submit-group-int", TypeError, lambda: S().submit(RESULT, 5),
     "Stream.submit: group must be (first, count), of values or of registers, got 5 (int)"),
    ("submit-group-one", TypeError, lambda: S().submit(RESULT, (0,)),
     "Stream.submit: group must be (first, count), of values or of registers, got (0,) (tuple)"),
    ("submit-group-none", TypeError, lambda: S().submit(RESULT, None),
     "Stream.submit: group must be (first, count), of values or of registers, got None (NoneType)"),
    ("submit-group-count-0", ValueError, lambda: S().submit(RESULT, (0, 0)),
     "Stream.submit: group's count must be an integer (1..65535), got 0"),
    ("submit-group-first-17-bits", ValueError, lambda: S().submit(RESULT, (70000, 1)),
     "Stream.submit: group's first core must be an integer (0..65535), got 70000"),
    ("submit-group-register-and-int", TypeError, with_reg(lambda s, r: s.submit(RESULT, (r, 1))),
     f"Stream.submit: {STREAM_REG}, got 1 (int)"),
    ("submit-group-register-of-another-stream", TypeError, with_reg(lambda s, r: s.submit(RESULT, (r, other_reg()))),
     f"Stream.submit: {STREAM_REG}, got r0 (Reg)"),
    ("submit-queued-pair", TypeError, lambda: S().submit(RESULT, (0, 1), queued=True),
     "Stream.submit: a queued command's group is a core count or a register"),
    ("submit-queued-0", ValueError, lambda: S().submit(RESULT, 0, queued=True),
     "Stream.submit: group's count must be an integer (1..65535), got 0"),
    ("submit-args-int", TypeError, lambda: S().submit(RESULT, (0, 1), 5),
     "Stream.submit: args must be a sequence of registers and values"),
    ("submit-args-str", TypeError, lambda: S().submit(RESULT, (0, 1), "ab"),
     "Stream.submit: args must be a sequence of registers and values"),
    ("submit-args-negative", ValueError, lambda: S().submit(RESULT, (0, 1), [-1]),
     f"Stream.submit: arg must be {WORD}, got -1"),
    ("submit-args-float", TypeError, lambda: S().submit(RESULT, (0, 1), [1.0]),
     f"Stream.submit: arg must be {WORD}, got 1.0 (float)"),
    ("submit-args-eleven", tessel.ValidationError, lambda: S().submit(RESULT, (0, 1), list(range(11))),
     "Stream.submit: 11 args: a command carries at most 10"),
    ("submit-args-register-of-another-stream", TypeError, lambda: S().submit(RESULT, (0, 1), [other_reg()]),
     f"Stream.submit: {STREAM_REG}, got r0 (Reg)"),
    ("submit-result-int", TypeError, lambda: S().submit(RESULT, (0, 1), result=1),
     f"Stream.submit: {STREAM_REG}, got 1 (int)"),
    ("submit-result-of-another-stream", TypeError, lambda: S().submit(RESULT, (0, 1), result=other_reg()),
     f"Stream.submit: {STREAM_REG}, got r0 (Reg)"),
    ("submit-exclusive-int", TypeError, lambda: S().submit(RESULT, (0, 1), exclusive=1),
     "Stream.submit: exclusive must be True or False, got 1 (int)"),
    ("submit-queued-str", TypeError, lambda: S().submit(RESULT, 1, queued="yes"),
     "Stream.submit: queued must be True or False, got 'yes' (str)"),
    ("submit-queued-exclusive", tessel.ValidationError, lambda: S().submit(RESULT, 1, queued=True, exclusive=True),
     "Stream.submit: a queued command cannot be exclusive"),
    ("enqueue-handler-240", ValueError, lambda: S().enqueue(240, (0, 1)),
     "Stream.enqueue: handler must be an integer (0..239), got 240"),
    ("enqueue-group-count-0", ValueError, lambda: S().enqueue(RESULT, (0, 0)),
     "Stream.enqueue: group's count must be an integer (1..65535), got 0"),
    ("enqueue-args-eleven", tessel.ValidationError, lambda: S().enqueue(RESULT, (0, 1), [0] * 11),
     "Stream.enqueue: 11 args: a command carries at most 10"),
    ("enqueue-queued-exclusive", tessel.ValidationError, lambda: S().enqueue(RESULT, 1, queued=True, exclusive=True),
     "Stream.enqueue: a queued command cannot be exclusive"),
    ("enqueue-result-int", TypeError, lambda: S().enqueue(RESULT, (0, 1), result=3),
     f"Stream.enqueue: {STREAM_REG}, got 3 (int)"),
    # EVENT, HALT, TICKS
    ("event-int", TypeError, lambda: S().event(3), f"Stream.event: {STREAM_REG}, got 3 (int)"),
    ("event-other-stream", TypeError, lambda: S().event(other_reg()), f"Stream.event: {STREAM_REG}, got r0 (Reg)"),
    ("halt-none", TypeError, lambda: S().halt(None), f"Stream.halt: {STREAM_REG}, got None (NoneType)"),
    ("ticks-str", TypeError, lambda: S().ticks("r"), f"Stream.ticks: {STREAM_REG}, got 'r' (str)"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in STREAM], ids=[c[0] for c in STREAM])
def test_stream(exc, call, text):
    raises(exc, call, text)


def test_a_refused_instruction_adds_nothing():
    s = Stream(1)
    r = s.register()
    s.li(r, 5)
    before = s.encode()
    for bad in (lambda: s.li(r, -1), lambda: s.submit(RESULT, (0, 1), list(range(11))),
                lambda: s.submit(RESULT, 1, queued=True, exclusive=True), lambda: s.addi(r, r, "x"),
                lambda: s.submit(240, (0, 1)), lambda: s.event(other_reg())):
        with pytest.raises((TypeError, ValueError)):
            bad()
    assert s.encode() == before and s.pc == 2


# ---------------------------------------------------------------------------
# Graph


def G():
    return Graph(0, 0, 1)


def GV():
    """A graph with a binding a and a register r."""
    g = G()
    return g, g.bindings("a"), g.register()


def with_gv(f):
    return lambda: f(*GV())


def other_value():
    return Graph(0, 0, 2).bindings("b")


def other_register():
    return Graph(0, 0, 2).register()


def other_node():
    return Graph(0, 0, 2).cpu()


def graph_of(values=0, nodes=0, ops=0, after=0):
    g = G()
    for _ in range(values):
        g.register()
    for _ in range(nodes):
        g.cpu()
    if ops:
        r = g.register()
        cpu = g.cpu()
        for _ in range(ops):
            cpu.addi(r, r, 1)
    if after:
        g.command(RESULT, (0, 1), after=[g.cpu() for _ in range(after)])
    return g


GRAPH = [
    ("req-0", ValueError, lambda: Graph(0, 0, 0), "Graph: req must be an integer (1..255), got 0"),
    ("req-256", ValueError, lambda: Graph(0, 0, 256), "Graph: req must be an integer (1..255), got 256"),
    ("req-str", TypeError, lambda: Graph(0, 0, "1"), "Graph: req must be an integer (1..255), got '1' (str)"),
    ("deadline-negative", ValueError, lambda: Graph(-1, 0, 1),
     "Graph: deadline_microseconds must be an integer (0..4294967295), got -1"),
    ("deadline-float", TypeError, lambda: Graph(1.5, 0, 1),
     "Graph: deadline_microseconds must be an integer (0..4294967295), got 1.5 (float)"),
    ("max-runs-negative", ValueError, lambda: Graph(0, -1, 1),
     "Graph: max_runs must be an integer (0..4294967295), got -1"),
    ("max-runs-33-bits", ValueError, lambda: Graph(0, 1 << 32, 1),
     "Graph: max_runs must be an integer (0..4294967295), got 4294967296"),
    ("keep-int", TypeError, lambda: Graph(0, 0, 1, keep=1), "Graph: keep must be True or False, got 1 (int)"),
    ("keep-none", TypeError, lambda: Graph(0, 0, 1, None), "Graph: keep must be True or False, got None (NoneType)"),
    # bindings
    ("bindings-int", TypeError, lambda: G().bindings(5), "Graph.bindings: a name must be a str, got 5 (int)"),
    ("bindings-empty-name", tessel.ValidationError, lambda: G().bindings(""), "Graph.bindings: a binding needs a name"),
    ("bindings-twice", tessel.ValidationError, lambda: G().bindings("a", "a"),
     "Graph.bindings: binding 'a' is named twice"),
    ("bindings-twice-apart", tessel.ValidationError, lambda: (lambda g: (g.bindings("a"), g.bindings("a")))(G()),
     "Graph.bindings: binding 'a' is named twice"),
    # command
    ("command-handler-240", ValueError, lambda: G().command(240, (0, 1)),
     "Graph.command: handler must be an integer (0..239), got 240"),
    ("command-handler-name", TypeError, lambda: G().command("result", (0, 1)),
     "Graph.command: handler must be an integer (0..239), got 'result' (str)"),
    ("command-group-int", TypeError, lambda: G().command(RESULT, 5),
     "Graph.command: group must be (first, count), got 5 (int)"),
    ("command-group-three", TypeError, lambda: G().command(RESULT, (0, 1, 2)),
     "Graph.command: group must be (first, count), got (0, 1, 2) (tuple)"),
    ("command-group-count-0", ValueError, lambda: G().command(RESULT, (0, 0)),
     "Graph.command: group's count must be an integer (1..65535), got 0"),
    ("command-group-first-negative", ValueError, lambda: G().command(RESULT, (-1, 1)),
     "Graph.command: group's first core must be an integer (0..65535), got -1"),
    ("command-group-first-str", TypeError, lambda: G().command(RESULT, ("0", 1)),
     "Graph.command: group's first core must be an integer (0..65535), got '0' (str)"),
    ("command-args-int", TypeError, lambda: G().command(RESULT, (0, 1), 5),
     "Graph.command: args must be a sequence of values and integers"),
    ("command-args-str", TypeError, lambda: G().command(RESULT, (0, 1), "ab"),
     "Graph.command: args must be a sequence of values and integers"),
    ("command-args-negative", ValueError, lambda: G().command(RESULT, (0, 1), [-1]),
     f"Graph.command: a constant must be {WORD}, got -1"),
    ("command-args-float", TypeError, lambda: G().command(RESULT, (0, 1), [1.5]),
     f"Graph.command: a constant must be {WORD}, got 1.5 (float)"),
    ("command-args-eleven", tessel.ValidationError, lambda: G().command(RESULT, (0, 1), list(range(11))),
     "Graph.command: 11 args: a command carries at most 10"),
    ("command-args-value-of-another-graph", ValueError, lambda: G().command(RESULT, (0, 1), [other_value()]),
     "Graph.command: a value of another graph"),
    ("command-after-int-in-list", TypeError, lambda: G().command(RESULT, (0, 1), after=[0]),
     "Graph.command: after= takes nodes of this graph, got 0 (int)"),
    ("command-after-node-of-another-graph", TypeError, lambda: G().command(RESULT, (0, 1), after=[other_node()]),
     "Graph.command: after= takes nodes of this graph, got CpuNode(0) (CpuNode)"),
    ("command-after-nine", tessel.ValidationError, lambda: graph_of(after=9),
     "Graph: a node comes after 9 nodes: at most 8"),
    ("command-result-int", TypeError, lambda: G().command(RESULT, (0, 1), result=1),
     f"Graph.command: {VALUE_DEST}, got 1 (int)"),
    ("command-result-again", tessel.ValidationError, lambda: (lambda g: g.command(RESULT, (0, 1), result=g.again))(G()),
     "Graph.command: result= must be a register or a binding of this graph"),
    ("command-result-of-another-graph", ValueError, lambda: G().command(RESULT, (0, 1), result=other_register()),
     "Graph.command: a value of another graph"),
    ("command-exclusive-int", TypeError, lambda: G().command(RESULT, (0, 1), exclusive=1),
     "Graph.command: exclusive must be True or False, got 1 (int)"),
    # cpu nodes
    ("cpu-after-str", TypeError, lambda: G().cpu(after="ab"),
     "Graph.cpu: after= takes a node or a list of nodes of this graph, got 'ab' (str)"),
    ("cpu-after-node-of-another-graph", TypeError, lambda: G().cpu(after=[other_node()]),
     "Graph.cpu: after= takes nodes of this graph, got CpuNode(0) (CpuNode)"),
    ("op-int-destination", TypeError, with_gv(lambda g, a, r: g.cpu().add(1, a, r)),
     f"Graph.cpu.add: {VALUE_DEST}, got 1 (int)"),
    ("op-str-source", TypeError, with_gv(lambda g, a, r: g.cpu().add(r, "x", r)),
     f"Graph.cpu.add: a constant must be {WORD}, got 'x' (str)"),
    ("op-str-operand", TypeError, with_gv(lambda g, a, r: g.cpu().add(r, a, "x")),
     f"Graph.cpu.add: its value must be {WORD}, got 'x' (str)"),
    ("op-negative-operand", ValueError, with_gv(lambda g, a, r: g.cpu().mul(r, a, -1)),
     f"Graph.cpu.mul: its value must be {WORD}, got -1"),
    ("opi-negative", ValueError, with_gv(lambda g, a, r: g.cpu().addi(r, a, -1)),
     f"Graph.cpu.addi: its value must be {WORD}, got -1"),
    ("opi-value", TypeError, with_gv(lambda g, a, r: g.cpu().addi(r, a, r)),
     f"Graph.cpu.addi: its value must be {WORD}, got Value(register) (Value)"),
    ("op-destination-of-another-graph", ValueError, with_gv(lambda g, a, r: g.cpu().add(other_register(), a, r)),
     "Graph.cpu.add: a value of another graph"),
    ("op-source-of-another-graph", ValueError, with_gv(lambda g, a, r: g.cpu().sub(r, other_value(), r)),
     "Graph.cpu.sub: a value of another graph"),
    ("op-operand-of-another-graph", ValueError, with_gv(lambda g, a, r: g.cpu().and_(r, a, other_register())),
     "Graph.cpu.and: a value of another graph"),
    ("op-again-of-another-graph", ValueError, with_gv(lambda g, a, r: g.cpu().lt(Graph(0, 0, 2).again, a, r)),
     "Graph.cpu.lt: a value of another graph"),
    ("li-33-bits", ValueError, with_gv(lambda g, a, r: g.cpu().li(r, 1 << 32)),
     f"Graph.cpu.li: value must be {WORD}, got 4294967296"),
    ("li-int-destination", TypeError, with_gv(lambda g, a, r: g.cpu().li(3, 1)),
     f"Graph.cpu.li: {VALUE_DEST}, got 3 (int)"),
    ("mov-value-of-another-graph", ValueError, with_gv(lambda g, a, r: g.cpu().mov(r, other_value())),
     "Graph.cpu.mov: a value of another graph"),
    # register_of, binding_values
    ("register_of-value-of-another-graph", ValueError, lambda: G().register_of(other_value()),
     "Graph.register_of: a value of another graph"),
    ("register_of-str", TypeError, lambda: G().register_of("x"),
     f"Graph.register_of: a constant must be {WORD}, got 'x' (str)"),
    ("binding_values-list", TypeError, lambda: GV()[0].binding_values([1]),
     "Graph.binding_values: expected {name: value}, got [1] (list)"),
    ("binding_values-unknown-name", tessel.ValidationError, lambda: GV()[0].binding_values({"a": 1, "nope": 2}),
     "Graph.binding_values: 'nope' is not a binding of the graph (it has: a)"),
    ("binding_values-unknown-name-no-bindings", tessel.ValidationError, lambda: G().binding_values({"x": 2}),
     "Graph.binding_values: 'x' is not a binding of the graph (it has: none)"),
    ("binding_values-missing-name", tessel.ValidationError, lambda: GV()[0].binding_values({}),
     "Graph.binding_values: binding 'a' has no value"),
    ("binding_values-negative", ValueError, lambda: GV()[0].binding_values({"a": -1}),
     f"Graph.binding_values['a'] must be {WORD}, got -1"),
    ("binding_values-float", TypeError, lambda: GV()[0].binding_values({"a": 1.5}),
     f"Graph.binding_values['a'] must be {WORD}, got 1.5 (float)"),
    ("binding_values-int-name", TypeError, lambda: GV()[0].binding_values({1: 2}),
     "Graph.binding_values: a name must be a str, got 1 (int)"),
    # sizes
    ("values-17-encode", tessel.ValidationError, lambda: graph_of(values=17).encode(),
     "Graph: it uses 17 values (bindings, registers and constants): a graph has 16 registers"),
    ("values-17-binding_values", tessel.ValidationError, lambda: graph_of(values=17).binding_values({}),
     "Graph: it uses 17 values (bindings, registers and constants): a graph has 16 registers"),
    ("values-17-register_of", tessel.ValidationError,
     lambda: (lambda g: g.register_of([g.register() for _ in range(17)][0]))(G()),
     "Graph: it uses 17 values (bindings, registers and constants): a graph has 16 registers"),
    ("values-20-with-constants", tessel.ValidationError,
     lambda: (lambda g: [g.command(RESULT, (0, 1), list(range(10 * k, 10 * k + 10))) for k in range(2)] and g.encode())(
         G()), "Graph: it uses 20 values (bindings, registers and constants): a graph has 16 registers"),
    ("values-bindings-17", tessel.ValidationError,
     lambda: (lambda g: g.bindings(*[f"b{i}" for i in range(17)]) and g.encode())(G()),
     "Graph: it uses 17 values (bindings, registers and constants): a graph has 16 registers"),
    ("nodes-65", tessel.ValidationError, lambda: graph_of(nodes=65), "Graph: more than 64 nodes"),
    ("nodes-65-command", tessel.ValidationError,
     lambda: (lambda g: g.command(RESULT, (0, 1)))(graph_of(nodes=64)), "Graph: more than 64 nodes"),
    ("operations-257", tessel.ValidationError, lambda: graph_of(ops=257).encode(),
     "Graph: 257 cpu operations: at most 256"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in GRAPH], ids=[c[0] for c in GRAPH])
def test_graph(exc, call, text):
    raises(exc, call, text)


def test_graph_limits_that_hold():
    """The largest graphs the limits allow encode: 16 values, 64 nodes, 8 after=, 256 operations."""
    assert len(graph_of(values=16).encode()) == 64
    assert len(graph_of(nodes=64).encode()) == 64 + 64 * 64
    assert len(graph_of(ops=256).encode()) % 64 == 0
    graph_of(after=8).encode()
    g = G()
    g.bindings(*[f"b{i}" for i in range(16)])
    assert len(g.binding_values({f"b{i}": i for i in range(16)})) == 16


@pytest.mark.parametrize("call,what", [
    (lambda: G().command(RESULT, (0, 1), after=5), "Graph.command"),
    (lambda: G().command(RESULT, (0, 1), after=None), "Graph.command"),
    (lambda: G().cpu(after=3), "Graph.cpu"),
], ids=["command-after-int", "command-after-none", "cpu-after-int"])
def test_graph_after_not_a_sequence_names_the_call(call, what):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).startswith(what + ": after=")


def test_a_refused_graph_call_adds_nothing():
    g = G()
    r = g.register()
    g.command(RESULT, (0, 1), args=[r])
    before = (g.encode(), g.binding_values({}))
    for bad in (lambda: g.command(RESULT, (0, 1), args=[77], result=g.again),
                lambda: g.command(RESULT, (0, 1), args=[78], after=[other_node()]),
                lambda: g.command(RESULT, (0, 1), args=[79], exclusive=1),
                lambda: g.cpu().add(r, 80, "x")):
        with pytest.raises((TypeError, ValueError)):
            bad()
    assert g.binding_values({}) == before[1] == []  # a register only: no binding words


def test_a_refused_graph_node_is_not_added():
    g = G()
    r = g.register()
    g.command(RESULT, (0, 1), args=[r])
    with pytest.raises(ValueError):
        g.command(RESULT, (0, 1), after=[g.cpu() for _ in range(9)])  # nine new cpu nodes, then refused
    w = g.encode()
    assert int.from_bytes(w[32:36], "little") == 10  # KM_ENGINE_H_COUNT: the first command and the nine cpu nodes


# ---------------------------------------------------------------------------
# Run's engine calls


def uploads_of(run):
    return [(u.offset, u.bytes, u.kind, u.req, u.keep, u.state) for u in run.uploads()]


RUN = [
    # upload
    ("upload-int", TypeError, lambda c: c.run.upload(5),
     "Run.upload: expected a Stream, a Graph or encoded bytes, got 5 (int)"),
    ("upload-str", TypeError, lambda c: c.run.upload("abc"),
     "Run.upload: expected a Stream, a Graph or encoded bytes, got 'abc' (str)"),
    ("upload-list", TypeError, lambda c: c.run.upload([1, 2]),
     "Run.upload: expected a Stream, a Graph or encoded bytes, got [1, 2] (list)"),
    ("upload-bytes-without-kind", ValueError, lambda c: c.run.upload(bytes(64)),
     "Run.upload: encoded bytes need kind='stream' or kind='graph', got None"),
    ("upload-bytes-other-kind", ValueError, lambda c: c.run.upload(bytes(64), kind="program"),
     "Run.upload: encoded bytes need kind='stream' or kind='graph', got 'program'"),
    ("upload-bytes-kind-int", ValueError, lambda c: c.run.upload(bytearray(64), kind=1),
     "Run.upload: encoded bytes need kind='stream' or kind='graph', got 1"),
    ("upload-stream-as-graph", ValueError, lambda c: c.run.upload(Stream(2), kind="graph"),
     "Run.upload: kind 'graph' given for a stream"),
    ("upload-graph-as-stream", ValueError, lambda c: c.run.upload(Graph(0, 0, 2), kind="stream"),
     "Run.upload: kind 'stream' given for a graph"),
    ("upload-no-bytes", tessel.ValidationError, lambda c: c.run.upload(b"", kind="stream"),
     "Run.upload: no bytes to upload"),
    ("upload-label-never-placed", tessel.ValidationError, lambda c: c.run.upload((lambda s: s.jmp(s.label()))(S())),
     "Stream.encode: a branch at pc 0 goes to a label that was never placed"),
    ("upload-graph-of-17-values", tessel.ValidationError, lambda c: c.run.upload(graph_of(values=17)),
     "Graph: it uses 17 values (bindings, registers and constants): a graph has 16 registers"),
    ("upload-too-big", tessel.ValidationError, lambda c: c.run.upload(bytes(c.run.upload_region), kind="stream"),
     re.compile(r"Run\.upload: 707840 bytes do not fit the upload region \(707840 bytes, \d+ used by 4 uploads, "
                r"0 binding lines\): nothing was written")),
    # release
    ("release-int", TypeError, lambda c: c.run.release(5), "Run.release: expected an Upload (Run.upload), got 5 (int)"),
    ("release-none", TypeError, lambda c: c.run.release(None),
     "Run.release: expected an Upload (Run.upload), got None (NoneType)"),
    ("release-timeout-negative", ValueError, lambda c: c.run.release(c.stream, timeout=-1),
     "Run.release: timeout must be non-negative seconds, got -1 (int)"),
    ("release-timeout-str", ValueError, lambda c: c.run.release(c.kept, timeout="1"),
     "Run.release: timeout must be non-negative seconds, got '1' (str)"),
    ("release-released", tessel.ValidationError, lambda c: c.run.release(c.released),
     "Run.release: the upload is not in this run's region (released already?)"),
    # start
    ("start-int", TypeError, lambda c: c.run.start(5), "Run.start: expected an Upload (Run.upload), got 5 (int)"),
    ("start-handle", TypeError, lambda c: c.run.start(c.handle),
     "Run.start: expected an Upload (Run.upload), got EngineHandle(kind='stream', req=3, end, events=2) "
     "(EngineHandle)"),
    ("start-bindings-int", TypeError, lambda c: c.run.start(c.graph, 5),
     "Run.start: bindings must be a dict by name or a list of words, got 5 (int)"),
    ("start-bindings-str", TypeError, lambda c: c.run.start(c.graph, "ab"),
     "Run.start: bindings must be a dict by name or a list of words, got 'ab' (str)"),
    ("start-bindings-negative", ValueError, lambda c: c.run.start(c.graph, [0, -1]),
     f"Run.start: bindings[1] must be {WORD}, got -1"),
    ("start-bindings-float", TypeError, lambda c: c.run.start(c.graph, [1.0]),
     f"Run.start: bindings[0] must be {WORD}, got 1.0 (float)"),
    ("start-bindings-seventeen", ValueError, lambda c: c.run.start(c.graph, [0] * 17),
     "Run.start: 17 binding words: at most 16 (one line)"),
    ("start-kept-int", TypeError, lambda c: c.run.start(c.graph, {"counter": 0, "limit": 1}, kept=1),
     "Run.start: kept must be True or False, got 1 (int)"),
    ("start-kept-for-a-stream", tessel.ValidationError, lambda c: c.run.start(c.stream, kept=True),
     "Run.start: kept= applies to graphs only"),
    ("start-kept-false-for-a-stream", tessel.ValidationError, lambda c: c.run.start(c.stream, kept=False),
     "Run.start: kept= applies to graphs only"),
    ("start-timeout-negative", ValueError, lambda c: c.run.start(c.stream, timeout=-1),
     "Run.start: timeout must be non-negative seconds, got -1 (int)"),
    ("start-timeout-none", ValueError, lambda c: c.run.start(c.stream, timeout=None),
     "Run.start: timeout must be non-negative seconds, got None (NoneType)"),
    ("start-timeout-nan", ValueError, lambda c: c.run.start(c.stream, timeout=float("nan")),
     "Run.start: timeout must be non-negative seconds, got nan (float)"),
    ("start-released", tessel.ValidationError, lambda c: c.run.start(c.released),
     "Run.start: the upload is not in this run's region (released already?)"),
    ("start-kept-req", tessel.ValidationError, lambda c: c.run.start(c.kept),
     "Run.start: an engine with req 7 is kept (restart it with restart(req), or release it)"),
    ("start-dict-for-raw-bytes", ValueError, lambda c: c.run.start(c.raw, {"counter": 0, "limit": 1}),
     "Run.start: bindings by name need an upload of a Graph; give a list of up to 16 words"),
    ("start-dict-for-a-stream", ValueError, lambda c: c.run.start(c.stream, {"a": 1}),
     "Run.start: bindings by name need an upload of a Graph; give a list of up to 16 words"),
    ("start-dict-unknown-name", tessel.ValidationError,
     lambda c: c.run.start(c.graph, {"counter": 0, "limit": 1, "x": 2}),
     "Graph.binding_values: 'x' is not a binding of the graph (it has: counter, limit)"),
    ("start-dict-missing-name", tessel.ValidationError, lambda c: c.run.start(c.graph, {"counter": 0}),
     "Graph.binding_values: binding 'limit' has no value"),
    ("start-dict-negative", ValueError, lambda c: c.run.start(c.graph, {"counter": -1, "limit": 1}),
     f"Graph.binding_values['counter'] must be {WORD}, got -1"),
    ("start-dict-int-name", TypeError, lambda c: c.run.start(c.graph, {1: 1}),
     "Graph.binding_values: a name must be a str, got 1 (int)"),
    # restart
    ("restart-str", TypeError, lambda c: c.run.restart("7"),
     "Run.restart: req must be an integer (1..255), got '7' (str)"),
    ("restart-0", ValueError, lambda c: c.run.restart(0), "Run.restart: req must be an integer (1..255), got 0"),
    ("restart-256", ValueError, lambda c: c.run.restart(256), "Run.restart: req must be an integer (1..255), got 256"),
    ("restart-bool", TypeError, lambda c: c.run.restart(True),
     "Run.restart: req must be an integer (1..255), got True (bool)"),
    ("restart-not-kept", tessel.ValidationError, lambda c: c.run.restart(8),
     "Run.restart: no kept graph has req 8 (a graph is kept after its end when it was uploaded or started with keep)"),
    ("restart-loaded-graph", tessel.ValidationError, lambda c: c.run.restart(6, [0, 0, 1]),
     "Run.restart: no kept graph has req 6 (a graph is kept after its end when it was uploaded or started with keep)"),
    ("restart-dict-unknown-name", tessel.ValidationError, lambda c: c.run.restart(7, {"nope": 1}),
     "Graph.binding_values: 'nope' is not a binding of the graph (it has: counter, limit)"),
    ("restart-dict-missing-name", tessel.ValidationError, lambda c: c.run.restart(7, {"limit": 1}),
     "Graph.binding_values: binding 'counter' has no value"),
    ("restart-bindings-seventeen", ValueError, lambda c: c.run.restart(7, [0] * 17),
     "Run.restart: 17 binding words: at most 16 (one line)"),
    ("restart-bindings-int", TypeError, lambda c: c.run.restart(7, 3),
     "Run.restart: bindings must be a dict by name or a list of words, got 3 (int)"),
    ("restart-timeout-negative", ValueError, lambda c: c.run.restart(7, timeout=-1),
     "Run.restart: timeout must be non-negative seconds, got -1 (int)"),
    # cancel, wait_engine
    ("cancel-int", TypeError, lambda c: c.run.cancel(5),
     "Run.cancel: expected an EngineHandle (Run.start), got 5 (int)"),
    ("cancel-upload", TypeError, lambda c: c.run.cancel(c.stream),
     re.compile(r"Run\.cancel: expected an EngineHandle \(Run\.start\), got Upload\(offset=0, .*\(Upload\)")),
    ("cancel-timeout-negative", ValueError, lambda c: c.run.cancel(c.handle, timeout=-1),
     "Run.cancel: timeout must be non-negative seconds, got -1 (int)"),
    ("wait_engine-int", TypeError, lambda c: c.run.wait_engine(5),
     "Run.wait_engine: expected an EngineHandle (Run.start), got 5 (int)"),
    ("wait_engine-none", TypeError, lambda c: c.run.wait_engine(None),
     "Run.wait_engine: expected an EngineHandle (Run.start), got None (NoneType)"),
    ("wait_engine-timeout-str", ValueError, lambda c: c.run.wait_engine(c.handle, timeout="x"),
     "Run.wait_engine: timeout must be non-negative seconds, got 'x' (str)"),
    ("wait_engine-timeout-bool", ValueError, lambda c: c.run.wait_engine(c.handle, timeout=True),
     "Run.wait_engine: timeout must be non-negative seconds, got True (bool)"),
    # run_hostfed
    ("hostfed-int", TypeError, lambda c: c.run.run_hostfed(5),
     "Run.run_hostfed: expected a Stream, a Graph or encoded bytes, got 5 (int)"),
    ("hostfed-upload", TypeError, lambda c: c.run.run_hostfed(c.stream),
     re.compile(r"Run\.run_hostfed: expected a Stream, a Graph or encoded bytes, got Upload\(.*\(Upload\)")),
    ("hostfed-bindings-int", TypeError, lambda c: c.run.run_hostfed(c.g, 5),
     "Run.run_hostfed: bindings must be a dict by name or a list of words, got 5 (int)"),
    ("hostfed-dict-for-a-stream", ValueError, lambda c: c.run.run_hostfed(Stream(3), {"a": 1}),
     "Run.run_hostfed: bindings by name need an upload of a Graph; give a list of up to 16 words"),
    ("hostfed-dict-for-raw-bytes", ValueError, lambda c: c.run.run_hostfed(c.g.encode(), {"counter": 1, "limit": 1}),
     "Run.run_hostfed: bindings by name need an upload of a Graph; give a list of up to 16 words"),
    ("hostfed-dict-unknown-name", tessel.ValidationError, lambda c: c.run.run_hostfed(c.g, {"x": 1}),
     "Graph.binding_values: 'x' is not a binding of the graph (it has: counter, limit)"),
    ("hostfed-bindings-seventeen", ValueError, lambda c: c.run.run_hostfed(c.g, [0] * 17),
     "Run.run_hostfed: 17 binding words: at most 16 (one line)"),
    ("hostfed-bindings-negative", ValueError, lambda c: c.run.run_hostfed(c.g, [-1]),
     f"Run.run_hostfed: bindings[0] must be {WORD}, got -1"),
    ("hostfed-timeout-negative", ValueError, lambda c: c.run.run_hostfed(c.g, timeout=-1),
     "Run.run_hostfed: timeout must be non-negative seconds, got -1 (int)"),
    ("hostfed-label-never-placed", tessel.ValidationError,
     lambda c: c.run.run_hostfed((lambda s: s.jmp(s.label()))(S())),
     "Stream.encode: a branch at pc 0 goes to a label that was never placed"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in RUN], ids=[c[0] for c in RUN])
def test_run(ctx, exc, call, text):
    before = uploads_of(ctx.run)
    events = len(ctx.handle.events)
    raises(exc, lambda: call(ctx), text)
    assert uploads_of(ctx.run) == before  # nothing written, released, started or dropped
    assert len(ctx.handle.events) == events


def test_the_run_still_works_after_the_refusals(ctx):
    """Every refused call left the run as it was: the uploads still run."""
    run = ctx.run
    assert run.wait_engine(run.start(ctx.stream, [0, 0, 0, 2]), 10.0).value == 2
    assert run.wait_engine(run.start(ctx.graph, {"counter": 0, "limit": 3}), 10.0).registers == (3, 4)
    assert run.wait_engine(run.restart(7, {"counter": 1, "limit": 2}), 10.0).registers == (2, 2)


def test_restart_by_name_without_a_kept_graph_names_the_cause(ctx):
    with pytest.raises(ValueError, match=r"Run\.restart: no kept graph has req 8"):
        ctx.run.restart(8, {"counter": 0, "limit": 1})


def test_calls_after_the_stop():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        run = s.load(basic_program())
        up = run.upload(counting_stream(3))
        kept = run.upload(counting_graph(7, keep=True))
        h = run.start(kept, {"counter": 0, "limit": 1})
        run.wait_engine(h, 10.0)
        run.stop()
        for call, text in (
                (lambda: run.upload(Stream(4)), "Run.upload: the run is stopped; load the program again"),
                (lambda: run.start(up), "Run.start: the run is stopped; load the program again"),
                (lambda: run.restart(7, {"counter": 0, "limit": 1}),
                 "Run.restart: the run is stopped; load the program again"),
                (lambda: run.run_hostfed(Stream(5)), "Run.run_hostfed: the run is stopped; load the program again")):
            raises(tessel.ValidationError, call, text)
        run.cancel(h)  # ended, and the run is stopped: nothing to do
        assert run.wait_engine(h, 1.0).kind == "end"
        s.close()
