"""tessel.dispatch.Run (spec: persistent-dispatch-host-api, Run): submit by
name and number, groups, submit_many, wait / wait_any / drain, the event,
sequence and group of a handle before and after, forget, result words,
queued and exclusive commands, stop's result block, the cores' state words,
the trace and the host's timing, on a 4 x 2 Blackhole device and the C++
tests' basic program."""


import time

import numpy as np
import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch import abi

from .common import ROOT, BASIC, BASIC_HEADER, GRID, CORES, K  # noqa: F401



@pytest.fixture
def session():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        yield s
        s.close()


def basic_program(depth=4):
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER),
                      depth=depth)


@pytest.fixture
def run(session):
    r = session.load(basic_program())
    yield r
    if not r.stopped:
        r.stop()  # a stop, not the session's abort at its close


def cores(first, count):
    return {(c % GRID[0], c // GRID[0]) for c in range(first, first + count)}


def fill_target(session):
    """A uint32 DRAM tensor of one 64-byte page per core (the fill handler's target)."""
    return session.empty((CORES, 16), "uint32")


def filled(value, pages=CORES):
    return np.repeat((value + np.arange(pages, dtype=np.uint32))[:, None], 16, axis=1)


# ---------------------------------------------------------------------------
# submit


def test_submit_by_name_and_by_number(run):
    by_name = run.submit("result", group=(3, 4), args=[21], result=True)
    by_number = run.submit(3, group=(3, 4), args=[21], result=True)
    assert (by_name, by_number) == (1, 2)
    a, b = run.wait([by_name, by_number], timeout=5.0)
    for e, h in ((a, by_name), (b, by_number)):
        assert (e.handle, e.kind, e.auxiliary, e.result) == (h, "done", 3, 42)  # the leader: 21 * 2 + index 0
    assert run.wait(run.submit("nop", group=(0, 1)), timeout=5.0).kind == "done"
    assert run.wait(run.submit("NOP", group=(7, 1)), timeout=5.0).auxiliary == 7
    assert run.stop().commands == 4


def test_the_default_group_is_every_core(session):
    out = fill_target(session)
    run = session.load(basic_program())
    h = run.submit("fill", args=[out.address, 64, 1000])
    assert run.group(h) == (0, CORES)
    e = run.wait(h, timeout=5.0)
    assert (e.kind, e.auxiliary) == ("done", 0)
    run.stop()
    np.testing.assert_array_equal(out.read(), filled(1000))  # page = the core's index in the group
    words = run.state_words()
    assert list(words[:, K["KM_WORD_TAKEN"]]) == [1] * CORES


def test_a_group_runs_on_its_cores_only(session):
    out = fill_target(session)
    out.write(np.zeros((CORES, 16), np.uint32))
    run = session.load(basic_program())
    run.wait(run.submit("fill", group=(5, 3), args=[out.address, 64, 70]), timeout=5.0)
    run.stop()
    got = out.read()
    np.testing.assert_array_equal(got[:3], filled(70, 3))  # pages 0..2: indices in the group
    assert not got[3:].any()
    taken = run.state_words()[:, K["KM_WORD_TAKEN"]]
    assert list(taken) == [0, 0, 0, 0, 0, 1, 1, 1]


def test_submit_many_returns_a_range_and_takes_an_args_matrix(session):
    outs = [fill_target(session) for _ in range(3)]
    run = session.load(basic_program())
    first = run.submit(0)
    handles = run.submit_many("fill", 0, CORES, args=[[t.address, 64, 10 * (i + 1)] for i, t in enumerate(outs)])
    assert handles == range(first + 1, first + 4)
    events = run.wait(handles, timeout=5.0)
    assert [(e.handle, e.kind) for e in events] == [(h, "done") for h in handles]
    nops = run.submit_many(0, [0, 2, 5], [2, 1, 3])  # firsts and counts one each per command
    assert nops == range(5, 8)
    assert [e.auxiliary for e in run.wait(nops, timeout=5.0)] == [0, 2, 5]
    same = run.submit_many("nop", 4, 1, args=np.zeros((4, 10), np.uint32))  # one first, one count, n from args
    assert len(same) == 4 and [e.auxiliary for e in run.wait(same, timeout=5.0)] == [4] * 4
    assert run.submit_many(0, [], []) == range(12, 12)  # nothing
    run.stop()
    for i, t in enumerate(outs):
        np.testing.assert_array_equal(t.read(), filled(10 * (i + 1)))


def test_submit_many_takes_a_handler_per_command(run):
    handles = run.submit_many([0, "result"], [0, 4], 1)
    assert [e.kind for e in run.wait(handles, timeout=5.0)] == ["done", "done"]


# ---------------------------------------------------------------------------
# wait, wait_any, drain


def test_wait_returns_an_event_for_one_handle_and_a_list_for_several(run):
    h = run.submit(0)
    e = run.wait(h, timeout=5.0)
    assert isinstance(e, km.Event) and e.handle == h and e.kind == "done" and e.result is None
    assert e.ticks > 0 and e.microseconds == e.ticks / 50
    many = [run.submit(0, group=(i, 1)) for i in range(3)]
    events = run.wait(many, timeout=5.0)
    assert isinstance(events, list) and [x.handle for x in events] == many
    assert [x.auxiliary for x in events] == [0, 1, 2]
    one = run.wait([run.submit(0)], timeout=5.0)  # a list of one is a list
    assert isinstance(one, list) and len(one) == 1
    assert isinstance(run.wait(np.int64(run.submit(0)), timeout=5.0), km.Event)
    t = tuple(run.submit(0) for _ in range(2))
    assert [x.handle for x in run.wait(t, timeout=5.0)] == list(t)
    assert run.wait([], timeout=5.0) == []
    assert repr(e) == f"Event(handle={h}, kind='done', auxiliary=0, ticks={e.ticks})"


def test_wait_forgets_the_handles(run):
    h = run.submit(0, group=(2, 2))
    assert run.wait(h, timeout=5.0).kind == "done"
    assert (run.event(h), run.sequence(h), run.group(h)) == (None, None, None)
    with pytest.raises(tessel.ValidationError, match=f"^Run.wait: handle {h} is not a command of this run$"):
        run.wait(h, timeout=1.0)


def test_wait_any_returns_the_lowest_arrived(run):
    a, b, c = (run.submit(0, group=(i, 2)) for i in range(3))
    assert run.drain(timeout=5.0) == 3
    e = run.wait_any([c, a, b], timeout=5.0)
    assert e.handle == a
    assert run.event(a) is None and run.event(b).handle == b  # only that handle is forgotten
    assert run.wait_any([c, b], timeout=5.0).handle == b
    assert run.wait_any([c], timeout=5.0).handle == c


def test_wait_any_returns_the_one_that_arrived(session):
    run = session.load(basic_program(), deadline=30.0)
    stuck = run.submit("spin", group=(0, 1))  # never completes
    ok = run.submit(0, group=(1, 7))
    e = run.wait_any([stuck, ok], timeout=5.0)
    assert (e.handle, e.kind, e.auxiliary) == (ok, "done", 1)
    assert run.event(stuck) is None and not run.stopped
    assert run.abort().abandoned == [stuck]


def test_drain_counts_the_events_it_waited_for(run):
    assert run.drain(timeout=5.0) == 0
    handles = [run.submit(0, group=(i % CORES, 1)) for i in range(5)]
    assert run.drain(timeout=5.0) == 5
    assert run.drain(timeout=5.0) == 0
    assert [run.event(h).kind for h in handles] == ["done"] * 5  # drain keeps the events
    assert run.wait(handles, timeout=5.0)[4].handle == handles[4]  # and wait still hands them out
    many = run.submit_many(0, 0, 1, args=np.zeros((200, 1), np.uint32))  # more than the event ring holds
    assert run.drain(timeout=10.0) == 200
    assert all(run.event(h).kind == "done" for h in many)


# ---------------------------------------------------------------------------
# A handle's event, sequence and group; forget


def test_event_sequence_and_group_before_and_after(run):
    a = run.submit(0, group=(1, 3))
    b = run.submit("result", group=(4, 4), args=[5], result=True)
    assert (run.event(a), run.sequence(a), run.group(a)) == (None, None, (1, 3))  # queued, no event yet
    assert (run.event(b), run.sequence(b), run.group(b)) == (None, None, (4, 4))
    assert run.drain(timeout=5.0) == 2
    ea, eb = run.event(a), run.event(b)
    assert (ea.handle, ea.kind, ea.auxiliary, ea.result) == (a, "done", 1, None)
    assert (eb.handle, eb.kind, eb.auxiliary, eb.result) == (b, "done", 4, 10)
    assert (run.sequence(a), run.sequence(b)) == (0, 1)  # the kernel numbers commands from 0
    assert (run.group(a), run.group(b)) == ((1, 3), (4, 4))
    assert run.event(99) is None and run.sequence(99) is None and run.group(99) is None


def test_forget(run):
    a, b = run.submit(0), run.submit(0)
    run.drain(timeout=5.0)
    run.forget([a])
    assert (run.event(a), run.sequence(a), run.group(a)) == (None, None, None)
    assert run.event(b).handle == b and run.sequence(b) == 1
    run.forget(range(b, b + 1))
    assert run.event(b) is None
    pending = run.submit(0)
    run.forget([pending])  # no event yet: kept
    assert run.wait(pending, timeout=5.0).handle == pending
    run.forget([a, 99])  # forgotten or unknown handles: nothing to do
    assert run.stop().clean


def test_a_traced_run_keeps_groups_and_sequences(session):
    run = session.load(basic_program(), trace=16)
    h = run.submit(0, group=(2, 3))
    run.wait(h, timeout=5.0)
    assert (run.sequence(h), run.group(h)) == (0, (2, 3))
    run.stop()
    assert set(run.trace().command(h)) == cores(2, 3)


# ---------------------------------------------------------------------------
# Flags: result, queued, exclusive


def test_result_word(run):
    with_result = run.submit("result", group=(2, 3), args=[100], result=True)
    plain = run.submit("result", group=(2, 3), args=[100])
    nop = run.submit(0, result=True)  # NOP sets no word: 0
    a, b, c = run.wait([with_result, plain, nop], timeout=5.0)
    assert (a.result, a.ticks, a.microseconds) == (200, 200, 4.0)  # the word stands in for the time
    assert b.result is None and b.ticks > 0
    assert c.result == 0
    assert repr(a) == f"Event(handle={with_result}, kind='done', auxiliary=2, ticks=200, result=200)"


def test_queued_command_group_is_known_at_its_done_event(session):
    run = session.load(basic_program(depth=8))
    handles = [run.submit(0, group=3, queued=True) for _ in range(4)]
    assert [run.group(h) for h in handles] == [(None, 3)] * 4
    assert run.drain(timeout=5.0) == 4
    for h in handles:
        first, count = run.group(h)
        e = run.event(h)
        assert count == 3 and e.kind == "done"
        assert first == e.auxiliary and 0 <= first <= CORES - 3
        assert run.sequence(h) is not None
    assert run.group(handles[0]) == (0, 3)  # nothing else was busy: the lowest group
    assert run.stop().clean


def test_queued_command_waits_for_room(session):
    run = session.load(basic_program(), trace=16)
    wide = run.submit(0, group=(0, CORES))
    queued = run.submit(0, group=CORES, queued=True)  # needs the whole grid: after `wide`
    run.wait([wide, queued], timeout=5.0)
    assert run.group(queued) == (0, CORES)
    run.stop()
    assert run.trace().lead(wide, queued) <= 0


def test_exclusive_command_waits_for_the_cores_it_shares(session):
    """An exclusive command is submitted only once its cores are free: each
    core of it takes it after every core of it finished the earlier command;
    without the flag the cores take it as they come."""
    gaps = {}
    for exclusive in (False, True):
        run = session.load(basic_program(), trace=64)
        # The writer's result handler: a command the cores run (a NOP on an idle core the card serves itself).
        pairs = [(run.submit("result", group=(0, CORES), args=[1]),
                  run.submit("result", group=(4, 4), args=[1], exclusive=exclusive)) for _ in range(8)]
        run.wait([h for p in pairs for h in p], timeout=5.0)
        assert run.stop().clean
        trace = run.trace()
        gaps[exclusive] = []
        for a, b in pairs:
            ta, tb = trace.command(a), trace.command(b)
            gaps[exclusive].append(min(v["taken"] for v in tb.values()) - max(ta[c]["written"] for c in tb))
            if exclusive:
                assert trace.lead(a, b) <= 0
    assert min(gaps[True]) >= 0
    assert min(gaps[False]) < 0


def test_exclusive_command_waits_for_every_overlapping_command(session):
    run = session.load(basic_program(), trace=64)
    pairs = [(run.submit("result", group=(0, 6), args=[1]),
              run.submit("result", group=(2, 6), args=[1], exclusive=True)) for _ in range(10)]
    run.wait([h for p in pairs for h in p], timeout=5.0)
    run.stop()
    trace = run.trace()
    assert [trace.lead(a, b) <= 0 for a, b in pairs] == [True] * 10


# ---------------------------------------------------------------------------
# stop, state, trace, timing


def test_stop_result_fields(run):
    run.wait([run.submit(0), run.submit("result", group=(1, 1), args=[3], result=True)], timeout=5.0)
    run.submit(0, group=(6, 2))  # the stop drains it
    result = run.stop()
    assert isinstance(result, km.Result)
    assert (result.ready, result.state, result.error, result.error_name, result.message) == (
        True, K["KM_STATE_DONE"], K["KM_ERROR_NONE"], "none", "")
    assert (result.commands, result.events, result.rejected) == (3, 3, 0)
    assert (result.error_slot, result.error_sequence, result.cluster0_restored, result.abandoned) == (0, 0, True, [])
    assert result.clean
    assert repr(result) == "Result(state=5, error='none', commands=3, events=3, abandoned=0)"
    assert run.stopped
    again = run.stop()  # a second stop returns the same block
    assert vars(again) == vars(result) and vars(run.result()) == vars(result)
    with pytest.raises(tessel.ValidationError, match="^Run.submit: the run is stopped; load the program again$"):
        run.submit(0)


def test_state_by_core(run):
    run.wait(run.submit(0), timeout=5.0)  # sequence 0 on every core
    run.wait(run.submit("result", group=(2, 2), args=[1]), timeout=5.0)  # sequence 1 on cores 2, 3
    run.wait(run.submit("count", group=(3, 1)), timeout=5.0)  # sequence 2 on core 3
    run.stop()
    state = run.state()
    assert set(state) == cores(0, CORES)
    for core, s in state.items():
        index = core[1] * GRID[0] + core[0]
        taken = 1 + (index in (2, 3)) + (index == 3)
        assert (s["taken"], s["done"], s["pass"]) == (taken, taken, taken + 1), core  # + the EXIT pass
        assert (s["phase"], s["ready"], s["stop"], s["gave_up"], s["gave_up_w"]) == ("exited", 1, 0, 0, 0), core
        assert s["sequence"] == taken - 1 and s["handler"] == [0, 3, 5][taken - 1], core
        assert (s["ports"], s["broadcasts"]) == ([], [])


def test_state_words(run):
    run.wait(run.submit(0, group=(1, 2)), timeout=5.0)
    run.stop()
    words = run.state_words()
    assert words.shape == (CORES, K["KM_STATE_WORDS"]) and words.dtype == np.uint32
    assert list(words[:, K["KM_WORD_TAKEN"]]) == [0, 1, 1, 0, 0, 0, 0, 0]
    assert list(words[:, K["KM_WORD_PHASE"]]) == [K["KM_PHASE_EXITED"]] * CORES
    assert list(words[:, K["KM_WORD_READY"]]) == [1] * CORES
    state = run.state()
    for i in range(CORES):
        assert state[(i % GRID[0], i // GRID[0])]["taken"] == words[i, K["KM_WORD_TAKEN"]]


def test_state_and_trace_are_read_after_the_stop(run):
    with pytest.raises(tessel.ValidationError, match="^Run.state_words: the state words are read after the stop$"):
        run.state_words()
    with pytest.raises(ValueError, match=r"^Run.trace: the trace is read after run.stop\(\)$"):
        run.trace()
    run.stop()
    assert run.state_words().shape == (CORES, K["KM_STATE_WORDS"])


def test_trace_of_a_traced_run(session):
    run = session.load(basic_program(), trace=4)
    a = run.submit(0, group=(0, CORES), exclusive=True)
    b = run.submit(0, group=(2, 4), exclusive=True)
    c = run.submit(0, group=(5, 3))
    run.wait([a, b, c], timeout=5.0)
    later = [run.submit(0, group=(0, 1)) for _ in range(2)]  # sequences 3 and 4: 4 is beyond trace=4
    run.wait(later, timeout=5.0)
    # wait() forgot their events; the trace keeps their groups and sequences.
    assert [run.event(h) for h in (a, b, c)] == [None] * 3
    assert [run.sequence(h) for h in (a, b, c)] == [0, 1, 2] and run.group(b) == (2, 4)
    with pytest.raises(tessel.ValidationError, match=f"^Run.wait: handle {a} was forgotten already "):
        run.wait(a, timeout=1.0)
    run.stop()
    trace = run.trace()
    assert isinstance(trace, km.Trace)
    for h, (first, count) in ((a, (0, CORES)), (b, (2, 4)), (c, (5, 3))):
        entries = trace.command(h)
        assert set(entries) == cores(first, count)
        leader = (first % GRID[0], first // GRID[0])
        for core, e in entries.items():
            assert set(e) == {"taken", "written", "sent", "passes"}
            assert 0 < e["taken"] <= e["written"], (h, core)
            assert e["passes"] >= 1
            assert e["sent"] >= e["written"], (h, core)  # every core sends its completion
        phases = trace.phases(h)
        assert set(phases) == set(entries)
        assert min(p["taken"] for p in phases.values()) == 0.0
        assert all(p["written"] >= p["taken"] >= 0 for p in phases.values())
        assert all(set(p) == {"taken", "written", "sent"} for p in phases.values())
        assert phases[leader]["sent"] == (entries[leader]["sent"] - min(e["taken"] for e in entries.values())) / 50
    assert trace.lead(a, b) <= 0  # exclusive: b's cores took it after a completed
    assert trace.command(later[0]) != {} and trace.command(later[1]) == {}
    assert trace.phases(later[1]) == {} and trace.lead(a, later[1]) is None


def test_forget_in_a_traced_run_releases_events_and_keeps_the_trace(session):
    run = session.load(basic_program(), trace=4)
    handles = [run.submit(0, group=(i, 2)) for i in range(3)]
    assert run.drain(timeout=5.0) == 3
    assert all(run.event(h).kind == "done" for h in handles)
    run.forget(handles)
    assert [run.event(h) for h in handles] == [None] * 3  # released, as in an untraced run
    assert [run.sequence(h) for h in handles] == [0, 1, 2]  # kept for the trace
    run.stop()
    assert [set(run.trace().command(h)) for h in handles] == [cores(i, 2) for i in range(3)]


@pytest.mark.parametrize("event_depth", [1, 2, 16])
def test_a_small_event_ring_does_not_wait_for_a_timer(session, event_depth):
    # The host reads an event, which makes room for the next command: it must
    # store it then, not after a park that only a timer ends (10 ms each).
    run = session.load(basic_program(), event_depth=event_depth)
    t0 = time.monotonic()
    handles = [run.submit(0, group=(i % CORES, 1)) for i in range(100)]
    assert run.drain(timeout=10.0) == 100
    elapsed = time.monotonic() - t0
    assert all(run.event(h).kind == "done" for h in handles)
    assert elapsed < 0.5, f"100 commands took {elapsed:.3f} s"  # 1 s or more when each waits for the timer
    run.stop()


def test_timing(run):
    assert (run.submit_s, run.wait_s, run.native_s) == (0.0, 0.0, 0.0)
    handles = [run.submit(0, group=(i % CORES, 1)) for i in range(50)]
    after_submit = run.submit_s
    assert after_submit > 0 and run.wait_s == 0.0
    run.submit_many(0, 0, 1, args=np.zeros((50, 1), np.uint32))
    assert run.submit_s > after_submit  # submit_many counts too
    run.wait(handles, timeout=5.0)
    after_wait = run.wait_s
    assert after_wait > 0 and 0 < run.native_s <= after_wait
    run.drain(timeout=5.0)
    assert run.wait_s > after_wait  # drain counts too
    assert 0 < run.native_s <= run.wait_s


# ---------------------------------------------------------------------------
# Every scheduling policy


@pytest.mark.parametrize("policy", ["deterministic", "random:1", "random:7", "random:1234", "parallel:2", "parallel:3"])
def test_commands_complete_under_every_policy(policy):
    """The cores' fibers in another order each time: every command still
    completes, on its group, with its data and its leader's word."""
    with tessel.Device.open(arch="blackhole", grid=GRID, policy=policy) as d, km.Session(device=d) as s:
        outs = [s.empty((CORES, 16), "uint32") for _ in range(4)]
        run = s.load(basic_program(depth=8), trace=64)
        fills = run.submit_many("fill", [0, 2, 4, 6], 2, args=[[t.address, 64, 100 * i] for i, t in enumerate(outs)])
        words = [run.submit("result", group=(i, CORES - i), args=[i], result=True) for i in range(4)]
        queued = [run.submit("count", group=2, queued=True) for _ in range(6)]
        exclusive = run.submit("result", group=(0, CORES), args=[9], exclusive=True, result=True)
        events = run.wait([*fills, *words, *queued, exclusive], timeout=10.0)
        assert [e.kind for e in events] == ["done"] * len(events)
        assert [e.auxiliary for e in events[:4]] == [0, 2, 4, 6]
        assert [e.result for e in events[4:8]] == [0, 2, 4, 6]  # arg * 2 + the leader's index 0
        assert all(0 <= e.auxiliary <= CORES - 2 for e in events[8:14])
        assert events[14].result == 18
        assert run.stop().clean
        trace = run.trace()
        assert all(trace.lead(w, exclusive) <= 0 for w in words)  # the exclusive command overlaps them all
        for i, t in enumerate(outs):
            np.testing.assert_array_equal(t.read()[:2], filled(100 * i, 2))
        assert int(run.state_words()[:, K["KM_WORD_TAKEN"]].sum()) == 2 * 4 + sum(CORES - i for i in range(4)) + 12 + 8
