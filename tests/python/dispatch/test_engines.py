"""tessel.dispatch's engines (spec: persistent-dispatch-host-api, Engines:
uploads, start, events; tessel/engine_abi.h): streams (ALU, branches, SUBMIT
with a result, ENQUEUE and WAIT, groups from registers, queued commands,
TICKS, EVENT, HALT and the pc of every error), graphs (rounds, the register
layout, cpu operations, kept graphs restarted and released, max_runs, node
errors), the upload region (lines side by side, the first free place, too
big, kept=), the kernel's rejections, cancel, the separation of the host's
waits from the engines', run_hostfed against the card, stop and a small
event ring, on a 4 x 2 Blackhole device and the C++ tests' basic program
(fill = 1, result = 3: arg0 * 2 + the core's index in the group, count = 5).

Most tests share one module run (every test releases what it uploads); the
tests that look at offsets, count the kernel's events or stop the run load
the same program into a session of their own.
"""

import struct
import time

import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch.engines import (ERROR_NAMES, OPS, CpuNode, EngineEvent, EngineHandle, Graph, HostfedResult,
                                     Stream, Upload)

from .common import BASIC, BASIC_HEADER, GRID, CORES, K

RESULT, COUNT, NOP = 3, 5, 0  # basic.hpp's handlers
LINE = K["KM_LINE_BYTES"]
HEADER = LINE // 4  # words of the header line
NODE = K["KM_NODE_WORDS"]
M32 = 0xFFFFFFFF


def basic_program():
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER),
                      depth=4)


@pytest.fixture(scope="module")
def shared():
    """One run for the tests that leave the region as they found it."""
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        run = s.load(basic_program())
        yield run
        if not run.stopped:
            result = run.stop()
            assert result.error_name == "none"
        s.close()


@pytest.fixture
def run(shared):
    """The shared run, checked to be left empty: no upload, no engine."""
    assert shared.uploads() == []
    yield shared
    left = shared.uploads()
    for u in left:  # a failed test's uploads: do not let them spoil the next test
        if u.state != "running":
            shared.release(u)
    assert left == [], f"the test left uploads behind: {left}"


@pytest.fixture
def session():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        yield s
        s.close()


@pytest.fixture
def fresh(session):
    """A run of its own (offsets from 0, its own result block); stopped at the end."""
    r = session.load(basic_program())
    yield r
    if not r.stopped:
        r.stop()


# ---------------------------------------------------------------------------
# helpers


def words_of(data):
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def bytes_of(words):
    return struct.pack(f"<{len(words)}I", *words)


def patched(data, index, change):
    """The upload `data` with word `index` (from the header's first word) replaced by change(word)."""
    w = words_of(data)
    w[index] = change(w[index]) & M32
    return bytes_of(w)


def byte_set(word, byte, value):
    return (word & ~(0xFF << (8 * byte))) | (value << (8 * byte))


def finish(run, engine, bindings=(), kind=None, timeout=10.0):
    """Upload, start and wait for `engine`; release it. Returns (handle, end event or EngineError)."""
    up = run.upload(engine, kind=kind)
    try:
        h = run.start(up, bindings)
        try:
            return h, run.wait_engine(h, timeout)
        except km.EngineError as e:
            return h, e
    finally:
        if up.state == "running":
            run.cancel(h)
            with pytest.raises(km.EngineError):
                run.wait_engine(h, timeout)
        run.release(up)


def spinning(req, **kw):
    """A stream that adds 1 to r0 forever (until cancelled)."""
    s = Stream(req, **kw)
    r = s.register()
    top = s.here()
    s.addi(r, r, 1)
    s.jmp(top)
    return s


def counting_stream(req):
    """r0 counts to r3 (a binding); each pass SUBMITs `result` (2 * r0 + index 0) on (2, 3) into r1 and posts it."""
    s = Stream(req)
    i, out, more, n = (s.register() for _ in range(4))
    s.li(i, 0)
    top = s.here()
    s.submit(RESULT, group=(2, 3), args=[i], result=out)
    s.event(out)
    s.addi(i, i, 1)
    s.lt(more, i, n)
    s.bnz(more, top)
    s.halt(i)
    return s


def counting_graph(req, keep=False, max_runs=100):
    """While counter < limit: `result` on (1, 2) writes 2 * counter into `doubled`, then counter += 1."""
    g = Graph(deadline_microseconds=0, max_runs=max_runs, req=req, keep=keep)
    counter, limit = g.bindings("counter", "limit")
    doubled = g.register()
    cmd = g.command(RESULT, group=(1, 2), args=[counter], result=doubled)
    cpu = g.cpu(after=[cmd])
    cpu.addi(counter, counter, 1)
    cpu.lt(g.again, counter, limit)
    return g


def values(events):
    return [(e.kind, e.value) for e in events]


# ---------------------------------------------------------------------------
# Streams


def test_stream_submits_posts_and_halts(run):
    s = counting_stream(3)
    up = run.upload(s)
    assert (up.kind, up.req, up.keep, up.state, up.bytes % LINE, up.source) == ("stream", 3, False, "loaded", 0, s)
    assert run.uploads() == [up]
    h = run.start(up, [0, 0, 0, 5])  # r3 = 5
    assert isinstance(h, EngineHandle) and (h.kind, h.req, h.upload, h.unknown) == ("stream", 3, up, False)
    end = run.wait_engine(h, 10.0)
    assert (end.kind, end.value, end.registers) == ("end", 5, (5, 5))  # r0's low 24 bits, the halt register
    assert (end.reason, end.reason_name, end.pc, end.node) == (None, None, None, None)
    assert values(h.events) == [("event", 2 * i) for i in range(5)] + [("end", 5)]
    assert h.end is h.events[-1] and h.end.handle is h
    assert up.state == "loaded"  # ended: it may be started again
    again = run.start(up, [0, 0, 0, 2])
    assert run.wait_engine(again, 10.0).value == 2
    assert values(again.events) == [("event", 0), ("event", 2), ("end", 2)]
    run.release(up)
    assert up.state == "released" and run.uploads() == []


def _alu_reference(name, a, b):
    s = b & 31
    return {
        "mov": a, "add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
        "shl": a << s, "shr": a >> s, "min": min(a, b), "max": max(a, b), "lt": int(a < b), "le": int(a <= b),
        "gt": int(a > b), "ge": int(a >= b), "eq": int(a == b), "ne": int(a != b),
    }[name] & M32


PAIRS = [(0xF0F01234, 37), (5, 5), (3, 0xFFFFFFFF), (0x80000001, 1)]


def test_stream_alu_operations(run):
    assert sorted(OPS) == sorted(["mov", "add", "sub", "mul", "and", "or", "xor", "shl", "shr", "min", "max", "lt",
                                  "le", "gt", "ge", "eq", "ne"])
    s = Stream(4)
    ra, rb, rd = s.register(), s.register(), s.register()
    expected = []
    for a, b in PAIRS:
        s.li(ra, a).li(rb, b)
        s.mov(rd, ra).event(rd)
        expected.append(a)
        for name in OPS:
            if name == "mov":
                continue
            method = name + "_" if name in ("and", "or") else name
            getattr(s, method)(rd, ra, rb).event(rd)        # register form
            getattr(s, name + "i")(rd, ra, b).event(rd)     # immediate form
            getattr(s, method)(rd, ra, b).event(rd)         # an int last operand: the immediate form
            expected += [_alu_reference(name, a, b)] * 3
    s.halt(rd)
    h, end = finish(run, s)
    assert [e.value for e in h.events[:-1]] == expected
    assert end.value == expected[-1]


def test_stream_branches(run):
    s = Stream(5)
    i, total, more, zero, marker, r = (s.register() for _ in range(6))
    s.li(i, 0).li(total, 0)
    top = s.here()
    s.addi(i, i, 1).add(total, total, i).lti(more, i, 10).bnz(more, top)  # total = 1 + ... + 10
    skip, over, bad = s.label(), s.label(), s.label()
    s.bz(zero, skip)        # taken: zero is 0
    s.li(marker, 99)
    s.place(skip)
    s.jmp(over)             # taken
    s.li(marker, 77)
    s.place(over)
    s.event(total).event(marker)
    s.bnz(zero, bad)        # not taken
    s.bz(i, bad)            # not taken: i is 10
    s.li(r, 1).event(r).halt(total)
    s.place(bad)
    s.li(r, 2).event(r).halt(total)
    h, end = finish(run, s)
    assert values(h.events) == [("event", 55), ("event", 0), ("event", 1), ("end", 55)]


def test_stream_pc_and_labels(run):
    s = Stream(6)
    r = s.register()
    assert s.pc == 0
    s.li(r, 1)                                  # 2 words
    assert s.pc == 2
    s.submit(RESULT, group=(0, 1), args=[r, 3])  # 3 words + 2 args
    assert s.pc == 7
    s.halt(r)
    data = s.encode()
    w = words_of(data)
    assert len(data) % LINE == 0 and len(data) == 2 * LINE
    assert w[K["KM_ENGINE_H_MAGIC"]] == K["KM_ENGINE_MAGIC"] and w[K["KM_ENGINE_H_KIND"]] == K["KM_ENGINE_STREAM"]
    assert (w[K["KM_ENGINE_H_REQ"]], w[K["KM_ENGINE_H_BYTES"]], w[K["KM_ENGINE_H_COUNT"]]) == (6, 2 * LINE, 8)
    assert w[HEADER] == K["KM_OP_LI"] | r.index << 8 and w[HEADER + 1] == 1
    op = w[HEADER + 2]
    assert (op & 0xFF, op >> 8 & 0xFF, op >> 16 & 0xFF) == (K["KM_OP_SUBMIT"], RESULT, 2)
    assert w[HEADER + 3] == 0 | 1 << 16           # group (0, 1)
    assert w[HEADER + 4] == 1                     # arg 0 is a register
    assert w[HEADER + 5:HEADER + 7] == [r.index, 3]
    h, end = finish(run, data, kind="stream")     # its bytes run as the Stream does
    assert end.value == 1


def test_stream_deadline_and_max_steps_in_the_header(run):
    w = words_of(Stream(7, deadline_microseconds=1234, max_steps=99).encode())
    assert (w[K["KM_ENGINE_H_DEADLINE"]], w[K["KM_ENGINE_H_MAX"]], w[K["KM_ENGINE_H_FLAGS"]]) == (1234, 99, 0)


def test_stream_submit_result_into_a_register(run):
    s = Stream(8)
    a, out, idx = s.register(), s.register(), s.register()
    s.li(a, 21)
    s.submit(RESULT, group=(3, 4), args=[a], result=out).event(out)              # the leader: 21 * 2 + 0
    s.submit(RESULT, group=(0, 8), args=[1000], result=out).event(out)           # a value arg
    s.submit(COUNT, group=(7, 1), result=idx).event(idx)                         # core 7's reader counts
    s.submit(COUNT, group=(7, 1), result=idx).event(idx)                         # ... one more
    s.submit(RESULT, group=(0, 1), args=[a], exclusive=True, result=out).event(out)
    s.halt(out)
    h, end = finish(run, s)
    first, second, count1, count2, exclusive = [e.value for e in h.events[:-1]]
    assert (first, second, exclusive, end.value) == (42, 2000, 42, 42)
    assert count1 >= 1 and count2 == count1 + 1


def test_stream_enqueue_and_wait(run):
    s = Stream(9)
    outs = [s.register() for _ in range(4)]
    i, more = s.register(), s.register()
    for k, out in enumerate(outs):
        s.enqueue(RESULT, group=(2 * k, 2), args=[10 + k], result=out)  # four in flight at once
    s.wait()
    for out in outs:
        s.event(out)
    # More ENQUEUEs than KM_ENGINE_INFLIGHT: each waits for room.
    top = s.here()
    s.enqueue(NOP, group=(0, 1)).addi(i, i, 1).lti(more, i, 3 * K["KM_ENGINE_INFLIGHT"]).bnz(more, top)
    s.wait().halt(i)
    h, end = finish(run, s)
    assert [e.value for e in h.events[:-1]] == [20, 22, 24, 26]
    assert end.value == 48


def test_stream_group_from_registers(run):
    s = Stream(10)
    first, count, out = s.register(), s.register(), s.register()
    s.li(first, 5).li(count, 3)
    s.submit(RESULT, group=(first, count), args=[first], result=out).event(out)  # 5 * 2 + 0
    s.li(first, 0).li(count, CORES)
    s.submit(RESULT, group=(first, count), args=[count], result=out).halt(out)  # 8 * 2
    h, end = finish(run, s)
    assert values(h.events) == [("event", 10), ("end", 16)]
    hf = run.run_hostfed(s)
    assert [(c.group, c.args, c.result) for c in hf.commands] == [((5, 3), [5], 10), ((0, 8), [8], 16)]


def test_stream_queued_commands(run):
    s = Stream(11)
    a, b, c, n = (s.register() for _ in range(4))
    s.enqueue(RESULT, group=2, args=[7], result=a, queued=True)
    s.li(n, 3)
    s.enqueue(RESULT, group=n, args=[8], result=b, queued=True)     # the count from a register
    s.submit(RESULT, group=CORES, args=[9], result=c, queued=True)  # SUBMIT queued: waits for it
    s.wait()
    s.event(a).event(b).event(c).halt(c)
    h, end = finish(run, s)
    assert values(h.events) == [("event", 14), ("event", 16), ("event", 18), ("end", 18)]
    hf = run.run_hostfed(s)
    assert [(c.group, c.args, c.result) for c in hf.commands] == [((0, 2), [7], 14), ((0, 3), [8], 16),
                                                                   ((0, CORES), [9], 18)]


def test_stream_ticks_increase(run):
    s = Stream(12)
    t0, t1, d = s.register(), s.register(), s.register()
    s.ticks(t0)
    for _ in range(5):
        s.submit(COUNT, group=(0, CORES))
    s.ticks(t1)
    s.sub(d, t1, t0)
    s.event(t0).event(t1).halt(d)
    wall = time.perf_counter()
    h, end = finish(run, s)
    wall = time.perf_counter() - wall
    first, second = h.events[0].value, h.events[1].value
    assert end.value == (second - first) & M32
    assert 0 < end.value <= wall * 50e6 + 1  # 50 MHz ticks, within the call's wall time


def test_stream_end_registers_are_r0_low_bits_and_the_halt_register(run):
    s = Stream(13)
    r0, r1 = s.register(), s.register()
    s.li(r0, 0xABCDEF12).li(r1, 0xFEDCBA98).halt(r1)
    h, end = finish(run, s)
    assert (end.value, end.registers) == (0xFEDCBA98, (0xCDEF12, 0xFEDCBA98))


def test_stream_bindings_set_the_first_registers(run):
    s = Stream(14)
    regs = [s.register() for _ in range(16)]
    total = regs[15]
    for r in regs[:15]:
        s.add(total, total, r)
    s.halt(total)
    h, end = finish(run, s, bindings=list(range(1, 16)) + [1000])
    assert end.value == 1000 + sum(range(1, 16))


def _raw_stream(build, pc, change):
    s = Stream(20)
    build(s)
    return patched(s.encode(), HEADER + pc, change)


def _built(build):
    s = Stream(20)
    build(s)
    return s.encode()


def _opcode(s):
    s.nop().nop().halt(s.register())


def _submit_then_halt(s):
    s.submit(RESULT, group=(0, 2), args=[1])
    s.halt(s.register())


STREAM_ERRORS = {
    # name: (upload bytes, reason_name, pc)
    "opcode": (lambda: _raw_stream(_opcode, 1, lambda w: 0x3F), "opcode", 1),
    "opcode-0xFF": (lambda: _raw_stream(_opcode, 0, lambda w: 0xFF), "opcode", 0),
    "off-the-end": (lambda: Stream(20).nop().nop().nop().encode(), "pc", 3),
    "empty": (lambda: Stream(20).encode(), "pc", 0),
    "operand-off-the-end": (lambda: patched(Stream(20).nop().nop().encode(), HEADER + 1, lambda w: K["KM_OP_LI"]),
                            "pc", 1),  # LI at the last word: its immediate lies past the code
    "branch-off-the-end": (lambda: _raw_stream(lambda s: (s.nop(), s.jmp(s.here())), 2, lambda w: 99), "pc", 1),
    "register-li": (lambda: _raw_stream(lambda s: (s.nop(), s.li(s.register(), 5), s.halt(s.register(0))), 1,
                                        lambda w: byte_set(w, 1, 20)), "register", 1),
    "register-alu": (lambda: _raw_stream(lambda s: s.add(s.register(), s.register(), s.register()).halt(
        s.register(0)), 0, lambda w: byte_set(w, 3, 17)), "register", 0),
    "register-event": (lambda: _raw_stream(lambda s: s.event(s.register()).halt(s.register(0)), 0,
                                           lambda w: byte_set(w, 1, 16)), "register", 0),
    "register-result": (lambda: _raw_stream(lambda s: s.submit(RESULT, (0, 1), [1], result=s.register()).halt(
        s.register(0)), 2, lambda w: byte_set(w, 2, 20)), "register", 0),
    "register-arg": (lambda: _raw_stream(lambda s: s.submit(RESULT, (0, 1), [s.register()]).halt(s.register(0)), 3,
                                         lambda w: 40), "register", 0),
    "register-group": (lambda: _raw_stream(lambda s: s.submit(RESULT, (s.register(), s.register())).halt(
        s.register(0)), 1, lambda w: byte_set(w, 1, 33)), "register", 0),
    "handler": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: byte_set(w, 1, 245)), "handler", 0),
    "handler-run": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: byte_set(w, 1, 253)), "handler", 0),
    "group": (lambda: _built(lambda s: s.nop().submit(RESULT, group=(6, 4)).halt(s.register())), "group", 1),
    "group-first-outside": (lambda: _built(lambda s: s.submit(RESULT, group=(CORES, 1)).halt(s.register())),
                            "group", 0),
    "group-from-registers": (lambda: _built(lambda s: (lambda f, c: s.li(f, 6).li(c, 3).submit(
        RESULT, group=(f, c)).halt(f))(s.register(), s.register())), "group", 4),
    "group-count-zero-from-registers": (lambda: _built(lambda s: s.submit(
        RESULT, group=(s.register(), s.register())).halt(s.register(0))), "group", 0),
    "group-queued-too-many": (lambda: _built(lambda s: s.submit(RESULT, group=CORES + 1, queued=True).halt(
        s.register())), "group", 0),
    "args": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: byte_set(w, 2, 11)), "args", 0),
    "flags-reserved": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: w | K["KM_FLAG_RESERVED"] << 24),
                       "flags", 0),
    "flags-queued-exclusive": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: w | (
        K["KM_FLAG_QUEUE"] | K["KM_FLAG_EXCLUSIVE"]) << 24), "flags", 0),
    "flags-unknown-bit": (lambda: _raw_stream(_submit_then_halt, 0, lambda w: w | 0x40 << 24), "flags", 0),
    "header": (lambda: patched(bytes(LINE), K["KM_ENGINE_H_REQ"], lambda w: 20), "header", None),
    "header-version": (lambda: patched(Stream(20).nop().encode(), K["KM_ENGINE_H_VERSION"], lambda w: 2),
                       "header", None),
    "header-kind": (lambda: patched(Stream(20).nop().encode(), K["KM_ENGINE_H_KIND"], lambda w: 3), "header", None),
    "header-bytes": (lambda: patched(Stream(20).nop().encode(), K["KM_ENGINE_H_BYTES"], lambda w: 100), "header",
                     None),
    "header-count": (lambda: patched(Stream(20).nop().encode(), K["KM_ENGINE_H_COUNT"], lambda w: 17), "header",
                     None),
}


@pytest.mark.parametrize("case", list(STREAM_ERRORS))
def test_stream_errors_and_their_pc(run, case):
    data, reason_name, pc = STREAM_ERRORS[case]
    h, e = finish(run, data(), kind="stream")
    assert isinstance(e, km.EngineError), e
    assert (e.reason_name, e.reason, e.pc, e.node) == (reason_name, K["KM_STREAM_ERROR_" + reason_name.upper()], pc,
                                                       None)
    assert ERROR_NAMES[e.reason] == reason_name
    assert e.handle is h and e.event is h.end and e.event.kind == "error" and e.event.value == 0
    assert (h.end.reason, h.end.reason_name, h.end.pc) == (e.reason, reason_name, pc)
    assert reason_name in str(e) and "req 20" in str(e)


def test_stream_steps(run):
    s = Stream(21, max_steps=101)
    r = s.register()
    top = s.here()
    s.addi(r, r, 1).jmp(top)            # pc 0 and pc 2, one step each
    h, e = finish(run, s)
    assert (e.reason_name, e.pc) == ("steps", 2)  # 51 ADDIs and 50 JMPs ran: the 102nd step, at pc 2, did not
    # EVENT and HALT count too: 10 passes of 3 steps, then the 31st step fails.
    s = Stream(22, max_steps=30)
    r = s.register()
    top = s.here()
    s.event(r).addi(r, r, 1).jmp(top)
    h, e = finish(run, s)
    assert (e.reason_name, e.pc) == ("steps", 0)
    assert [ev.value for ev in h.events[:-1]] == list(range(10))
    s = Stream(23, max_steps=2)
    s.nop().halt(s.register())          # exactly two steps: a clean end
    h, end = finish(run, s)
    assert end.kind == "end"


def test_stream_deadline(run):
    h, e = finish(run, spinning(24, deadline_microseconds=2000))
    assert (e.reason_name, e.pc, e.node) == ("deadline", None, None)
    s = Stream(25, deadline_microseconds=10_000_000)
    s.halt(s.register())
    h, end = finish(run, s)
    assert end.kind == "end"  # a deadline far off changes nothing


def test_stream_error_stops_sending_but_waits_for_its_commands(run):
    """An error after ENQUEUEs: the stream ends (after its commands completed) and the next engine of its req
    gets only its own completions."""
    s = Stream(26)
    out = s.register()
    for k in range(4):
        s.enqueue(COUNT, group=(k, 1))
    s.submit(RESULT, group=(6, 4))  # outside the grid
    s.halt(out)
    h, e = finish(run, s)
    assert (e.reason_name, e.pc) == ("group", 12)
    h, end = finish(run, counting_stream(26), bindings=[0, 0, 0, 3])
    assert values(h.events) == [("event", 0), ("event", 2), ("event", 4), ("end", 3)]


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
        want_reg = _alu_reference(name, a, b)
        want_imm = 0xDEADBEEF if name == "mov" else _alu_reference(name, a, 0x23)
        hf = run.run_hostfed(g, {"x": a, "y": b})
        assert (hf.status, hf.error, hf.runs, hf.commands) == ("end", None, 1, [])
        assert hf.registers[:4] == [want_reg, want_imm, a, b]
    a, b = PAIRS[0]
    h, end = finish(run, g, {"x": a, "y": b})
    assert end.registers == (_alu_reference(name, a, b) & 0xFFFFFF,
                             0xDEADBEEF if name == "mov" else _alu_reference(name, a, 0x23))


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


# ---------------------------------------------------------------------------
# The upload region


def _stream_of_lines(req, lines):
    """A stream of `lines` lines (header included) that halts; one line is an empty stream (its error: pc)."""
    s = Stream(req)
    if lines > 1:
        for _ in range((lines - 1) * 16 - 1):
            s.nop()
        s.halt(s.register())
    assert len(s.encode()) == lines * LINE
    return s


def test_uploads_side_by_side_and_the_first_free_place(fresh):
    run = fresh
    assert run.upload_region == K["KM_UPLOAD_REGION_BYTES"] == 707840
    a, b, c = (run.upload(_stream_of_lines(req, 2)) for req in (1, 2, 3))
    d = run.upload(_stream_of_lines(4, 3))
    assert [(u.offset, u.bytes) for u in (a, b, c, d)] == [(0, 128), (128, 128), (256, 128), (384, 192)]
    run.release(b)
    assert run.uploads() == [a, c, d]
    e = run.upload(_stream_of_lines(5, 3))      # does not fit b's two lines
    f = run.upload(_stream_of_lines(6, 1))      # the first free place: b's first line
    g = run.upload(bytes(65), kind="stream")    # whole lines: 65 bytes take two ... they do not fit b's last line
    h = run.upload(bytes(10), kind="graph")     # ... and one line does
    assert [(u.offset, u.bytes) for u in (e, f, g, h)] == [(576, 192), (128, 64), (768, 128), (192, 64)]
    assert (g.kind, g.req, g.source, h.kind) == ("stream", 0, None, "graph")
    assert run.uploads() == [a, c, d, e, f, g, h]
    # Each upload still holds its own bytes: every stream runs to its halt, the empty one off its end.
    for u in (a, c, d, e):
        assert run.wait_engine(run.start(u), 10.0).kind == "end"
    with pytest.raises(km.EngineError) as err:
        run.wait_engine(run.start(f), 10.0)
    assert (err.value.reason_name, err.value.pc) == ("pc", 0)
    run.release(a)
    run.release(c)
    i = run.upload(_stream_of_lines(7, 4))      # a's two lines + b's... only 0..128 and 256..384 are free
    assert i.offset == 896
    j = run.upload(_stream_of_lines(8, 2))
    assert j.offset == 0
    run.stop()


def test_upload_that_does_not_fit_writes_nothing(fresh):
    run = fresh
    a = run.upload(counting_stream(1))
    room = run.upload_region - a.bytes
    with pytest.raises(ValueError, match="do not fit the upload region.*nothing was written") as e:
        run.upload(bytes(room + 1), kind="stream")
    assert isinstance(e.value, tessel.ValidationError)
    assert run.uploads() == [a]
    with pytest.raises(ValueError, match="do not fit"):
        run.upload(bytes(10 * run.upload_region), kind="graph")
    assert run.uploads() == [a]
    big = run.upload(bytes(room), kind="stream")  # exactly what is left
    assert (big.offset, big.bytes) == (a.bytes, room)
    with pytest.raises(ValueError, match="do not fit"):
        run.upload(Stream(2))  # one line: none left
    run.release(big)
    # a was not touched by the refused uploads: it runs.
    h = run.start(a, [0, 0, 0, 3])
    assert run.wait_engine(h, 10.0).value == 3 and [e.value for e in h.events[:-1]] == [0, 2, 4]
    # A running engine's bindings take a line of their own: the region then has none.
    full = run.upload(bytes(room), kind="stream")
    with pytest.raises(ValueError, match="Run.start: no free line in the upload region for the bindings"):
        run.start(a, [0, 0, 0, 3])
    assert a.state == "loaded"
    run.release(full)
    assert run.wait_engine(run.start(a, [0, 0, 0, 1]), 10.0).value == 1
    assert run.stop().rejected == 0


def test_bindings_take_a_line_while_the_engine_runs(fresh):
    run = fresh
    a = run.upload(spinning(1))                   # 0 .. 128
    h = run.start(a, [7])                         # its binding line: 128 .. 192
    b = run.upload(Stream(2))                     # one line (an empty stream)
    assert b.offset == 192
    run.cancel(h)
    with pytest.raises(km.EngineError):
        run.wait_engine(h, 10.0)
    c = run.upload(Stream(3))
    assert c.offset == 128                        # the binding line is free again
    run.stop()


def test_start_of_a_running_or_kept_req_and_release_of_a_running_upload(run):
    up = run.upload(spinning(40))
    other = run.upload(spinning(40))
    h = run.start(up)
    assert up.state == "running"
    with pytest.raises(ValueError, match="Run.start: an engine with req 40 is running"):
        run.start(up)
    with pytest.raises(ValueError, match="Run.start: an engine with req 40 is running"):
        run.start(other)
    with pytest.raises(ValueError, match="Run.release: the stream with req 40 is running"):
        run.release(up)
    assert up.state == "running" and run.uploads() == [up, other]
    run.cancel(h)
    with pytest.raises(km.EngineError, match="cancelled"):
        run.wait_engine(h, 10.0)
    assert up.state == "loaded"
    h2 = run.start(other)                          # the req is free again
    run.cancel(h2)
    with pytest.raises(km.EngineError):
        run.wait_engine(h2, 10.0)
    run.release(up)
    run.release(other)
    kept = run.upload(counting_graph(41, keep=True))
    run.wait_engine(run.start(kept, {"counter": 0, "limit": 1}), 10.0)
    stream = run.upload(spinning(41))
    with pytest.raises(ValueError, match="Run.start: an engine with req 41 is kept"):
        run.start(stream)
    run.release(stream)
    run.release(kept)


# ---------------------------------------------------------------------------
# Rejections, cancel, timeouts


def test_fifth_stream_is_rejected_and_stop_cancels_the_rest(fresh):
    run = fresh
    ups = [run.upload(spinning(req)) for req in range(1, 6)]
    assert [u.offset for u in ups] == [0, 128, 256, 384, 512]
    handles = [run.start(u) for u in ups[:4]]
    with pytest.raises(km.EngineRejected) as e:
        run.start(ups[4])
    assert isinstance(e.value, km.CommandRejected)
    assert (e.value.reason, e.value.reason_name, e.value.req) == (K["KMD_REJECT_ENGINES"], "engines", 5)
    assert "req 5" in str(e.value) and "engines" in str(e.value)
    assert ups[4].state == "loaded"
    run.cancel(handles[0])
    with pytest.raises(km.EngineError) as err:
        run.wait_engine(handles[0], 10.0)
    assert (err.value.reason_name, err.value.reason, err.value.pc) == ("cancelled", K["KM_STREAM_ERROR_CANCELLED"],
                                                                       None)
    assert err.value.handle is handles[0] and err.value.event is handles[0].end
    fifth = run.start(ups[4])                     # a slot is free now
    handles.append(fifth)
    assert all(h.end is None for h in handles[1:])
    result = run.stop()                           # cancels the four still running first
    assert result.error_name == "none" and result.rejected == 1
    for h in handles:
        assert (h.end.kind, h.end.reason_name) == ("error", "cancelled")
        with pytest.raises(km.EngineError, match="cancelled"):
            run.wait_engine(h, 1.0)               # after the stop: its end, at once


def test_stop_cancels_a_running_graph_and_streams(fresh):
    run = fresh
    kept = run.upload(counting_graph(8, keep=True))
    run.wait_engine(run.start(kept, {"counter": 0, "limit": 1}), 10.0)
    g = Graph(0, 0, 9)
    n = g.command(COUNT, group=(0, 1))
    g.cpu(after=[n]).li(g.again, 1)               # forever
    gh = run.start(run.upload(g), {})
    sh = run.start(run.upload(spinning(3)))
    time.sleep(0.01)
    result = run.stop()
    assert result.error_name == "none"
    assert (gh.end.reason_name, sh.end.reason_name) == ("cancelled", "cancelled")
    rounds = [e.value for e in gh.events[:-1]]
    assert rounds == list(range(1, len(rounds) + 1)) and set(e.kind for e in gh.events[:-1]) <= {"round"}
    assert kept.state == "kept"                   # not running: nothing to cancel


def test_bad_header_is_the_kernels_to_reject(run):
    junk = patched(bytes(LINE), K["KM_ENGINE_H_REQ"], lambda w: 42)  # req 42, no magic
    up = run.upload(junk, kind="stream")
    assert (up.req, up.keep, up.bytes) == (42, False, LINE)
    h = run.start(up)
    with pytest.raises(km.EngineError) as e:
        run.wait_engine(h, 10.0)
    assert (e.value.reason_name, e.value.reason, e.value.pc, e.value.node) == ("header", 1, None, None)
    run.release(up)
    # A graph's bad header: node None.
    up = run.upload(patched(counting_graph(43).encode(), K["KM_ENGINE_H_MAGIC"], lambda w: 0), kind="graph")
    with pytest.raises(km.EngineError) as e:
        run.wait_engine(run.start(up, [0, 0, 1]), 10.0)
    assert (e.value.reason_name, e.value.node) == ("header", None)
    run.release(up)


def test_req_zero_is_rejected(run):
    up = run.upload(bytes(LINE), kind="stream")   # req 0: no engine can carry it
    assert up.req == 0
    with pytest.raises(km.EngineRejected) as e:
        run.start(up)
    assert (e.value.reason, e.value.reason_name, e.value.req) == (K["KMD_REJECT_REQ"], "req", 0)
    assert up.state == "loaded"
    run.release(up)


def test_cancel_of_an_ended_engine_sends_nothing(session):
    counts = []
    for cancels in (0, 3):
        run = session.load(basic_program())
        s = Stream(3)
        r = s.register()
        s.event(r).addi(r, r, 1).event(r).halt(r)
        h = run.start(run.upload(s))
        end = run.wait_engine(h, 10.0)
        for _ in range(cancels):
            assert run.cancel(h) is None
        assert h.end is end and values(h.events) == [("event", 0), ("event", 1), ("end", 1)]
        result = run.stop()
        assert result.rejected == 0
        counts.append((result.events, result.commands))
    assert counts[0] == counts[1]  # no CANCEL (nor its PING) reached the kernel


def test_cancel_of_a_running_stream(run):
    up = run.upload(spinning(44))
    h = run.start(up)
    assert h.end is None and h.events == []
    run.cancel(h)
    with pytest.raises(km.EngineError) as e:
        run.wait_engine(h, 10.0)
    assert (e.value.reason_name, e.value.pc, e.value.node) == ("cancelled", None, None)
    assert "cancelled" in str(e.value) and "req 44" in str(e.value)
    assert h.end.reason_name == "cancelled" and up.state == "loaded"
    run.cancel(h)  # ended: nothing to do
    run.release(up)


def test_wait_engine_timeout(run):
    up = run.upload(spinning(45))
    h = run.start(up)
    t0 = time.perf_counter()
    with pytest.raises(km.EngineTimeout) as e:
        run.wait_engine(h, 0.05)
    assert 0.05 <= time.perf_counter() - t0 < 2.0
    assert isinstance(e.value, km.WaitTimeout)
    assert e.value.handle is h and "req 45" in str(e.value)
    assert h.end is None and up.state == "running"  # it still runs
    run.cancel(h)
    with pytest.raises(km.EngineError):
        run.wait_engine(h, 10.0)
    run.release(up)


ATTEMPTS = 20  # a call with timeout 0 is answered in time now and then: it is tried again


def _settle(run, h):
    if h.end is None:
        run.cancel(h)
    try:
        run.wait_engine(h, 10.0)
    except km.EngineError:
        pass


def _start_unanswered(run, make):
    """start(make(), timeout=0) until its PING is not answered in time: (upload, the unknown handle)."""
    for _ in range(ATTEMPTS):
        up = make()
        try:
            h = run.start(up, timeout=0)
        except km.EngineTimeout as e:
            assert isinstance(e.handle, EngineHandle) and e.handle.unknown and e.handle.upload is up
            assert "may have started" in str(e)
            return up, e.handle
        except km.EngineRejected:
            pass
        else:
            _settle(run, h)
        run.release(up)
    pytest.skip(f"the kernel answered the RUN within 0 s {ATTEMPTS} times")


def test_unknown_start_settled_by_cancel(fresh):
    run = fresh
    up, h = _start_unanswered(run, lambda: run.upload(spinning(1)))
    assert h.req == 1 and h.kind == "stream"
    run.cancel(h)
    assert not h.unknown
    with pytest.raises(km.EngineError, match="cancelled"):
        run.wait_engine(h, 10.0)
    # A RUN that was rejected: cancel learns it.
    zero, h = _start_unanswered(run, lambda: run.upload(bytes(LINE), kind="stream"))
    with pytest.raises(km.EngineRejected) as e:
        run.cancel(h)
    assert (e.value.reason_name, e.value.req) == ("req", 0)
    assert not h.unknown
    result = run.stop(timeout=5.0)
    assert result.error_name == "none"


def test_unknown_start_settled_by_stop(fresh):
    run = fresh
    up, h = _start_unanswered(run, lambda: run.upload(spinning(2)))
    result = run.stop(timeout=5.0)               # cancels it
    assert result.error_name == "none" and h.end.reason_name == "cancelled"


def test_unknown_start_that_ends_before_the_stop(fresh):
    run = fresh

    def halting():
        s = Stream(3)
        r = s.register()
        s.li(r, 7).halt(r)
        return run.upload(s)

    up, h = _start_unanswered(run, halting)
    assert run.wait_engine(h, 10.0).value == 7
    run.cancel(h)                                # ended: "nothing is sent"; settles what it must
    result = run.stop(timeout=1.0)
    assert result.error_name == "none"


def _cancel_unanswered(run):
    for _ in range(ATTEMPTS):
        up = run.upload(spinning(3))
        h = run.start(up)
        try:
            run.cancel(h, timeout=0)
        except km.EngineTimeout:
            with pytest.raises(km.EngineError, match="cancelled"):
                run.wait_engine(h, 10.0)  # the CANCEL did reach the kernel
            run.cancel(h)
            return
        _settle(run, h)
        run.release(up)
    pytest.skip(f"the kernel answered the CANCEL within 0 s {ATTEMPTS} times")


def _release_unanswered(run):
    for _ in range(ATTEMPTS):
        up = run.upload(counting_graph(6, keep=True))
        run.wait_engine(run.start(up, {"counter": 0, "limit": 1}), 10.0)
        try:
            run.release(up, timeout=0)
        except km.EngineTimeout:
            assert up.state == "kept" and run.uploads() == [up]  # not released
            time.sleep(0.01)
            run.release(up)  # the cancelled event has come by now: nothing more to send
            assert up.state == "released"
            return
    pytest.skip(f"the kernel answered the CANCEL within 0 s {ATTEMPTS} times")


def _restart_unanswered(run):
    up = run.upload(counting_graph(6, keep=True))
    run.wait_engine(run.start(up, {"counter": 0, "limit": 1}), 10.0)
    for _ in range(ATTEMPTS):
        try:
            h = run.restart(6, {"counter": 0, "limit": 2}, timeout=0)
        except km.EngineTimeout as e:
            assert e.handle.unknown
            assert run.wait_engine(e.handle, 10.0).registers == (2, 2)
            run.cancel(e.handle)
            return
        run.wait_engine(h, 10.0)
    pytest.skip(f"the kernel answered the RUN within 0 s {ATTEMPTS} times")


@pytest.mark.parametrize("case", ["cancel", "release", "restart"])
def test_an_unanswered_engine_command_leaves_the_run_stoppable(fresh, case):
    {"cancel": _cancel_unanswered, "release": _release_unanswered, "restart": _restart_unanswered}[case](fresh)
    result = fresh.stop(timeout=1.0)
    assert result.error_name == "none"


# ---------------------------------------------------------------------------
# Host waits and engine waits are separate


def test_host_waits_never_see_engine_events(run):
    s = Stream(50)
    i, out, more = s.register(), s.register(), s.register()
    top = s.here()
    s.submit(RESULT, group=(4, 4), args=[i], result=out).event(out)
    s.addi(i, i, 1).lti(more, i, 400).bnz(more, top)
    s.halt(i)
    up = run.upload(s)
    h = run.start(up)
    host = []
    seen = []
    for k in range(40):
        host.append(run.submit("result", group=(0, 2), args=[1000 + k], result=True))
        if k % 4 == 3:
            e = run.wait_any(host[-4:], timeout=10.0)
            assert e.handle in host[-4:] and e.kind == "done" and e.result == 2 * (1000 + host.index(e.handle))
            seen.append(e.handle)
    rest = [hd for hd in host if hd not in seen]  # wait_any forgot the ones it returned
    events = run.wait(rest, timeout=10.0)
    assert [e.handle for e in events] == rest
    assert [(e.kind, e.result) for e in events] == [("done", 2000 + 2 * host.index(hd)) for hd in rest]
    # More host commands, left unwaited while wait_engine reads the ring.
    late = [run.submit("result", group=(0, 4), args=[5000 + k], result=True) for k in range(10)]
    end = run.wait_engine(h, 10.0)
    assert end.value == 400
    assert values(h.events) == [("event", 2 * k) for k in range(400)] + [("end", 400)]
    late_events = run.wait(late, timeout=10.0)
    assert [(e.handle, e.kind, e.result) for e in late_events] == [(hd, "done", 10000 + 2 * k)
                                                                    for k, hd in enumerate(late)]
    assert run.drain(timeout=5.0) == 0  # the engine's 400 commands are not the host's
    run.release(up)


def test_engine_commands_share_the_one_sequence(run):
    a = run.submit(0, group=(0, 1))
    run.drain(timeout=5.0)
    first = run.sequence(a)
    assert first is not None
    h, end = finish(run, counting_stream(58), [0, 0, 0, 5])  # five SUBMITs
    b = run.submit(0, group=(0, 1))
    run.drain(timeout=5.0)
    assert run.sequence(b) == first + 6
    assert b == a + 1  # the host's handles count the host's commands only
    run.wait([a, b], timeout=5.0)


def test_concurrent_engines_get_their_own_events(run):
    ups, handles = [], []
    for req in (61, 62, 63, 64):
        s = Stream(req)
        i, v, more, out = (s.register() for _ in range(4))
        top = s.here()
        s.submit(RESULT, group=(req - 61, 1), args=[i], result=out)
        s.addi(v, out, req * 1000).event(v)
        s.addi(i, i, 1).lti(more, i, 50).bnz(more, top).halt(i)
        ups.append(run.upload(s))
    g = counting_graph(65)
    ups.append(run.upload(g))
    handles = [run.start(u) for u in ups[:4]] + [run.start(ups[4], {"counter": 0, "limit": 30})]
    for h in handles:
        assert run.wait_engine(h, 10.0).kind == "end"
    for req, h in zip((61, 62, 63, 64), handles):
        assert values(h.events) == [("event", req * 1000 + 2 * k) for k in range(50)] + [("end", 50)]
    assert values(handles[4].events) == [("round", k) for k in range(1, 30)] + [("end", 58)]
    for u in ups:
        run.release(u)


# ---------------------------------------------------------------------------
# run_hostfed


def test_hostfed_graph_matches_the_card(run):
    g = counting_graph(51)
    bindings = {"counter": 2, "limit": 7}
    h, end = finish(run, g, bindings)
    hf = run.run_hostfed(g, bindings, timeout=10.0)
    assert isinstance(hf, HostfedResult)
    assert (hf.status, hf.error, hf.runs) == ("end", None, 5)
    assert (hf.registers[0] & 0xFFFFFF, hf.registers[1]) == end.registers == (7, 12)
    assert hf.registers[:3] == [7, 12, 7]
    assert [(e.kind, e.value, e.registers) for e in hf.events] == [(e.kind, e.value, e.registers) for e in h.events]
    assert hf.events == h.events
    assert [(c.node, c.handler, c.group, c.args, c.result) for c in hf.commands] == [
        (0, RESULT, (1, 2), [k], 2 * k) for k in range(2, 7)]
    assert all(isinstance(c.handle, int) and c.handle > 0 for c in hf.commands)
    # Raw words and a raw-bytes graph give the same.
    words = g.binding_values(bindings)
    assert run.run_hostfed(g.encode(), words).registers == hf.registers


def test_hostfed_stream_matches_the_card(run):
    s = counting_stream(52)
    h, end = finish(run, s, [0, 0, 0, 3])
    hf = run.run_hostfed(s, [0, 0, 0, 3])
    assert (hf.status, hf.error, hf.runs) == ("end", None, 1)
    assert hf.events == h.events and values(hf.events) == [("event", 0), ("event", 2), ("event", 4), ("end", 3)]
    assert hf.registers[:4] == [3, 4, 0, 3]
    assert [(c.node, c.handler, c.group, c.args, c.result) for c in hf.commands] == [
        (2, RESULT, (2, 3), [k], 2 * k) for k in range(3)]  # the SUBMIT's pc, after LI's two words
    assert hf.events[-1].value == end.value


def test_hostfed_errors(run):
    hf = run.run_hostfed(Stream(53).nop())
    assert (hf.status, hf.error) == ("error", "pc")
    assert [(e.kind, e.reason_name, e.pc) for e in hf.events] == [("error", "pc", 1)]
    hf = run.run_hostfed(counting_graph(54, max_runs=1), {"counter": 0, "limit": 3})
    assert (hf.status, hf.error, hf.runs) == ("error", "runs", 1)
    assert len(hf.commands) == 1
    hf = run.run_hostfed(patched(counting_graph(55).encode(), HEADER + K["KM_NODE_HANDLER"], lambda w: 250), [0])
    assert (hf.status, hf.error, hf.commands) == ("error", "handler", [])
    assert [(e.kind, e.node) for e in hf.events] == [("error", 0)]


def test_hostfed_leaves_the_host_ring_usable(run):
    hf = run.run_hostfed(counting_stream(56), [0, 0, 0, 20])
    assert len(hf.commands) == 20
    handle = run.submit("result", group=(0, 1), args=[4], result=True)
    assert run.wait(handle, timeout=5.0).result == 8
    assert handle > max(c.handle for c in hf.commands)


# ---------------------------------------------------------------------------
# Event room


def test_event_room_with_a_small_event_ring(session):
    run = session.load(basic_program(), event_depth=8, host_depth=8)
    s = Stream(4)
    i, more = s.register(), s.register()
    top = s.here()
    s.event(i).addi(i, i, 1).lti(more, i, 300).bnz(more, top)
    s.halt(i)
    h = run.start(run.upload(s))
    host = [run.submit(0, group=(0, CORES)) for _ in range(20)]
    assert [e.kind for e in run.wait(host, timeout=10.0)] == ["done"] * 20
    end = run.wait_engine(h, 10.0)
    assert end.value == 300
    assert values(h.events) == [("event", k) for k in range(300)] + [("end", 300)]
    result = run.stop()
    assert result.error_name == "none"


def test_event_repr_and_equality(run):
    h, end = finish(run, counting_stream(57), [0, 0, 0, 1])
    assert repr(end) == "EngineEvent(kind='end', value=1, registers=(1, 1))"
    assert repr(h.events[0]) == "EngineEvent(kind='event', value=0)"
    assert end == EngineEvent(None, "end", 1, (1, 1), None, None, None, None)
    assert end != h.events[0]
    assert "EngineHandle(kind='stream', req=57, end" in repr(h)
    assert isinstance(h.upload, Upload) and "state='released'" in repr(h.upload)


def test_error_names_come_from_the_header():
    """The KM_STREAM_ERROR_* names (docs/engines.md's table), read from engine_abi.h."""
    from tessel.dispatch.engines import ERROR_NAMES

    assert ERROR_NAMES == {0: "none", 1: "header", 2: "opcode", 3: "pc", 4: "register", 5: "handler", 6: "group",
                           7: "args", 8: "steps", 9: "deadline", 10: "cancelled", 11: "flags", 12: "runs", 13: "node",
                           14: "bindings", 15: "timeout"}
