"""Bad input to a persistent run (tessel.dispatch: Session.load, Run.submit,
submit_many, wait, wait_any, drain and the handle queries): each case raises
its exact message, naming the call, the argument and what was expected, and
queues nothing: the next command gets the next handle."""

import pathlib

import numpy as np
import pytest

import tessel
import tessel.dispatch as km

ROOT = pathlib.Path(__file__).resolve().parents[3]
BASIC = ROOT / "tests" / "dispatch" / "kernels" / "basic"
BASIC_HEADER = ROOT / "tests" / "dispatch" / "kernels" / "basic.hpp"
GRID = (4, 2)  # 8 cores
HANDLE = "an integer (1..9223372036854775807)"


def basic_program():
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER))


@pytest.fixture(scope="module")
def loaded():
    """One run for every case: a refused call leaves it as it was."""
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        run = s.load(basic_program())
        yield run
        assert run.stop().rejected == 0  # nothing bad ever reached the kernel
        s.close()


@pytest.fixture
def session():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        yield s
        s.close()


@pytest.fixture
def fresh(session):
    """A run of its own, for cases that are bugs today (they may queue): stopped, not aborted, at the end."""
    run = session.load(basic_program())
    yield run
    if not run.stopped:
        run.stop()


def refused(run, exc, call, text):
    """`call` raises exc(text) and queues nothing."""
    before = run.submit(0, group=(0, 1))
    run.wait(before, timeout=5.0)
    with pytest.raises(exc) as e:
        call()
    assert type(e.value) is exc or isinstance(e.value, exc)
    assert str(e.value) == text
    after = run.submit(0, group=(0, 1))
    assert after == before + 1
    run.wait(after, timeout=5.0)


SUBMIT = [
    # handler
    ("handler-240", ValueError, lambda r: r.submit(240), "Run.submit: handler must be an integer (0..239), got 240"),
    ("handler-negative", ValueError, lambda r: r.submit(-1), "Run.submit: handler must be an integer (0..239), got -1"),
    ("handler-unknown-number", km.ProgramError, lambda r: r.submit(7), "Program 'basic' has no handler number 7"),
    ("handler-unknown-name", km.ProgramError, lambda r: r.submit("map"),
     "Program 'basic' has no handler 'map' (it has: fill, spin, result, fault, count, nap)"),
    ("handler-bool", TypeError, lambda r: r.submit(True),
     "Run.submit: handler must be an integer (0..239), got True (bool)"),
    ("handler-float", TypeError, lambda r: r.submit(1.0),
     "Run.submit: handler must be an integer (0..239), got 1.0 (float)"),
    ("handler-none", TypeError, lambda r: r.submit(None),
     "Run.submit: handler must be an integer (0..239), got None (NoneType)"),
    # group
    ("group-int", TypeError, lambda r: r.submit(0, group=5),
     "Run.submit: group must be (first, count) or None, got 5 (int)"),
    ("group-three", TypeError, lambda r: r.submit(0, group=(0, 1, 2)),
     "Run.submit: group must be (first, count) or None, got (0, 1, 2) (tuple)"),
    ("group-str", TypeError, lambda r: r.submit(0, group="ab"),
     "Run.submit: group must be (first, count) or None, got 'ab' (str)"),
    ("group-outside", ValueError, lambda r: r.submit(0, group=(7, 2)),
     "Run.submit: group (7, 2) does not lie inside the 8 cores"),
    ("group-count-0", ValueError, lambda r: r.submit(0, group=(0, 0)),
     "Run.submit: group's count must be an integer (1..8), got 0"),
    ("group-count-9", ValueError, lambda r: r.submit(0, group=(0, 9)),
     "Run.submit: group's count must be an integer (1..8), got 9"),
    ("group-first-8", ValueError, lambda r: r.submit(0, group=(8, 1)),
     "Run.submit: group's first core must be an integer (0..7), got 8"),
    ("group-first-negative", ValueError, lambda r: r.submit(0, group=[-1, 1]),
     "Run.submit: group's first core must be an integer (0..7), got -1"),
    ("group-first-float", TypeError, lambda r: r.submit(0, group=(0.0, 1)),
     "Run.submit: group's first core must be an integer (0..7), got 0.0 (float)"),
    # args
    ("args-eleven", ValueError, lambda r: r.submit(0, args=list(range(11))),
     "Run.submit: 11 args: a command carries at most ten words"),
    ("args-negative", ValueError, lambda r: r.submit(0, args=[1, -1]),
     "Run.submit: args[1] must be an integer word (0..4294967295), got -1"),
    ("args-33-bits", ValueError, lambda r: r.submit(0, args=[1 << 32]),
     "Run.submit: args[0] must be an integer word (0..4294967295), got 4294967296"),
    ("args-float", TypeError, lambda r: r.submit(0, args=[1.5]),
     "Run.submit: args[0] must be an integer word (0..4294967295), got 1.5 (float)"),
    ("args-str", TypeError, lambda r: r.submit(0, args="ab"),
     "Run.submit: args must be a sequence of at most ten integer words, got 'ab' (str)"),
    # flags
    ("exclusive-int", TypeError, lambda r: r.submit(0, exclusive=1),
     "Run.submit: exclusive must be True or False, got 1 (int)"),
    ("result-str", TypeError, lambda r: r.submit(0, result="yes"),
     "Run.submit: result must be True or False, got 'yes' (str)"),
    ("queued-none", TypeError, lambda r: r.submit(0, queued=True),
     "Run.submit: group (a core count for queued=True) must be an integer (1..8), got None (NoneType)"),
    ("queued-pair", TypeError, lambda r: r.submit(0, group=(0, 2), queued=True),
     "Run.submit: group (a core count for queued=True) must be an integer (1..8), got (0, 2) (tuple)"),
    ("queued-0", ValueError, lambda r: r.submit(0, group=0, queued=True),
     "Run.submit: group (a core count for queued=True) must be an integer (1..8), got 0"),
    ("queued-9", ValueError, lambda r: r.submit(0, group=9, queued=True),
     "Run.submit: group (a core count for queued=True) must be an integer (1..8), got 9"),
    ("queued-exclusive", tessel.ValidationError, lambda r: r.submit(0, group=2, queued=True, exclusive=True),
     "Run.submit: a queued command cannot be exclusive"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in SUBMIT], ids=[c[0] for c in SUBMIT])
def test_submit(loaded, exc, call, text):
    refused(loaded, exc, lambda: call(loaded), text)


@pytest.mark.parametrize("args", [5, None],
                         ids=["int", "none"])
def test_submit_args_not_a_list(fresh, args):
    run = fresh
    with pytest.raises(TypeError) as e:
        run.submit(0, args=args)
    assert str(e.value).startswith("Run.submit: args must be ")


SUBMIT_MANY = [
    ("lengths", ValueError, lambda r: r.submit_many(0, [0, 1], [1, 1, 1]),
     "Run.submit_many: firsts has 2 values: expected 1 or 3"),
    ("counts-length", ValueError, lambda r: r.submit_many(0, [0, 1, 2], [1, 1]),
     "Run.submit_many: counts has 2 values: expected 1 or 3"),
    ("args-rows", tessel.ValidationError, lambda r: r.submit_many(0, [0, 1, 2], 1, args=[[1], [2]]),
     "Run.submit_many: args has 2 values: expected 3 x 1"),
    ("firsts-2d", ValueError, lambda r: r.submit_many(0, [[0, 1]], 1),
     "Run.submit_many: firsts and counts must be one value or a 1-D sequence each"),
    ("firsts-negative", ValueError, lambda r: r.submit_many(0, [0, -1], 1),
     "Run.submit_many: firsts must be non-negative core numbers"),
    ("firsts-33-bits", ValueError, lambda r: r.submit_many(0, [1 << 33], 1),
     "Run.submit_many: firsts must be non-negative core numbers"),
    ("counts-negative", ValueError, lambda r: r.submit_many(0, 0, [-2]),
     "Run.submit_many: counts must be non-negative core numbers"),
    ("group-outside", tessel.ValidationError, lambda r: r.submit_many(0, [0, 7], 2),
     "Run.submit_many: command 1: group (7, 2) does not lie inside the 8 cores"),
    ("count-0", tessel.ValidationError, lambda r: r.submit_many(0, [0, 1], 0),
     "Run.submit_many: command 0: group (0, 0) does not lie inside the 8 cores"),
    ("first-8", tessel.ValidationError, lambda r: r.submit_many(0, [1, 8], 1),
     "Run.submit_many: command 1: group (8, 1) does not lie inside the 8 cores"),
    ("args-1d", ValueError, lambda r: r.submit_many(0, 0, 1, args=[1, 2]),
     "Run.submit_many: args must be an [n, m] integer matrix with m <= 10, got shape (2,) of int64"),
    ("args-11-columns", ValueError, lambda r: r.submit_many(0, 0, 1, args=np.zeros((2, 11), np.int64)),
     "Run.submit_many: args must be an [n, m] integer matrix with m <= 10, got shape (2, 11) of int64"),
    ("args-float", ValueError, lambda r: r.submit_many(0, 0, 1, args=np.zeros((2, 1))),
     "Run.submit_many: args must be an [n, m] integer matrix with m <= 10, got shape (2, 1) of float64"),
    ("args-bool", ValueError, lambda r: r.submit_many(0, 0, 1, args=np.zeros((1, 1), bool)),
     "Run.submit_many: args must be an [n, m] integer matrix with m <= 10, got shape (1, 1) of bool"),
    ("args-negative", ValueError, lambda r: r.submit_many(0, 0, 1, args=[[3, -1]]),
     "Run.submit_many: args must be 32-bit words (0 .. 4294967295)"),
    ("args-33-bits", ValueError, lambda r: r.submit_many(0, 0, 1, args=[[1 << 32]]),
     "Run.submit_many: args must be 32-bit words (0 .. 4294967295)"),
    ("exclusive-str", TypeError, lambda r: r.submit_many(0, 0, 1, exclusive="x"),
     "Run.submit_many: exclusive must be True or False, got 'x' (str)"),
    ("handler-unknown", km.ProgramError, lambda r: r.submit_many("map", 0, 1),
     "Program 'basic' has no handler 'map' (it has: fill, spin, result, fault, count, nap)"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in SUBMIT_MANY], ids=[c[0] for c in SUBMIT_MANY])
def test_submit_many(loaded, exc, call, text):
    refused(loaded, exc, lambda: call(loaded), text)


def test_submit_many_handler_names_its_call(fresh):
    run = fresh
    refused(run, ValueError, lambda: run.submit_many(240, 0, 1),
            "Run.submit_many: handler must be an integer (0..239), got 240")


def test_submit_many_refuses_float_cores(fresh):
    run = fresh
    with pytest.raises(TypeError) as e:
        run.submit_many(0, [0.5, 1.7], 1)
    assert str(e.value).startswith("Run.submit_many: firsts")


def test_submit_many_refuses_text_cores(fresh):
    run = fresh
    with pytest.raises((TypeError, ValueError)) as e:
        run.submit_many(0, ["a"], 1)
    assert str(e.value).startswith("Run.submit_many: firsts")


WAITS = [
    ("wait-str", TypeError, lambda r, h: r.wait("ab"),
     "Run.wait: handles must be a handle, a range or a list of handles, got 'ab' (str)"),
    ("wait-float", TypeError, lambda r, h: r.wait(1.5),
     "Run.wait: handles must be a handle, a range or a list of handles, got 1.5 (float)"),
    ("wait-bool", TypeError, lambda r, h: r.wait(True),
     "Run.wait: handles must be a handle, a range or a list of handles, got True (bool)"),
    ("wait-none", TypeError, lambda r, h: r.wait(None),
     "Run.wait: handles must be a handle, a range or a list of handles, got None (NoneType)"),
    ("wait-list-0", ValueError, lambda r, h: r.wait([h, 0]), f"Run.wait: a handle must be {HANDLE}, got 0"),
    ("wait-0", tessel.ValidationError, lambda r, h: r.wait(0), "Run.wait: handle 0 is not a command of this run"),
    ("wait-unknown", tessel.ValidationError, lambda r, h: r.wait(h + 1000),
     "Run.wait: handle {h+1000} is not a command of this run"),
    ("wait-forgotten", tessel.ValidationError, lambda r, h: r.wait(h - 1),
     "Run.wait: handle {h-1} is not a command of this run"),
    ("wait-timeout-negative", ValueError, lambda r, h: r.wait(h, timeout=-1),
     "Run.wait: timeout must be non-negative seconds, got -1 (int)"),
    ("wait-timeout-str", ValueError, lambda r, h: r.wait(h, timeout="1"),
     "Run.wait: timeout must be non-negative seconds, got '1' (str)"),
    ("wait-timeout-nan", ValueError, lambda r, h: r.wait(h, timeout=float("nan")),
     "Run.wait: timeout must be non-negative seconds, got nan (float)"),
    ("wait-any-empty", tessel.ValidationError, lambda r, h: r.wait_any([]), "Run.wait_any: no handles given"),
    ("wait-any-unknown", tessel.ValidationError, lambda r, h: r.wait_any([h, h + 1000]),
     "Run.wait_any: handle {h+1000} is not a command of this run"),
    ("wait-any-str", TypeError, lambda r, h: r.wait_any("x"),
     "Run.wait_any: handles must be a handle, a range or a list of handles, got 'x' (str)"),
    ("wait-any-timeout", ValueError, lambda r, h: r.wait_any([h], timeout=None),
     "Run.wait_any: timeout must be non-negative seconds, got None (NoneType)"),
    ("drain-timeout", ValueError, lambda r, h: r.drain(timeout=-0.5),
     "Run.drain: timeout must be non-negative seconds, got -0.5 (float)"),
    ("event-0", ValueError, lambda r, h: r.event(0), f"Run.event: handle must be {HANDLE}, got 0"),
    ("event-str", TypeError, lambda r, h: r.event("1"), f"Run.event: handle must be {HANDLE}, got '1' (str)"),
    ("sequence-0", ValueError, lambda r, h: r.sequence(0), f"Run.sequence: handle must be {HANDLE}, got 0"),
    ("group-0", ValueError, lambda r, h: r.group(0), f"Run.group: handle must be {HANDLE}, got 0"),
    ("forget-str", TypeError, lambda r, h: r.forget("x"),
     "Run.forget: handles must be a handle, a range or a list of handles, got 'x' (str)"),
    ("stop-timeout", ValueError, lambda r, h: r.stop(timeout=-1),
     "Run.stop: timeout must be non-negative seconds, got -1 (int)"),
    ("state-words-loaded", tessel.ValidationError, lambda r, h: r.state_words(),
     "Run.state_words: the state words are read after the stop"),
    ("trace-loaded", ValueError, lambda r, h: r.trace(), "Run.trace: the trace is read after run.stop()"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in WAITS], ids=[c[0] for c in WAITS])
def test_wait_and_handles(loaded, exc, call, text):
    # h: a handle whose event has arrived and is kept; h - 1: one waited for (forgotten).
    loaded.wait(loaded.submit(0, group=(1, 1)), timeout=5.0)
    h = loaded.submit(0, group=(2, 1))
    loaded.drain(timeout=5.0)
    text = text.replace("{h+1000}", str(h + 1000)).replace("{h-1}", str(h - 1))
    refused(loaded, exc, lambda: call(loaded, h), text)
    assert loaded.event(h).handle == h  # still kept
    loaded.forget([h])


def test_wait_for_a_forgotten_handle_behind_a_kept_one(loaded):
    kept = loaded.submit(0, group=(3, 1))
    waited = loaded.submit(0, group=(4, 1))
    loaded.wait(waited, timeout=5.0)
    refused(loaded, tessel.ValidationError, lambda: loaded.wait(waited),
            f"Run.wait: handle {waited} was forgotten already (wait and wait_any forget the handles they return, "
            "forget the ones it is given)")
    assert loaded.wait(kept, timeout=5.0).handle == kept


def test_state_names_its_call(fresh):
    run = fresh
    refused(run, tessel.ValidationError, lambda: run.state(), "Run.state: the state words are read after the stop")


LOADS = [
    ("program", TypeError, lambda s, p: s.load("basic"),
     "Session.load: program must be a tessel.dispatch.Program, got 'basic' (str)"),
    ("depth-0", ValueError, lambda s, p: s.load(p, depth=0), "Session.load: depth 0 is out of range: expected 1 to 16"),
    ("depth-17", ValueError, lambda s, p: s.load(p, depth=17),
     "Session.load: depth 17 is out of range: expected 1 to 16"),
    ("depth-bool", ValueError, lambda s, p: s.load(p, depth=True),
     "Session.load: depth True is out of range: expected 1 to 16"),
    ("thread", ValueError, lambda s, p: s.load(p, thread="gpu"),
     "Session.load: thread 'gpu': expected 'card' or 'host'"),
    ("image", TypeError, lambda s, p: s.load(p, image=5), "Session.load: image must be a str, got 5 (int)"),
    ("deadline-negative", ValueError, lambda s, p: s.load(p, deadline=-1),
     "Session.load: deadline must be non-negative, got -1 (int)"),
    ("deadline-0", tessel.ValidationError, lambda s, p: s.load(p, deadline=0),
     "Session.load: deadline must be positive seconds"),
    ("deadline-str", ValueError, lambda s, p: s.load(p, deadline="1"),
     "Session.load: deadline must be non-negative, got '1' (str)"),
    ("start-0", tessel.ValidationError, lambda s, p: s.load(p, start=0),
     "Session.load: start must be positive seconds"),
    ("wait-negative", ValueError, lambda s, p: s.load(p, wait=-1),
     "Session.load: wait must be non-negative, got -1 (int)"),
    ("idle-negative", ValueError, lambda s, p: s.load(p, idle=-0.5),
     "Session.load: idle must be non-negative, got -0.5 (float)"),
    ("kernel-idle-negative", ValueError, lambda s, p: s.load(p, kernel_idle=-1),
     "Session.load: kernel_idle must be non-negative, got -1 (int)"),
    ("settle-negative", ValueError, lambda s, p: s.load(p, settle_microseconds=-1),
     "Session.load: settle_microseconds must be non-negative, got -1 (int)"),
    ("trace-5000", ValueError, lambda s, p: s.load(p, trace=5000),
     "Session.load: trace must be an integer (0..4096), got 5000"),
    ("trace-float", TypeError, lambda s, p: s.load(p, trace=1.0),
     "Session.load: trace must be an integer (0..4096), got 1.0 (float)"),
    ("host-depth-48", tessel.ValidationError, lambda s, p: s.load(p, host_depth=48),
     "Session.load: host_depth 48 is not valid: expected a power of two, at most 64"),
    ("host-depth-128", ValueError, lambda s, p: s.load(p, host_depth=128),
     "Session.load: host_depth must be an integer (1..64), got 128"),
    ("event-depth-100", tessel.ValidationError, lambda s, p: s.load(p, event_depth=100),
     "Session.load: event_depth 100 is not valid: expected a power of two, at most 128"),
    ("event-depth-256", ValueError, lambda s, p: s.load(p, event_depth=256),
     "Session.load: event_depth must be an integer (1..128), got 256"),
    ("batch-0", ValueError, lambda s, p: s.load(p, batch=0),
     "Session.load: batch must be an integer (1..65536), got 0"),
]


@pytest.mark.parametrize("exc,call,text", [c[1:] for c in LOADS], ids=[c[0] for c in LOADS])
def test_load(session, exc, call, text):
    program = basic_program()
    with pytest.raises(exc) as e:
        call(session, program)
    assert str(e.value) == text
    assert session.run is None  # nothing was loaded
    run = session.load(program)  # and the session is as it was
    assert run.wait(run.submit(0), timeout=5.0).kind == "done"
    assert run.stop().clean


def test_load_on_a_closed_session(session):
    session.close()
    with pytest.raises(km.DispatchError) as e:
        session.load(basic_program())
    assert str(e.value) == "Session.load: the session is closed"


def test_a_refused_load_leaves_the_loaded_run(session):
    run = session.load(basic_program())
    with pytest.raises(tessel.ValidationError):
        session.load(basic_program(), host_depth=48)
    assert not run.stopped
    assert run.wait(run.submit(0), timeout=5.0).kind == "done"
