"""tessel.dispatch's streams (spec: Engines; tessel/engine_abi.h): ALU,
branches, SUBMIT with a result, ENQUEUE and WAIT, groups from registers,
queued commands, TICKS, EVENT, HALT and the pc of every error.
"""

import time

import pytest
import tessel.dispatch as km
from tessel.dispatch.engines import ERROR_NAMES, OPS, EngineHandle, Stream

from .engines_common import *  # noqa: F401,F403 - the helpers, constants and fixtures

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
            expected += [alu_reference(name, a, b)] * 3
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


