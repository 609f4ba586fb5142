"""tessel.dispatch's errors (spec: persistent-dispatch-host-api, Errors):
what the host checks before a command is queued, a command the kernel
rejects (its job queue full), a missed deadline, a faulting handler, a
host-side wait that runs out, a kernel that does not compile, one that never
serves, and the class hierarchy. After each the session loads again."""


import re
import time

import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch import abi

from .common import ROOT, BASIC, BASIC_HEADER, KERNELS, GRID, CORES, K  # noqa: F401



@pytest.fixture
def lines():
    return []


@pytest.fixture
def session(lines):
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d, log=lines.append)
        yield s
        s.close()


def basic_program(depth=4):
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER),
                      depth=depth)


def field(result, name):
    """A field of an error's result block (a km.Result, or the dict the native
    module hands over today; see test_error_result_is_a_result)."""
    return result[name] if isinstance(result, dict) else getattr(result, name)


def loads_again(session):
    """The session loads the basic program again and runs a command on every core."""
    run = session.load(basic_program())
    e = run.wait(run.submit(0), timeout=5.0)
    assert (e.kind, e.auxiliary) == ("done", 0)
    assert run.stop().clean


# ---------------------------------------------------------------------------
# What the host checks (the kernel's own rejections of these are C++-only)


HOST_CHECKS = [
    ("reserved-handler", ValueError, dict(handler=240), "Run.submit: handler must be an integer (0..239), got 240"),
    ("runtime-handler", ValueError, dict(handler=255), "Run.submit: handler must be an integer (0..239), got 255"),
    ("unknown-number", km.ProgramError, dict(handler=9), "Program 'basic' has no handler number 9"),
    ("unknown-name", km.ProgramError, dict(handler="exit"),
     "Program 'basic' has no handler 'exit' (it has: fill, spin, result, fault, count, nap)"),
    ("group-outside", ValueError, dict(handler=0, group=(6, 3)),
     "Run.submit: group (6, 3) does not lie inside the 8 cores"),
    ("group-empty", ValueError, dict(handler=0, group=(0, 0)),
     "Run.submit: group's count must be an integer (1..8), got 0"),
    ("group-first", ValueError, dict(handler=0, group=(8, 1)),
     "Run.submit: group's first core must be an integer (0..7), got 8"),
    ("queued-too-many", ValueError, dict(handler=0, group=9, queued=True),
     "Run.submit: group (a core count for queued=True) must be an integer (1..8), got 9"),
    ("queued-exclusive", tessel.ValidationError, dict(handler=0, group=2, queued=True, exclusive=True),
     "Run.submit: a queued command cannot be exclusive"),
    ("eleven-args", ValueError, dict(handler=0, args=list(range(11))),
     "Run.submit: 11 args: a command carries at most ten words"),
]


@pytest.mark.parametrize("exc,kw,text", [c[1:] for c in HOST_CHECKS], ids=[c[0] for c in HOST_CHECKS])
def test_the_host_checks_before_queuing(session, exc, kw, text):
    run = session.load(basic_program())
    with pytest.raises(exc) as e:
        run.submit(**kw)
    assert str(e.value) == text
    # Nothing was queued: the next command is handle 1, and the kernel rejected nothing.
    assert run.submit(0) == 1
    assert run.stop().rejected == 0


def test_many_commands_are_checked_before_any_is_queued(session):
    run = session.load(basic_program())
    with pytest.raises(tessel.ValidationError) as e:
        run.submit_many(0, [0, 4, 7], [2, 2, 2])
    assert str(e.value) == "Run.submit_many: command 2: group (7, 2) does not lie inside the 8 cores"
    assert run.submit(0) == 1
    assert run.stop().commands == 1


def test_a_stopped_run_submits_nothing(session):
    run = session.load(basic_program())
    run.stop()
    for call, name in ((lambda: run.submit(0), "submit"), (lambda: run.submit_many(0, 0, 1), "submit_many")):
        with pytest.raises(tessel.ValidationError) as e:
            call()
        assert str(e.value) == f"Run.{name}: the run is stopped; load the program again"


def test_a_full_job_queue_rejects_one_more(session):
    """The one rejection this API can reach: 65 queued commands while the grid
    is busy (spec: reason 9, 'queue'); the run goes on."""
    run = session.load(basic_program(depth=16), deadline=30.0)
    held = run.submit("spin", group=(0, CORES))  # every core busy: nothing queued can start
    queued = [run.submit(0, group=1, queued=True) for _ in range(65)]
    with pytest.raises(km.CommandRejected) as e:
        run.wait(queued[-1], timeout=5.0)
    assert (e.value.handle, e.value.reason, e.value.reason_name) == (queued[-1], K["KMD_REJECT_QUEUE"], "queue")
    assert str(e.value) == f"handle {queued[-1]} was rejected by the kernel: reason 9 (queue)"
    assert run.event(queued[-1]).kind == "rejected" and run.event(queued[-1]).auxiliary == 9
    assert run.sequence(queued[-1]) is None  # a rejected command has no number
    assert not run.stopped and run.event(queued[63]) is None and run.event(held) is None
    result = run.abort()
    assert len(result.abandoned) == 65 and result.abandoned[:9] == [held, *queued[:8]]  # see below
    assert result.rejected == 1


def test_abandoned_names_every_handle(session):
    run = session.load(basic_program())
    handles = [run.submit(0, group=(i % CORES, 1)) for i in range(40)]  # queued on the host, never stored
    assert run.abort().abandoned == handles


# ---------------------------------------------------------------------------
# CommandTimeout


def test_command_timeout_names_where_the_cores_waited(session, lines):
    run = session.load(basic_program(), deadline=0.2)
    h = run.submit("spin", group=(2, 2))  # the reader waits on a CB nobody fills
    with pytest.raises(km.CommandTimeout) as e:
        run.wait(h, timeout=5.0)
    err = e.value
    assert (err.handle, err.group, err.slot, err.sequence) == (h, (2, 2), 0, 0)
    assert [c["core"] for c in err.cores] == [(2, 0), (3, 0)]
    for c in err.cores:
        assert c["reader"] == (f"waits for cb_wait_front(cb=0, pages=1): CB 0 has 0 visible, 0 reserved, 1 free of 1 "
                               f"pages at {BASIC}/reader.cpp:5")
        assert c["writer"].startswith("waits for cb_wait_front(cb=30, pages=1)")
        assert c["compute"].startswith("waits for cb_wait_front(cb=29, pages=1)")
    text = str(err)
    assert text.startswith("handle 1 missed its deadline (0.200000 s): the kernel stopped the grid\n"
                           "  core (2,0) did not report: reader waits for cb_wait_front(cb=0, pages=1)")
    assert f"{BASIC}/reader.cpp:5" in text and "core (3,0) did not report" in text
    assert run.stopped  # stopped and read back
    result = run.result()
    assert (result.error_name, result.error_slot, result.error_sequence) == ("deadline", 0, 0)
    assert result.message == ("command of sequence 0 (slot 0, handler 2, cores 2..3) missed its deadline of 0.200000 "
                              "s: 2 core(s) of its group did not report")
    assert run.state_words()[2, K["KM_WORD_PHASE"]] == K["KM_PHASE_READER"]  # core 2 was in the handler
    loads_again(session)


@pytest.mark.parametrize("policy", ["deterministic", "random:3", "parallel:2"])
def test_the_deadline_holds_for_a_handler_that_never_blocks(policy):
    # nap spins on the card's clock for 3 s without a call that switches:
    # the card's deadline (wall time, docs/dispatch.md) still stops it at 0.3 s.
    with tessel.Device.open(arch="blackhole", grid=GRID, policy=policy) as d, km.Session(device=d) as session:
        run = session.load(basic_program(), deadline=0.3)
        h = run.submit("nap", group=(6, 1), args=[3000])
        t0 = time.monotonic()
        with pytest.raises(km.CommandTimeout) as e:
            run.wait(h, timeout=10.0)
        assert time.monotonic() - t0 < 2.0  # at the deadline, not when the handler returns (3 s)
        err = e.value
        assert (err.handle, err.group, err.slot, err.sequence) == (h, (6, 1), 0, 0)
        assert [c["core"] for c in err.cores] == [(2, 1)]  # core 6 of a 4 x 2 grid
        reader = err.cores[0]["reader"]
        if policy.startswith("parallel"):
            # The card runs on another host thread than core 6: it saw the core still running.
            assert reader in ("running", f"running at {BASIC}/reader.cpp:15 without a kernel API call (stopped there)")
        else:
            assert reader == f"running at {BASIC}/reader.cpp:15 without a kernel API call (stopped there)"
        assert str(err).startswith("handle 1 missed its deadline (0.300000 s): the kernel stopped the grid\n"
                                   "  core (2,1) did not report: reader running")
        assert run.stopped and run.result().error_name == "deadline"
        loads_again(session)


def test_stop_keeps_one_deadline_for_all_of_it(session):
    # The drain runs out, then the abort's wait for the grid has only what is
    # left of the same deadline (it waited its own 2 s more).
    run = session.load(basic_program(), deadline=30.0)
    run.submit("spin", group=(2, 1))  # its reader waits on a CB nobody fills
    t0 = time.monotonic()
    with pytest.raises(km.WaitTimeout) as e:
        run.stop(timeout=1.0)
    elapsed = time.monotonic() - t0
    # The drain had what was left of the one second.
    assert re.match(r"Run\.stop: Run\.drain: 1 commands have no event after (0\.9\d*|1\.0*) s; ", str(e.value))
    assert str(e.value).endswith("; the run was aborted")
    assert elapsed < 1.8, elapsed
    assert run.stopped and run.result().error_name == "stopped"
    loads_again(session)


# ---------------------------------------------------------------------------
# KernelFailed


def test_a_faulting_handler_is_kernel_failed(session):
    run = session.load(basic_program())
    h = run.submit("fault", group=(5, 1))
    with pytest.raises(km.KernelFailed) as e:
        run.wait(h, timeout=5.0)
    text = str(e.value)
    assert text.startswith("Run.wait: the persistent kernel failed: ")
    assert f"{BASIC}/compute.cpp:7: core (1,1) COMPUTE: " in text  # core 5 of a 4 x 2 grid, its RISC, the line
    assert "null pointer dereference" in text
    assert field(e.value.result, "error_name") == "kernel"
    assert field(e.value.result, "abandoned") == [h]
    assert run.stopped and run.result().error_name == "kernel"
    loads_again(session)


# ---------------------------------------------------------------------------
# WaitTimeout


def test_wait_timeout_leaves_the_run_loaded(session):
    run = session.load(basic_program(), deadline=30.0)
    stuck = run.submit("spin", group=(0, 1))
    with pytest.raises(km.WaitTimeout) as e:
        run.wait(stuck, timeout=0.1)
    assert e.value.pending == [stuck]
    text = str(e.value)
    assert text.startswith("Run.wait: 1 of 1 handles (the first 1) have no event after 0.100000 s; the kernel: "
                           "still runs; core 0 pass marker 1 (not moving), phase running a handler, last sequence 0; "
                           "7 of 8 cores wait for a command")
    assert not run.stopped
    # Still loaded: the other cores run commands, and the waits say what is pending.
    assert run.wait(run.submit(0, group=(1, 7)), timeout=5.0).kind == "done"
    with pytest.raises(km.WaitTimeout) as e:
        run.wait_any([stuck], timeout=0.05)
    assert e.value.pending == [stuck]
    assert str(e.value).startswith("Run.wait_any: none of 1 handles has an event after 0.050000 s; the kernel: ")
    with pytest.raises(km.WaitTimeout) as e:
        run.drain(timeout=0.05)
    assert e.value.pending == [stuck]
    assert str(e.value).startswith("Run.drain: 1 commands have no event after 0.050000 s; the kernel: ")
    run.abort()
    result = run.result()
    assert run.stopped and result.abandoned == [stuck]
    loads_again(session)


# ---------------------------------------------------------------------------
# ProgramError, StartError


def test_a_kernel_that_does_not_compile(session, lines):
    broken = km.Program("broken", {"reader": KERNELS / "broken_reader.cpp", "compute": BASIC / "compute.cpp",
                                   "writer": BASIC / "writer.cpp"}, buffers=[km.Buffer(0, "uint32", 64, 1)])
    with pytest.raises(km.ProgramError) as e:
        session.load(broken)
    text = str(e.value)
    assert text.startswith(f"kernel {KERNELS / 'broken_reader.cpp'} failed to compile:\n")
    assert f"{KERNELS / 'broken_reader.cpp'}:6:" in text and "error: expected primary-expression" in text
    assert isinstance(e.value, tessel.ProgramError)
    # Nothing runs: nothing was launched, the session is free for tensors and loads.
    assert not any(line.startswith("launch:") for line in lines)
    assert session.run is None and session._busy() is None
    assert session.tensor([1, 2, 3], "uint32").read().tolist() == [1, 2, 3]
    loads_again(session)


def test_a_kernel_main_that_does_not_serve_is_start_error(session):
    returns = km.Program("returns", KERNELS / "returns")
    with pytest.raises(km.StartError) as e:
        session.load(returns)
    assert str(e.value) == ("Session.load: the dispatcher did not report READY from every core (the kernel finished "
                            "first): the persistent kernels returned before EXIT (a kernel_main that does not serve?)")
    result = e.value.result
    assert result is not None
    assert field(result, "ready") is False and field(result, "error_name") == "kernel"
    assert field(result, "message") == (
        "the persistent kernels returned before EXIT (a kernel_main that does not serve?)")
    loads_again(session)


def test_error_result_is_a_result(session):
    with pytest.raises(km.StartError) as e:
        session.load(km.Program("returns", KERNELS / "returns"))
    assert isinstance(e.value.result, km.Result)
    assert e.value.result.ready is False


# ---------------------------------------------------------------------------
# The hierarchy


ERRORS = ["DispatchError", "CardBusy", "ProgramError", "KernelSizeError", "KernelInstructionError", "StartError",
          "WaitTimeout", "CommandRejected", "CommandTimeout", "KernelFailed", "GridTimeout"]


@pytest.mark.parametrize("name", ERRORS)
def test_every_error_is_a_dispatch_error_and_a_tessel_error(name):
    cls = getattr(km, name)
    assert issubclass(cls, km.DispatchError) and issubclass(cls, tessel.Error)
    assert issubclass(cls, km.KomorebiError)
    assert cls is getattr(km.errors, name) and name in km.__all__


def test_komorebi_error_is_dispatch_error():
    assert km.KomorebiError is km.DispatchError
    assert "KomorebiError" in km.__all__
    with pytest.raises(km.KomorebiError):
        raise km.WaitTimeout("x", pending=[1])


def test_program_errors_are_tessel_program_errors():
    for cls in (km.ProgramError, km.KernelSizeError, km.KernelInstructionError):
        assert issubclass(cls, km.ProgramError) and issubclass(cls, tessel.ProgramError)


def test_errors_carry_their_facts():
    assert km.CardBusy("m", pid=42).pid == 42
    assert km.WaitTimeout("m", pending=(3, 4)).pending == [3, 4]
    r = km.CommandRejected("m", handle=5, reason=9, reason_name="queue")
    assert (r.handle, r.reason, r.reason_name) == (5, 9, "queue")
    t = km.CommandTimeout("m", handle=1, slot=2, sequence=3, group=(0, 4), cores=[{"core": (0, 0)}])
    assert (t.handle, t.slot, t.sequence, t.group, t.cores) == (1, 2, 3, (0, 4), [{"core": (0, 0)}])
    assert km.StartError("m").result is None
    failed = km.KernelFailed("m", result={"ready": True})
    assert isinstance(failed.result, km.Result) and failed.result.ready is True and failed.result.abandoned == []
    assert str(km.GridTimeout("the grid")) == "the grid"
