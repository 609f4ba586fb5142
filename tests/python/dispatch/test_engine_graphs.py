"""tessel.dispatch's graphs (spec: Engines; tessel/engine_abi.h): rounds,
the register layout, cpu operations, max_runs, node errors, and kept graphs
restarted, cancelled and released.
"""

import pytest
import tessel.dispatch as km
from tessel.dispatch.engines import OPS, CpuNode, Graph, Stream

from .engines_common import *  # noqa: F401,F403 - the helpers, constants and fixtures

# ---------------------------------------------------------------------------
# Graphs


def test_graph_rounds_and_end_registers(run):
    g = counting_graph(6)
    assert g.binding_names == ["counter", "limit"]
    h, end = finish(run, g, {"counter": 0, "limit": 4})
    assert (end.kind, end.registers, end.value) == ("end", (4, 6), 6)  # counter; doubled = 2 * 3
    assert values(h.events) == [("round", 1), ("round", 2), ("round", 3), ("end", 6)]
    h, end = finish(run, g, {"counter": 5, "limit": 0})  # one round: again is 0 at once
    assert values(h.events) == [("end", 10)] and end.registers == (6, 10)


def test_graph_layout_rule(run):
    """Registers: values a node writes first (written bindings in order, then
    registers), then the other bindings, then the constants."""
    g = Graph(0, 0, 7)
    a, b, c = g.bindings("a", "b", "c")
    r1, r2 = g.register(), g.register()
    cpu = g.cpu()
    cpu.add(c, c, a)       # c is written
    cpu.add(r1, a, b)
    cpu.addi(r2, a, 100)
    cpu.add(b, b, c)       # b is written, after c: the bindings keep their order
    node = g.command(RESULT, group=(0, 1), args=[a, 9, 7], after=[cpu])
    assert [g.register_of(v) for v in (b, c, r1, r2, a, g.again)] == [0, 1, 2, 3, 4, 16]
    assert (g.register_of(9), g.register_of(7)) == (5, 6)  # the constants, in the order they were first used
    assert isinstance(node, km.engines.Node) and not isinstance(node, CpuNode) and isinstance(cpu, CpuNode)
    a_, b_, c_ = 0x12345678, 0xFF000005, 0x00ABCDEF
    assert g.binding_values({"a": a_, "b": b_, "c": c_}) == [b_, c_, 0, 0, a_, 9, 7]
    h, end = finish(run, g, {"a": a_, "b": b_, "c": c_})
    c_end = (c_ + a_) & M32
    b_end = (b_ + c_end) & M32
    assert end.registers == (b_end & 0xFFFFFF, c_end)
    hf = run.run_hostfed(g, {"a": a_, "b": b_, "c": c_})
    assert hf.registers[:7] == [b_end, c_end, (a_ + b_) & M32, (a_ + 100) & M32, a_, 9, 7]
    assert hf.registers[7:] == [0] * 9
    assert [(c.node, c.args) for c in hf.commands] == [(1, [a_, 9, 7])]


def test_graph_start_with_a_dict_adds_the_constants(run):
    g = Graph(0, 0, 8)
    r = g.register()
    g.command(RESULT, group=(0, 2), args=[21], result=r)
    assert g.binding_values({}) == [0, 21]
    h, end = finish(run, g, {})
    assert end.registers == (42, 21)
    assert run.run_hostfed(g, {}).registers[:2] == [42, 21]


@pytest.mark.parametrize("name", sorted(OPS))
def test_graph_cpu_operations(run, name):
    g = Graph(0, 0, 9)
    x, y = g.bindings("x", "y")
    reg, imm = g.register(), g.register()
    cpu = g.cpu()
    method = name + "_" if name in ("and", "or") else name
    if name == "mov":
        cpu.mov(reg, x).li(imm, 0xDEADBEEF)
    else:
        getattr(cpu, method)(reg, x, y)
        getattr(cpu, name + "i")(imm, x, 0x23)
    assert [g.register_of(v) for v in (reg, imm, x, y)] == [0, 1, 2, 3]
    for a, b in PAIRS:
        want_reg = alu_reference(name, a, b)
        want_imm = 0xDEADBEEF if name == "mov" else alu_reference(name, a, 0x23)
        hf = run.run_hostfed(g, {"x": a, "y": b})
        assert (hf.status, hf.error, hf.runs, hf.commands) == ("end", None, 1, [])
        assert hf.registers[:4] == [want_reg, want_imm, a, b]
    a, b = PAIRS[0]
    h, end = finish(run, g, {"x": a, "y": b})
    assert end.registers == (alu_reference(name, a, b) & 0xFFFFFF,
                             0xDEADBEEF if name == "mov" else alu_reference(name, a, 0x23))


def test_graph_cpu_int_operand_is_the_immediate_form(run):
    g = Graph(0, 0, 10)
    x = g.bindings("x")
    r, s = g.register(), g.register()
    g.cpu().sub(r, x, 5).shl(s, x, 33)
    h, end = finish(run, g, {"x": 12})
    assert end.registers == (7, 24)
    assert g.binding_values({"x": 12}) == [0, 0, 12]  # no constant was made for 5 or 33


def test_graph_dependencies_and_parallel_commands(run):
    g = Graph(200_000, 10, 11)
    x = g.bindings("x")
    left_out, right_out, total, step_out = (g.register() for _ in range(4))
    step = g.command(RESULT, group=(0, 8), args=[x], result=step_out)             # 2x
    left = g.command(RESULT, group=(0, 4), args=[step_out], after=[step], result=left_out)     # 4x
    right = g.command(RESULT, group=(4, 4), args=[step_out], after=step, result=right_out)    # 4x
    join = g.cpu(after=[left, right])
    join.add(total, left_out, right_out)
    g.command(NOP, group=(0, 1), after=[join])
    assert [g.register_of(v) for v in (left_out, right_out, total, step_out, x)] == [0, 1, 2, 3, 4]
    h, end = finish(run, g, {"x": 5})
    assert end.registers == (20, 20)
    hf = run.run_hostfed(g, {"x": 5})
    assert hf.registers[:5] == [20, 20, 40, 10, 5]
    nodes = [c.node for c in hf.commands]
    assert nodes[0] == 0 and sorted(nodes[1:3]) == [1, 2] and nodes[3] == 4
    assert [(c.handler, c.group, c.args) for c in sorted(hf.commands, key=lambda c: c.node)] == [
        (RESULT, (0, 8), [5]), (RESULT, (0, 4), [10]), (RESULT, (4, 4), [10]), (NOP, (0, 1), [])]


def test_graph_exclusive_command(run):
    g = Graph(0, 0, 12)
    r = g.register()
    g.command(RESULT, group=(0, CORES), args=[3], result=r, exclusive=True)
    w = words_of(g.encode())
    assert w[HEADER + K["KM_NODE_TYPE"]] >> 24 == K["KM_FLAG_EXCLUSIVE"]
    h, end = finish(run, g, {})
    assert end.registers == (6, 3)


def test_graph_encoding(run):
    g = Graph(deadline_microseconds=5000, max_runs=3, req=13, keep=True)
    x = g.bindings("x")
    r = g.register()
    n0 = g.command(RESULT, group=(2, 3), args=[x, x], result=r)
    cpu = g.cpu(after=[n0])
    cpu.addi(r, r, 1).lt(g.again, r, x)
    w = words_of(g.encode())
    assert (w[K["KM_ENGINE_H_KIND"]], w[K["KM_ENGINE_H_REQ"]], w[K["KM_ENGINE_H_FLAGS"]]) == (
        K["KM_ENGINE_GRAPH"], 13, K["KM_ENGINE_KEEP"])
    assert (w[K["KM_ENGINE_H_DEADLINE"]], w[K["KM_ENGINE_H_MAX"]], w[K["KM_ENGINE_H_COUNT"]],
            w[K["KM_ENGINE_H_OPS"]]) == (5000, 3, 2, 2)
    assert w[K["KM_ENGINE_H_BYTES"]] == len(w) * 4 and len(w) * 4 % LINE == 0
    n = HEADER
    assert w[n + K["KM_NODE_TYPE"]] == K["KM_NODE_COMMAND"] | 0 << 8 | 2 << 16
    assert (w[n + K["KM_NODE_HANDLER"]], w[n + K["KM_NODE_GROUP"]], w[n + K["KM_NODE_RESULT"]]) == (RESULT,
                                                                                                   2 | 3 << 16, 0)
    assert w[n + K["KM_NODE_ARGS"]] == 1 | 1 << 8  # x lives in register 1 (r, written, is 0)
    c = HEADER + NODE
    assert w[c + K["KM_NODE_TYPE"]] == K["KM_NODE_CPU"] | 1 << 8 and w[c + K["KM_NODE_DEPS"]] == 0
    assert (w[c + K["KM_NODE_OPS"]], w[c + K["KM_NODE_NOPS"]]) == (0, 2)
    ops = HEADER + 2 * NODE
    assert w[ops:ops + 4] == [(OPS["add"] | K["KM_OP_IMMEDIATE"]), 1, OPS["lt"] | 16 << 8 | 0 << 16 | 1 << 24, 0]


def test_graph_max_runs_exceeded(run):
    g = counting_graph(14, max_runs=2)  # wants 5 rounds, may run 2
    h, e = finish(run, g, {"counter": 0, "limit": 5})
    assert isinstance(e, km.EngineError)
    assert (e.reason_name, e.reason, e.node, e.pc) == ("runs", K["KM_STREAM_ERROR_RUNS"], None, None)
    assert values(h.events) == [("round", 1), ("error", 0)]
    h, end = finish(run, g, {"counter": 0, "limit": 2})  # two rounds: allowed
    assert values(h.events) == [("round", 1), ("end", 2)]


def test_graph_deadline(run):
    g = Graph(deadline_microseconds=3000, max_runs=0, req=15)
    x = g.register()
    g.command(NOP, group=(0, 1))
    g.cpu().addi(x, x, 1).li(g.again, 1)  # forever
    h, e = finish(run, g, {})
    assert (e.reason_name, e.node) == ("deadline", None)
    rounds = [ev.value for ev in h.events[:-1]]
    assert rounds == list(range(1, len(rounds) + 1))


def _raw_graph(change_at, change, build=None):
    g = Graph(0, 0, 30)
    x = g.bindings("x")
    r = g.register()
    n0 = g.command(RESULT, group=(0, 2), args=[x], result=r)
    cpu = g.cpu(after=[n0])
    cpu.addi(r, r, 1)
    g.command(NOP, group=(0, 1), after=[cpu])
    if build:
        build(g)
    node, word = change_at
    index = HEADER + 3 * NODE + word if node == "ops" else HEADER + node * NODE + word
    return patched(g.encode(), index, change)


GRAPH_ERRORS = {
    # name: (bytes, reason_name, node)
    "node-type": (lambda: _raw_graph((1, K["KM_NODE_TYPE"]), lambda w: byte_set(w, 0, 7)), "node", 1),
    "node-depends-on-itself": (lambda: _raw_graph((1, K["KM_NODE_DEPS"]), lambda w: 1), "node", 1),
    "node-depends-on-a-later-node": (lambda: _raw_graph((1, K["KM_NODE_DEPS"]), lambda w: 2), "node", 1),
    "node-nine-dependencies": (lambda: _raw_graph((2, K["KM_NODE_TYPE"]), lambda w: byte_set(w, 1, 9)), "node", 2),
    "node-operations-past-the-end": (lambda: _raw_graph((1, K["KM_NODE_NOPS"]), lambda w: 2), "node", 1),
    "node-first-operation-past-the-end": (lambda: _raw_graph((1, K["KM_NODE_OPS"]), lambda w: 5), "node", 1),
    "opcode": (lambda: _raw_graph(("ops", 0), lambda w: byte_set(w, 0, 0x3F)), "opcode", 1),
    "opcode-stream-only": (lambda: _raw_graph(("ops", 0), lambda w: byte_set(w, 0, K["KM_OP_HALT"])), "opcode", 1),
    "register-operation": (lambda: _raw_graph(("ops", 0), lambda w: byte_set(w, 1, 17)), "register", 1),
    "register-arg": (lambda: _raw_graph((0, K["KM_NODE_ARGS"]), lambda w: 17), "register", 0),
    "register-result": (lambda: _raw_graph((0, K["KM_NODE_RESULT"]), lambda w: 16), "register", 0),
    "handler": (lambda: _raw_graph((2, K["KM_NODE_HANDLER"]), lambda w: 240), "handler", 2),
    "args": (lambda: _raw_graph((0, K["KM_NODE_TYPE"]), lambda w: byte_set(w, 2, 11)), "args", 0),
    "flags-reserved": (lambda: _raw_graph((2, K["KM_NODE_TYPE"]), lambda w: byte_set(w, 3, K["KM_FLAG_RESERVED"])),
                       "flags", 2),
    "flags-queued-exclusive": (lambda: _raw_graph((0, K["KM_NODE_TYPE"]), lambda w: byte_set(
        w, 3, K["KM_FLAG_QUEUE"] | K["KM_FLAG_EXCLUSIVE"])), "flags", 0),
    "group": (lambda: _raw_graph((2, K["KM_NODE_GROUP"]), lambda w: 6 | 4 << 16), "group", 2),
    "group-from-python": (lambda: _raw_graph((0, 0), lambda w: w, build=lambda g: g.command(RESULT, group=(7, 2))),
                          "group", 3),
    "header-too-many-nodes": (lambda: patched(counting_graph(30).encode(), K["KM_ENGINE_H_COUNT"], lambda w: 65),
                              "header", None),
    "header-nodes-past-the-end": (lambda: patched(counting_graph(30).encode(), K["KM_ENGINE_H_COUNT"],
                                                  lambda w: 20), "header", None),
    "header-too-many-operations": (lambda: patched(counting_graph(30).encode(), K["KM_ENGINE_H_OPS"],
                                                   lambda w: 257), "header", None),
}


@pytest.mark.parametrize("case", list(GRAPH_ERRORS))
def test_graph_node_errors(run, case):
    data, reason_name, node = GRAPH_ERRORS[case]
    h, e = finish(run, data(), [0, 5], kind="graph")
    assert isinstance(e, km.EngineError), e
    assert (e.reason_name, e.reason, e.node, e.pc) == (reason_name, K["KM_STREAM_ERROR_" + reason_name.upper()], node,
                                                       None)
    assert values(h.events) == [("error", 0)]  # a bad upload sends nothing: the error comes at once
    assert e.event is h.end and e.handle is h


def test_graph_patched_back_runs(run):
    """The raw-bytes helper itself: an unchanged graph runs (r = 2x + 1)."""
    h, end = finish(run, _raw_graph((0, 0), lambda w: w), [0, 5], kind="graph")  # r, x
    assert end.registers == (11, 5)


# ---------------------------------------------------------------------------
# Kept graphs


def test_kept_graph_restart_and_release(fresh):
    run = fresh
    g = counting_graph(6, keep=True)
    up = run.upload(g)
    assert (up.offset, up.kind, up.req, up.keep, up.state) == (0, "graph", 6, True, "loaded")
    h = run.start(up, {"counter": 0, "limit": 4})
    assert up.state in ("running", "kept")
    end = run.wait_engine(h, 10.0)
    assert end.registers == (4, 6) and up.state == "kept"
    with pytest.raises(ValueError, match="Run.start: an engine with req 6 is kept"):
        run.start(up, {"counter": 0, "limit": 4})
    again = run.restart(6, {"counter": 10, "limit": 12})
    assert again.upload is up and again.kind == "graph" and again.req == 6
    end = run.wait_engine(again, 10.0)
    assert end.registers == (12, 22) and values(again.events) == [("round", 1), ("end", 22)]
    words = run.restart(6, [20, 0, 21])  # a list of words: counter, doubled, limit
    assert run.wait_engine(words, 10.0).registers == (21, 40)
    assert up.state == "kept"
    assert values(h.events) == [("round", 1), ("round", 2), ("round", 3), ("end", 6)]  # the first run's, unchanged
    run.release(up)
    assert up.state == "released" and run.uploads() == []
    with pytest.raises(ValueError, match="Run.restart: no kept graph has req 6"):
        run.restart(6, [])
    with pytest.raises(ValueError, match="Run.release"):
        run.release(up)
    nxt = run.upload(counting_stream(7))
    assert nxt.offset == 0  # its lines are free again
    # The released graph's req may be started afresh (the kernel dropped it).
    g2 = counting_graph(6, keep=False)
    h2 = run.start(run.upload(g2), {"counter": 1, "limit": 2})
    assert run.wait_engine(h2, 10.0).registers == (2, 2)
    result = run.stop()
    assert result.rejected == 0


def test_kept_graph_error_stays_kept(run):
    g = counting_graph(16, keep=True, max_runs=2)
    up = run.upload(g)
    h = run.start(up, {"counter": 0, "limit": 9})
    with pytest.raises(km.EngineError) as e:
        run.wait_engine(h, 10.0)
    assert e.value.reason_name == "runs"
    assert up.state == "kept"
    end = run.wait_engine(run.restart(16, {"counter": 0, "limit": 1}), 10.0)
    assert end.registers == (1, 0)
    run.release(up)
    assert up.state == "released"


def test_kept_graph_cancelled_while_running(run):
    g = Graph(0, 0, 17, keep=True)
    n = g.command(NOP, group=(0, 1))
    g.cpu(after=[n]).li(g.again, 1)  # forever
    up = run.upload(g)
    h = run.start(up, {})
    run.cancel(h)
    with pytest.raises(km.EngineError) as e:
        run.wait_engine(h, 10.0)
    assert (e.value.reason_name, e.value.node) == ("cancelled", None)
    assert up.state == "kept"   # a running kept graph is cancelled, not dropped
    run.release(up)             # ... release drops it
    assert up.state == "released"


def test_kept_rewrites_the_keep_bit(run):
    g = counting_graph(18, keep=False)
    up = run.upload(g)
    assert up.keep is False
    end = run.wait_engine(run.start(up, {"counter": 0, "limit": 1}, kept=True), 10.0)
    assert end.registers == (1, 0)
    assert (up.keep, up.state) == (True, "kept")
    assert run.wait_engine(run.restart(18, {"counter": 3, "limit": 1}), 10.0).registers == (4, 6)
    run.release(up)
    g = counting_graph(19, keep=True)
    up = run.upload(g)
    run.wait_engine(run.start(up, {"counter": 0, "limit": 1}, kept=False), 10.0)
    assert (up.keep, up.state) == (False, "loaded")
    with pytest.raises(ValueError, match="Run.restart: no kept graph has req 19"):
        run.restart(19, [0, 0, 1])
    # kept=None leaves the bit as the last start left it.
    run.wait_engine(run.start(up, {"counter": 0, "limit": 1}), 10.0)
    assert (up.keep, up.state) == (False, "loaded")
    run.wait_engine(run.start(up, {"counter": 0, "limit": 1}, kept=True), 10.0)
    assert up.state == "kept"
    run.release(up)
    assert run.uploads() == []


def test_raw_bytes_keep_bit(run):
    g = counting_graph(20, keep=True)
    up = run.upload(g.encode(), kind="graph")
    assert (up.kind, up.keep, up.source) == ("graph", True, None)
    words = g.binding_values({"counter": 0, "limit": 2})
    assert run.wait_engine(run.start(up, words), 10.0).registers == (2, 2)
    assert up.state == "kept"
    assert run.wait_engine(run.restart(20, [5, 0, 6]), 10.0).registers == (6, 10)
    run.release(up)
    # A stream's keep bit keeps nothing: only graphs stay loaded.
    s = Stream(21)
    s.halt(s.register())
    up = run.upload(patched(s.encode(), K["KM_ENGINE_H_FLAGS"], lambda w: K["KM_ENGINE_KEEP"]), kind="stream")
    assert up.keep is True
    assert run.wait_engine(run.start(up), 10.0).kind == "end"
    assert up.state == "loaded"
    run.release(up)


def test_three_graphs_kept_third_rejected(fresh):
    run = fresh
    ups = [run.upload(counting_graph(req, keep=True)) for req in (1, 2, 3)]
    for up in ups[:2]:
        run.wait_engine(run.start(up, {"counter": 0, "limit": 1}), 10.0)
        assert up.state == "kept"
    with pytest.raises(km.EngineRejected) as e:
        run.start(ups[2], {"counter": 0, "limit": 1})
    assert isinstance(e.value, km.CommandRejected)
    assert (e.value.reason, e.value.reason_name, e.value.req) == (K["KMD_REJECT_ENGINES"], "engines", 3)
    assert ups[2].state == "loaded"
    # A stream still starts: streams have their own four slots.
    assert run.wait_engine(run.start(run.upload(counting_stream(9)), [0, 0, 0, 1]), 10.0).value == 1
    run.release(ups[0])
    end = run.wait_engine(run.start(ups[2], {"counter": 0, "limit": 2}), 10.0)
    assert end.registers == (2, 2) and ups[2].state == "kept"
    assert run.stop().rejected == 1


