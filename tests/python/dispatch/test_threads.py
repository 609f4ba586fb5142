"""X280 threads from Python (spec: persistent-dispatch-host-api, program.thread,
program.region, load(thread=), Run.thread_result, run.thread.read; docs/x280-threads.md):
on a 4 x 2 Blackhole device and the C++ tests' basic program (handler `result`
returns 2 * arg0 + the core's index in its group).

thread="card": a thread's commands on the grid beside the host's, its result
(value, commands, status, cluster, log, output), its regions read back after the
stop, one copy of a region per thread, every way a thread ends (a crash, exit,
abort, a misuse, its deadline, a stop, the wait's timeout) with the run still
usable, a command the kernel rejects, a compile error and no upload region.
thread="host": the host_fallback(ctx) with its words, regions and commands.
The thread sources are tests/python/dispatch/x280/ and the C++ tests'
tests/dispatch/kernels/x280/."""

import re
import time

import numpy as np
import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch.threads import ThreadResult

from .common import BASIC, BASIC_HEADER, CORES, GRID, K, ROOT

X280 = ROOT / "tests" / "dispatch" / "kernels" / "x280"  # the C++ tests' thread sources
OWN = ROOT / "tests" / "python" / "dispatch" / "x280"  # this suite's
X280_H = ROOT / "kernel" / "include" / "tessel" / "x280.h"
# x280.h's KM_X280_REJECTED: the result word of a command the kernel rejects.
REJECTED = int(re.search(r"#define KM_X280_REJECTED (0x[0-9A-Fa-f]+)u", X280_H.read_text()).group(1), 16)
GRACE = 0.25  # X280Thread::kStopGrace_s


def line_of(path, marker):
    """The 1-based line of `path` that holds `marker`."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if marker in line:
            return n
    raise AssertionError(f"{marker!r} is not in {path}")


@pytest.fixture(scope="module")
def lines():
    return []


@pytest.fixture(scope="module")
def session(lines):
    """One session for the module: every test loads its own program (a load
    aborts a run still loaded; the `load` fixture stops each one)."""
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d, log=lines.append)
        yield s
        s.close()


@pytest.fixture
def load(session):
    """load(program, **options) -> Run, stopped at the test's end if still loaded."""
    runs = []

    def go(program, **options):
        run = session.load(program, **options)
        runs.append(run)
        return run

    yield go
    for run in runs:
        if not run.stopped:
            run.stop()


def basic_program():
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER))


def thread_program(source, words=(), **thread):
    """The basic program with one thread (cluster 1 unless given)."""
    sources = source if isinstance(source, list) else [source]
    return basic_program().thread(sources=sources, words=list(words), **thread)


def logged_since(lines, n):
    return lines[n:]


# ---------------------------------------------------------------------------
# thread="card": commands, results and regions


def test_the_threads_commands_run_on_the_grid_beside_the_hosts(load, lines):
    """grid_submit: 40 result commands to cores (1, 2) with up to 8 in flight,
    each result checked by the thread, then one command outside the grid; and
    it sums region "in" into region "out". The host meanwhile sends 30 to (4, 4)."""
    values = np.array([1, 2, 3, 4_000_000_000], dtype=np.uint32)
    program = basic_program().region("in", values).region("out", 8)
    program.thread(cluster=2, sources=[X280 / "grid_submit.cpp"], regions=["in", "out"],
                   words=[40, program.handler("result"), 1, 2, CORES], deadline=20.0)
    n = len(lines)
    run = load(program)
    assert run.upload_region == 0  # the thread's ring lies where the upload region was
    host = [run.submit("result", group=(4, 4), args=[i], result=True) for i in range(30)]
    events = run.wait(host, timeout=10.0)
    assert [e.result for e in events] == [2 * i for i in range(30)]
    assert {e.auxiliary for e in events} == {4}
    r = run.thread_result(20.0)
    assert isinstance(r, ThreadResult)
    assert (r.cluster, r.status, r.value, r.error) == (2, "done", 40, "")
    assert r.ok
    assert r.commands == 41  # 40 and the rejected one
    assert 0 < r.seconds < 20.0
    assert r.log == [] and r.output == ""
    assert "status='done'" in repr(r) and "value=40" in repr(r)
    # The same result again.
    again = run.thread_result(1.0)
    assert (again.status, again.value, again.commands) == ("done", 40, 41)
    with pytest.raises(ValueError) as e:
        run.thread.read("out")
    assert str(e.value) == "run.thread.read: regions are read after run.stop()"
    result = run.stop()
    assert result.commands == 30 + 40  # one sequence: the host's and the thread's; the rejected one took none
    assert result.events == 30  # only the host's commands have events
    assert result.rejected == 1
    out = run.thread.read("out")
    assert out.dtype == np.uint8 and out.shape == (8,)
    assert int(out.view(np.uint64)[0]) == int(values.sum(dtype=np.uint64))
    assert run.thread.read("in", cluster=2).view(np.uint32).tolist() == values.tolist()  # the thread left it
    log = logged_since(lines, n)
    assert "X280 thread started on cluster 2" in log
    assert "X280 thread on cluster 2 ended: done, value 40, 41 commands" in log
    assert log.index("X280 thread started on cluster 2") > next(
        i for i, line in enumerate(log) if line.startswith("kernel started: READY"))


def test_a_thread_in_c_submits_and_logs(load):
    """c_thread.c: handler word(0) on core word(1) with the sum of words 2..;
    prefetch="off" is accepted and a single path (not a list) is a source."""
    program = basic_program().thread(sources=str(OWN / "c_thread.c"), words=[3, 5, 10, 20, 12], prefetch="off")
    run = load(program)
    r = run.thread_result(10.0)
    assert (r.status, r.value, r.commands, r.log) == ("done", 2 * 42, 1, ["c thread done"])
    assert run.stop().commands == 1


def test_words_regions_log_and_output(load):
    """words_regions (C++ with a C helper): region "output" = "input" + word(0);
    two log calls give three lines ("two\\nlines" is split); its printf is the output."""
    program = basic_program().region("input", bytes([1, 2, 3, 250])).region("output", 4).region("absent", 1)
    program.thread(cluster=3, sources=[X280 / "words_regions.cpp", X280 / "words_regions_helper.c"],
                   regions=["input", "output"], words=[10, 20, 30])
    run = load(program)
    r = run.thread_result(10.0)
    assert (r.status, r.error) == ("done", "")
    assert r.value == 10 + 20 + 30 + 1000 * 3  # sum_words: the words and 1000 * cluster
    assert r.log == ["cluster 3 words 3", "two", "lines"]
    assert r.output == "hello from the thread\n"
    run.stop()
    assert run.thread.read("output").tolist() == [11, 12, 13, 4]  # 250 + 10 wraps
    assert run.thread.read("input").tolist() == [1, 2, 3, 250]


def test_each_thread_has_its_own_copy_of_a_region(load):
    """clusters=(1, 2, 3): fill_region adds the cluster's number to each byte of its own copy of "buf"."""
    init = (np.arange(1000) % 256).astype(np.uint8)
    program = basic_program().region("buf", init).region("spare", 16)
    program.thread(clusters=(1, 2, 3), sources=[OWN / "fill_region.cpp"], regions=["buf"], words=[7])
    assert [d.cluster for d in program.threads] == [1, 2, 3]
    run = load(program)
    results = run.thread_result(10.0)
    assert isinstance(results, list) and len(results) == 3
    assert [(r.cluster, r.status, r.value) for r in results] == [(c, "done", 100 * c + 7) for c in (1, 2, 3)]
    assert [r.log for r in results] == [[f"cluster {c} filled 1000 bytes"] for c in (1, 2, 3)]
    run.stop()
    for c in (1, 2, 3):
        got = run.thread.read("buf", cluster=c)
        np.testing.assert_array_equal(got, init + np.uint8(c))
    # The copy read is the caller's: writing it changes nothing.
    got[:] = 0
    np.testing.assert_array_equal(run.thread.read("buf", cluster=3), init + np.uint8(3))
    with pytest.raises(ValueError) as e:
        run.thread.read("buf")
    assert str(e.value) == "run.thread.read: region 'buf' has a copy on clusters [1, 2, 3]: give cluster="
    with pytest.raises(ValueError) as e:
        run.thread.read("spare", cluster=1)  # declared by the program, by no thread
    assert str(e.value) == "run.thread.read: the thread on cluster 1 did not declare region 'spare'"


def test_a_large_region_is_read_in_chunks_with_a_log_line_each(load, lines):
    """5 MB, over 4 MB: three 2 MB chunks, each with a session log line; 4 MB: one read, no lines."""
    size = 5 << 20
    init = (np.arange(size) % 251).astype(np.uint8)
    program = basic_program().region("buf", init)
    program.thread(cluster=2, sources=[OWN / "fill_region.cpp"], regions=["buf"], words=[0])
    run = load(program)
    assert run.thread_result(10.0).value == 200
    run.stop()
    n = len(lines)
    got = run.thread.read("buf")
    assert got.shape == (size,) and got.dtype == np.uint8
    assert np.array_equal(got, init + np.uint8(2))
    assert logged_since(lines, n) == [f"thread region 'buf' (cluster 2): read {end} of {size} bytes"
                                      for end in (2 << 20, 4 << 20, size)]

    size = 4 << 20
    program = basic_program().region("buf", size)
    program.thread(cluster=1, sources=[OWN / "fill_region.cpp"], regions=["buf"], words=[0])
    run = load(program)
    assert run.thread_result(10.0).status == "done"
    run.stop()
    n = len(lines)
    got = run.thread.read("buf")
    assert logged_since(lines, n) == []
    assert got.shape == (size,) and np.all(got == 1)


def test_a_command_the_kernel_rejects_completes_with_km_x280_rejected(load):
    """rejected.cpp: a group outside the grid and a queued exclusive command are
    answered with KM_X280_REJECTED, sent to no core; the next command runs."""
    assert REJECTED == 0xFFFFFFFF
    program = basic_program().region("out", 12)
    program.thread(sources=[OWN / "rejected.cpp"], regions=["out"], words=[3, CORES - 2, 4, 5])
    run = load(program)
    r = run.thread_result(10.0)
    assert (r.status, r.value, r.commands) == ("done", REJECTED, 3)
    result = run.stop()
    assert (result.rejected, result.commands) == (2, 1)
    assert run.thread.read("out").view(np.uint32).tolist() == [REJECTED, REJECTED, 42]


def test_log_lines_past_the_ring_are_dropped_and_long_ones_cut(load):
    """log_flood: one 300-character line (cut to 248) and 500 short ones in a burst:
    the ring holds 64 between the host's looks."""
    run = load(thread_program(X280 / "log_flood.cpp", [500]))
    r = run.thread_result(10.0)
    assert r.status == "done"
    assert r.log[0] == "x" * 248
    assert 64 <= len(r.log) <= 501  # the ring's 64 at least; the rest as the host drained it
    assert all(line.startswith("line ") for line in r.log[1:])
    numbers = [int(line.split()[1]) for line in r.log[1:]]
    assert numbers == sorted(numbers) and numbers[0] == 0  # in order, the first that found room first
    run.stop()


# ---------------------------------------------------------------------------
# thread="card": how a thread ends


def still_usable(run):
    """The run goes on after the thread's end: a command gets its result."""
    h = run.submit("result", group=(0, 1), args=[21], result=True)
    assert run.wait(h, timeout=5.0).result == 42
    assert run.stop().commands == 1


def test_a_segfault_fails_the_thread_and_the_run_goes_on(load, lines):
    run = load(thread_program(X280 / "segv.cpp", [16]))
    r = run.thread_result(10.0)
    assert (r.status, r.value, r.ok) == ("failed", 0, False)
    segv = X280 / "segv.cpp"
    assert r.error == (f"killed by SIGSEGV (segmentation fault) at address 0x10, in {segv}:"
                       f"{line_of(segv, 'the fault')}")
    assert f"X280 thread on cluster 1 ended: failed, value 0, 0 commands: {r.error}" in lines
    still_usable(run)


def test_exit_fails_the_thread(load):
    run = load(thread_program(X280 / "exit.cpp"))
    r = run.thread_result(10.0)
    assert r.status == "failed"
    assert r.error == ("exited with status 3 before its function returned (exit(), _exit() or quick_exit() in the "
                       "thread)")
    assert r.log == ["exiting"]
    still_usable(run)


def test_abort_fails_the_thread_with_its_output(load):
    run = load(thread_program(X280 / "abort.cpp"))
    r = run.thread_result(10.0)
    source = X280 / "abort.cpp"
    assert r.status == "failed"
    assert r.error == (f"killed by SIGABRT (abort), in {source}:{line_of(source, 'the abort')}\n"
                       f"its output:\nabout to abort\n")
    assert r.output == "about to abort\n"
    still_usable(run)


MISUSE = [
    ("word-past-the-end", 1, "x280::word(5): the thread has 1 words (program.thread's words)"),
    ("eleven-arguments", 0, "x280::submit(handler 1): 11 arguments, at most 10"),
    ("own-failure", 4, "the thread's own failure"),
]


@pytest.mark.parametrize("kind,error", [c[1:] for c in MISUSE], ids=[c[0] for c in MISUSE])
def test_a_misused_api_fails_the_thread(load, kind, error):
    run = load(thread_program(X280 / "misuse.cpp", [kind]))
    r = run.thread_result(10.0)
    assert (r.status, r.error, r.commands) == ("failed", error, 0)
    still_usable(run)


def test_sources_without_an_entry_fail_the_thread(load):
    run = load(thread_program(X280 / "no_entry.cpp"))
    r = run.thread_result(10.0)
    assert r.status == "failed"
    assert r.error == ("the thread's sources define no entry: one of them must use TESSEL_X280_THREAD(fn) "
                       "(tessel/x280.h)")
    still_usable(run)


def test_a_hang_is_killed_at_its_deadline(load):
    run = load(thread_program(X280 / "spin.cpp", [0], deadline=0.2))
    t0 = time.perf_counter()
    r = run.thread_result(10.0)
    assert time.perf_counter() - t0 < 5.0
    assert (r.status, r.value) == ("deadline", 0)
    assert r.error == "did not return within 0.25 s of the stop request (its deadline, 0.2 s); killed"
    assert 0.2 + GRACE <= r.seconds < 5.0
    still_usable(run)


def test_a_thread_that_returns_at_its_deadline_keeps_its_value(load):
    run = load(thread_program(X280 / "spin.cpp", [1], deadline=0.1))  # cooperative: returns 5 when asked
    r = run.thread_result(10.0)
    assert (r.status, r.value, r.error) == ("deadline", 5, "")
    assert 0.1 <= r.seconds < 2.0
    still_usable(run)


def test_stop_stops_a_cooperative_thread(load, lines):
    run = load(thread_program(X280 / "spin.cpp", [1]))
    time.sleep(0.02)
    n = len(lines)
    t0 = time.perf_counter()
    result = run.stop()
    assert time.perf_counter() - t0 < 2.0
    assert (result.commands, result.error) == (0, 0)
    r = run.thread_result(1.0)
    assert (r.status, r.value, r.error) == ("stopped", 5, "")
    assert "X280 thread on cluster 1 ended: stopped, value 5, 0 commands" in logged_since(lines, n)


def test_stop_kills_a_thread_that_does_not_return(load):
    run = load(thread_program(X280 / "spin.cpp", [0]))  # never returns
    time.sleep(0.02)
    t0 = time.perf_counter()
    try:
        result = run.stop(timeout=1.0)
    finally:
        took = time.perf_counter() - t0
        r = run.thread_result(1.0)
    assert (r.status, r.error) == ("stopped", "did not return within 0.25 s of the stop request (the host's); killed")
    assert took < 0.9, f"Run.stop(timeout=1.0) took {took:.2f} s"
    assert result.error == 0


def test_thread_results_timeout_stops_the_thread(load):
    run = load(thread_program(X280 / "spin.cpp", [1]))  # returns 5 when asked to stop
    r = run.thread_result(0.05)
    assert (r.status, r.value, r.error) == ("stopped", 5, "")
    assert 0.05 <= r.seconds < 2.0
    still_usable(run)

    run = load(thread_program(X280 / "spin.cpp", [0]))  # never returns: killed after the grace
    t0 = time.perf_counter()
    r = run.thread_result(0.05)
    assert 0.05 + GRACE <= time.perf_counter() - t0 < 5.0
    assert (r.status, r.value) == ("stopped", 0)
    assert r.error == "did not return within 0.25 s of the stop request (the host's); killed"
    still_usable(run)


def test_a_thread_that_waits_for_its_command_gets_it(load):
    """stop_wait: its command (handler 3 on core 0) completes, so its wait returns true: 1 (77 only when stopped)."""
    run = load(thread_program(X280 / "stop_wait.cpp"))
    r = run.thread_result(10.0)
    assert (r.status, r.value, r.commands) == ("done", 1, 1)
    run.stop()


# ---------------------------------------------------------------------------
# thread="card": the load


def test_a_compile_error_loads_nothing(lines):
    broken = X280 / "compile_error.cpp"
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d, log=lines.append)
        try:
            n = len(lines)
            with pytest.raises(km.ProgramError) as e:
                s.load(thread_program(broken))
            text = str(e.value)
            assert text.startswith(f"program.thread(cluster=1): {broken} failed to compile:\n"), text
            assert f"{broken}:{line_of(broken, 'the error')}:" in text and "undeclared_name" in text
            assert isinstance(e.value, tessel.ProgramError)
            assert s.run is None and s._busy() is None
            assert not any(line.startswith(("launch:", "X280 thread")) for line in logged_since(lines, n))
            # With a run loaded: the load aborts it first (Session.load), then fails; nothing new is loaded.
            previous = s.load(basic_program())
            with pytest.raises(km.ProgramError):
                s.load(thread_program(broken, cluster=2))
            assert s.run is previous and previous.stopped
            # The session loads again.
            run = s.load(thread_program(OWN / "c_thread.c", [3, 0, 4]))
            assert run.thread_result(10.0).value == 8
            run.stop()
        finally:
            s.close()


def test_no_upload_region_beside_a_thread(load):
    run = load(thread_program(OWN / "c_thread.c", [3, 0, 4]))
    assert run.upload_region == 0
    with pytest.raises(ValueError) as e:
        run.upload(bytes(64), kind="stream")
    assert str(e.value) == ("Run.upload: this program has an X280 thread, whose ring takes the upload region: no "
                            "stream or graph can be uploaded")
    assert run.thread_result(10.0).value == 8
    run.stop()
    assert load(basic_program()).upload_region == K["KM_UPLOAD_REGION_BYTES"]  # without a thread


def test_a_thread_with_a_host_fallback_runs_its_sources_on_the_card(load):
    def fallback(ctx):
        raise AssertionError("the fallback runs only with thread='host'")

    run = load(thread_program(OWN / "c_thread.c", [3, 0, 4], host_fallback=fallback), thread="card")
    assert run.thread.mode == "card"
    r = run.thread_result(10.0)
    assert (r.status, r.value) == ("done", 8)
    run.stop()


# ---------------------------------------------------------------------------
# thread="host": the host_fallback


def test_the_host_fallback_runs_at_thread_result(load, lines):
    calls = []

    def fallback(ctx):
        calls.append(ctx.cluster)
        assert ctx.words == [10, 20]
        assert ctx.stop_requested() is False
        buf = ctx.region("buf")
        assert isinstance(buf, np.ndarray) and buf.dtype == np.uint8 and buf.flags.writeable
        assert buf.tolist() == list(range(8))  # its own copy of the initial bytes
        buf += np.uint8(ctx.cluster)
        with pytest.raises(KeyError):
            ctx.region("other")  # the program's, not the thread's
        h = ctx.submit("result", group=(1, 3), args=[ctx.words[ctx.cluster % 2]], result=True)
        e = ctx.wait(h)
        assert (e.kind, e.auxiliary) == ("done", 1)
        ctx.log(f"cluster {ctx.cluster}: {e.result}")
        return e.result + ctx.cluster

    program = basic_program().region("buf", bytes(range(8))).region("other", 4)
    program.thread(clusters=(1, 2, 3), host_fallback=fallback, regions=["buf"], words=[10, 20])
    n = len(lines)
    run = load(program, thread="host")
    assert run.thread.mode == "host" and run.upload_region == 0
    assert 'X280 threads: thread="host", their host_fallback runs instead' in logged_since(lines, n)
    assert not any(line.startswith("X280 thread started") for line in logged_since(lines, n))
    assert calls == []  # not at the load
    with pytest.raises(ValueError) as e:
        run.thread.read("buf", cluster=1)
    assert str(e.value) == "run.thread.read: regions are read after run.stop()"
    h = run.submit("result", group=(6, 2), args=[4], result=True)  # the host's own, before
    results = run.thread_result(5.0)
    assert calls == [1, 2, 3]
    expected = {1: 2 * 20 + 1, 2: 2 * 10 + 2, 3: 2 * 20 + 3}
    assert [(r.cluster, r.status, r.value, r.commands, r.error) for r in results] == [
        (c, "done", expected[c], 1, "") for c in (1, 2, 3)]
    assert [r.log for r in results] == [[f"cluster {c}: {expected[c] - c}"] for c in (1, 2, 3)]
    assert all(r.seconds >= 0 and r.output == "" for r in results)
    assert run.wait(h, timeout=5.0).result == 8
    again = run.thread_result(5.0)  # the fallbacks ran once
    assert calls == [1, 2, 3] and [r.value for r in again] == [r.value for r in results]
    assert run.stop().commands == 4
    assert calls == [1, 2, 3]
    for c in (1, 2, 3):
        assert run.thread.read("buf", cluster=c).tolist() == [b + c for b in range(8)]
    with pytest.raises(ValueError) as e:
        run.thread.read("buf")
    assert str(e.value) == "run.thread.read: region 'buf' has a copy on clusters [1, 2, 3]: give cluster="
    # What read returns is a copy.
    got = run.thread.read("buf", cluster=1)
    got[:] = 0
    assert run.thread.read("buf", cluster=1).tolist() == [b + 1 for b in range(8)]


def test_the_host_fallback_runs_at_stop_when_thread_result_was_not_called(load):
    calls = []

    def fallback(ctx):
        calls.append(ctx.cluster)
        ctx.region("out")[:4] = np.frombuffer(np.uint32(0xC0FFEE).tobytes(), dtype=np.uint8)
        ctx.wait(ctx.submit("result", group=(0, 1), args=[5], result=True))
        return 77

    program = basic_program().region("out", 8)
    program.thread(cluster=2, host_fallback=fallback, regions=["out"])
    run = load(program, thread="host")
    assert calls == []
    result = run.stop()
    assert calls == [2] and result.commands == 1
    r = run.thread_result(1.0)
    assert (r.cluster, r.status, r.value, r.commands) == (2, "done", 77, 1)
    assert calls == [2]
    out = run.thread.read("out")
    assert out.view(np.uint32).tolist() == [0xC0FFEE, 0]


def test_a_host_fallback_that_raises_fails_the_thread(load):
    def fallback(ctx):
        ctx.wait(ctx.submit("result", group=(0, 1), args=[1], result=True))
        ctx.log("about to fail")
        raise RuntimeError("the fallback broke")

    run = load(basic_program().thread(host_fallback=fallback), thread="host")
    r = run.thread_result(5.0)
    assert (r.status, r.value, r.error, r.commands, r.log) == (
        "failed", 0, "RuntimeError: the fallback broke", 1, ["about to fail"])
    assert not r.ok
    h = run.submit("result", group=(0, 1), args=[21], result=True)
    assert run.wait(h, timeout=5.0).result == 42
    assert run.stop().commands == 2


RETURNS = [
    ("none", None, "done", 0, ""),
    ("word", 0xFFFFFFFF, "done", 0xFFFFFFFF, ""),
    ("numpy", np.uint32(9), "done", 9, ""),
    ("negative", -1, "failed", 0,
     "ValueError: host_fallback's return value must be an integer word (0..4294967295), got -1"),
    ("33-bits", 1 << 32, "failed", 0,
     "ValueError: host_fallback's return value must be an integer word (0..4294967295), got 4294967296"),
    ("float", 2.5, "failed", 0,
     "TypeError: host_fallback's return value must be an integer word (0..4294967295), got 2.5 (float)"),
    ("bool", True, "failed", 0,
     "TypeError: host_fallback's return value must be an integer word (0..4294967295), got True (bool)"),
]


@pytest.mark.parametrize("value,status,result,error", [c[1:] for c in RETURNS], ids=[c[0] for c in RETURNS])
def test_the_host_fallbacks_return_value(load, value, status, result, error):
    run = load(basic_program().thread(host_fallback=lambda ctx: value), thread="host")
    r = run.thread_result(5.0)
    assert (r.status, r.value, r.error) == (status, result, error)
    run.stop()


def test_a_refused_submit_is_not_counted(load):
    def fallback(ctx):
        with pytest.raises(ValueError):
            ctx.submit("result", group=(CORES - 1, 2))
        ctx.wait(ctx.submit("result", group=(0, 1), args=[1]))
        return 1

    run = load(basic_program().thread(host_fallback=fallback), thread="host")
    r = run.thread_result(5.0)
    assert r.status == "done"
    assert run.stop().commands == 1
    assert r.commands == 1
