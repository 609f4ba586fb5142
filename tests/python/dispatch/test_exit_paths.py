"""The session's exit paths (spec: persistent-dispatch-host-api, Session):
SIGTERM and a process that ends without closing its session both abort the
loaded run before the process exits, and a card is held by one live process
at a time (CardBusy names the holder). Each case runs in a process of its
own, with this process's PYTHONPATH and TESSEL_CACHE_DIR."""

import os
import signal
import pathlib
import subprocess
import sys
import textwrap
import time

import pytest

import tessel.dispatch as km

ROOT = pathlib.Path(__file__).resolve().parents[3]
BASIC = ROOT / "tests" / "dispatch" / "kernels" / "basic"
BASIC_HEADER = ROOT / "tests" / "dispatch" / "kernels" / "basic.hpp"
CHILD_TIMEOUT_S = 30

# A child that loads the basic program on a 4 x 2 device and prints its log.
PRELUDE = textwrap.dedent(f"""\
    import functools, os, signal, sys, time
    import tessel
    import tessel.dispatch as km

    log = functools.partial(print, "log:", flush=True)

    def program():
        return km.Program("basic", {str(BASIC)!r}, buffers=[km.Buffer(0, "uint32", 64, 1)],
                          handlers=km.abi.handlers({str(BASIC_HEADER)!r}))
    """)


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT / "python"), str(ROOT / "build" / "default" / "python"),
                                                  e.get("PYTHONPATH", "")] if p)
    e.setdefault("TESSEL_CACHE_DIR", str(ROOT / "build" / "kernel-cache"))
    e["TESSEL_CARD_LOCK_DIR"] = str(tmp_path)
    e.pop("TT_VISIBLE_DEVICES", None)
    return e


def child(script, env):
    return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(script)], env=env, capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT_S)


def test_sigterm_aborts_the_run_and_exits_143(env):
    done = child("""
        with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
            try:
                with km.Session(device=device, log=log) as session:
                    run = session.load(program())
                    run.wait(run.submit(0), timeout=5.0)
                    pending = run.submit(0, group=(1, 2))  # queued on the host: abandoned
                    print("loaded", flush=True)
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(20)
                    print("not reached", flush=True)
            finally:
                print("left the with blocks", flush=True)
        """, env)
    out = done.stdout.splitlines()
    assert done.returncode == 143, done.stderr
    assert "not reached" not in out
    assert out.index("loaded") < out.index("log: run aborted: 1 commands abandoned") < out.index("log: runtime closed")
    assert out[-1] == "left the with blocks"
    assert not any(line.startswith("log: kernel finished") for line in out)  # aborted, not stopped
    assert done.stderr == ""


def test_sigterm_keeps_a_handler_of_the_process(env):
    done = child("""
        signal.signal(signal.SIGTERM, lambda *a: (print("own handler", flush=True), sys.exit(7)))
        device = tessel.Device.open(arch="blackhole", grid=(4, 2))
        session = km.Session(device=device, log=log)
        run = session.load(program())
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(20)
        """, env)
    out = done.stdout.splitlines()
    assert done.returncode == 7, done.stderr
    # The process's own handler ran; the session still closed itself at exit (atexit).
    assert out.index("own handler") < out.index("log: run aborted: 0 commands abandoned") < out.index(
        "log: runtime closed")
    assert done.stderr == ""


def test_exit_without_close_aborts_at_exit(env):
    done = child("""
        device = tessel.Device.open(arch="blackhole", grid=(4, 2))
        session = km.Session(device=device, log=log)
        run = session.load(program())
        run.wait(run.submit(0), timeout=5.0)
        print("end of script", flush=True)
        """, env)
    out = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert out.index("end of script") < out.index("log: run aborted: 0 commands abandoned") < out.index(
        "log: runtime closed")
    assert out[-1] == "log: runtime closed"
    assert done.stderr == ""  # no traceback, no failed close, no leaked native objects


def test_a_closed_session_with_a_module_log_function_exits_quietly(env):
    done = child("""
        def own_log(line):
            pass

        with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
            with km.Session(device=device, log=own_log) as session:
                run = session.load(program())
                run.wait(run.submit(0), timeout=5.0)
                run.stop()
        print("closed", flush=True)
        """, env)
    assert done.returncode == 0 and done.stdout == "closed\n"
    assert done.stderr == ""


def test_card_busy_names_the_holder(env, monkeypatch, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent("""
        session = km.Session(card=3)
        print("holding", flush=True)
        sys.stdin.readline()
        """)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "holding\n"
        monkeypatch.setenv("TESSEL_CARD_LOCK_DIR", str(tmp_path))
        monkeypatch.delenv("TT_VISIBLE_DEVICES", raising=False)
        with pytest.raises(km.CardBusy) as e:
            km.Session(card=3)
        assert e.value.pid == holder.pid
        lock = tmp_path / "tessel-card-3.lock"
        assert str(e.value) == (f"Session.open: card {3} is held by process {holder.pid} (lock file {lock}); a card "
                                f"stays held until its process exits")
        assert isinstance(e.value, km.DispatchError)
    finally:
        holder.stdin.close()
        assert holder.wait(timeout=CHILD_TIMEOUT_S) == 0, holder.stderr.read()
        holder.stdout.close()
        holder.stderr.close()
    # The holder has exited: its pid in the lock file is not taken for a holder.
    with km.Session(card=3) as s:
        assert s.grid == (12, 10)
    assert (tmp_path / "tessel-card-3.lock").read_text() == f"{os.getpid()}\n"


def test_exiting_after_a_grid_timeout_is_clean(env):
    # A handler spinning without a kernel API call, the watchdog off: the
    # abort's wait for the grid runs out (GridTimeout) and the process exits
    # with the kernel still spinning. Its exit must not crash (the watchdog
    # thread outlives the process's statics), however often it is tried.
    script = PRELUDE + textwrap.dedent("""
        try:
            with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
                with km.Session(device=device, grid_timeout=0.1) as session:
                    run = session.load(program(), deadline=600.0)
                    run.wait(run.submit("nap", group=(3, 1), args=[10_000_000]), timeout=0.2)
        except km.GridTimeout:
            print("grid timeout", flush=True)
        """)
    env = dict(env, TESSEL_WATCHDOG_S="0")
    runs, batch = 20, 4
    for start in range(0, runs, batch):
        children = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True) for _ in range(start, start + batch)]
        for c in children:
            out, err = c.communicate(timeout=CHILD_TIMEOUT_S)
            assert (c.returncode, out) == (0, "grid timeout\n"), err


# A child waiting in run.wait for a command that never ends (its reader waits
# on a CB nobody fills): a signal must not wait for the wait's timeout.
WAITING = """
    with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
        try:
            with km.Session(device=device, log=log) as session:
                run = session.load(program(), deadline=60.0)
                h = run.submit("spin", group=(1, 1))
                print("waiting", flush=True)
                run.wait(h, timeout=30.0)
                print("not reached", flush=True)
        finally:
            print("left the with blocks", flush=True)
    """


def signalled(script, env, signum):
    """Runs script in a child, sends signum once it prints 'waiting' (and is
    inside the native wait), returns (the child's result, seconds from the
    signal to its exit)."""
    p = subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(script)], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    lines = []
    for line in p.stdout:
        lines.append(line)
        if line == "waiting\n":
            break
    time.sleep(0.3)  # into the native wait
    sent = time.monotonic()
    p.send_signal(signum)
    out, err = p.communicate(timeout=CHILD_TIMEOUT_S)
    return subprocess.CompletedProcess(p.args, p.returncode, "".join(lines) + out, err), time.monotonic() - sent


def test_sigterm_ends_a_native_wait_and_exits_143(env):
    done, seconds = signalled(WAITING, env, signal.SIGTERM)
    out = done.stdout.splitlines()
    assert done.returncode == 143, done.stderr
    assert "not reached" not in out
    assert out.index("waiting") < out.index("log: run aborted: 1 commands abandoned") < out.index(
        "log: runtime closed")  # the card is released
    assert out[-1] == "left the with blocks"
    assert done.stderr == ""
    assert seconds < 1.0  # it waited for the wait's 30 s before


def test_ctrl_c_ends_a_native_wait_with_a_plain_keyboard_interrupt(env):
    done, _ = signalled(WAITING.replace("""        finally:""", """        except KeyboardInterrupt as e:
            print("KeyboardInterrupt", type(e) is KeyboardInterrupt, e.__context__, flush=True)
        finally:"""), env, signal.SIGINT)
    out = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert out.index("waiting") < out.index("log: runtime closed") < out.index("KeyboardInterrupt True None")
    assert "not reached" not in out and out[-1] == "left the with blocks"
    assert done.stderr == ""


def test_a_sigterm_handler_that_returns_lets_the_wait_go_on(env):
    done, _ = signalled("""
        signal.signal(signal.SIGTERM, lambda *a: print("handled", flush=True))
        with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
            with km.Session(device=device) as session:
                run = session.load(program(), deadline=10.0)
                print("waiting", flush=True)
                print(run.wait(run.submit("nap", group=(1, 1), args=[1500]), timeout=30.0).kind, flush=True)
        """, env, signal.SIGTERM)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["handled", "done"]  # handled during the wait, which went on


def test_a_caught_ctrl_c_leaves_the_run_loaded(env):
    # Ctrl-C ends the host's wait, not the card's run: after the
    # KeyboardInterrupt, the run serves the next command.
    done, _ = signalled("""
        with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
            with km.Session(device=device) as session:
                run = session.load(program(), deadline=60.0)
                stuck = run.submit("spin", group=(1, 1))
                print("waiting", flush=True)
                try:
                    run.wait(stuck, timeout=30.0)
                except KeyboardInterrupt:
                    print("interrupted", flush=True)
                print(run.wait(run.submit(0, group=(2, 1)), timeout=5.0).kind, flush=True)
                print(run.abort().abandoned == [stuck], flush=True)
        """, env, signal.SIGINT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-3:] == ["interrupted", "done", "True"]


def test_a_drain_that_gives_way_to_a_signal_counts_every_event(env):
    done, _ = signalled("""
        signal.signal(signal.SIGTERM, lambda *a: print("handled", flush=True))
        with tessel.Device.open(arch="blackhole", grid=(4, 2)) as device:
            with km.Session(device=device) as session:
                run = session.load(program(), deadline=10.0)
                quick = [run.submit(0, group=(i, 1)) for i in range(2, 6)]
                slow = run.submit("nap", group=(1, 1), args=[1500])
                print("waiting", flush=True)
                print(run.drain(timeout=30.0), flush=True)  # the quick ones arrive before the signal
        """, env, signal.SIGTERM)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["handled", "5"]
