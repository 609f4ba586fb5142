"""tessel.dispatch's engines on a run (spec: Engines): the upload region
(lines side by side, the first free place, too big, kept=), the kernel's
rejections, cancel and unknown handles, the separation of the host's waits
from the engines', run_hostfed against the card, stop and a small event ring.
"""

import time

import pytest
import tessel
import tessel.dispatch as km
from tessel.dispatch.engines import ERROR_NAMES, EngineEvent, EngineHandle, Graph, HostfedResult, Stream, Upload

from .engines_common import *  # noqa: F401,F403 - the helpers, constants and fixtures

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

