"""Bad input to the event trace's front doors (docs/trace.md): Device.open's
trace= and trace_ring=, TESSEL_TRACE / TESSEL_TRACE_RING, `python -m tessel
run --trace-ring` and tessel.trace_stats: the exact TypeError, ValueError or
tessel.ValidationError, naming what was wrong, where and what was expected."""

import os
import subprocess
import sys

import pytest

import tessel

RING = "a whole number of events per RISC, 0 (write every event) to 10000000"


def message(exc_type, fn):
    with pytest.raises(exc_type) as e:
        fn()
    return str(e.value)


def test_device_open_arguments():
    assert message(TypeError, lambda: tessel.Device.open(grid=(1, 1), trace=3)) == \
        "Device.open: trace must be a path (str or os.PathLike) or None, got 3 (int)"
    assert message(TypeError, lambda: tessel.Device.open(grid=(1, 1), trace="t.json", trace_ring="5")) == \
        "Device.open: trace_ring must be a number of events per RISC (0..10000000), got '5' (str)"
    assert message(ValueError, lambda: tessel.Device.open(grid=(1, 1), trace="t.json", trace_ring=-1)) == \
        "Device.open: trace_ring must be a number of events per RISC (0..10000000), got -1"
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1), trace="/nonexistent-dir/t.json")) \
        == ("Device.open: trace: cannot create the trace file '/nonexistent-dir/t.json': No such file or "
            "directory; expected a path in a writable directory")
    ring = "Device.open: trace_ring=5 but no trace is written: expected trace=<file> as well (or TESSEL_TRACE)"
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1), trace="", trace_ring=5)) == ring
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1), trace_ring=5)) == ring


def test_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSEL_TRACE", str(tmp_path / "t.json"))
    monkeypatch.setenv("TESSEL_TRACE_RING", "-3")
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1))) == \
        f"TESSEL_TRACE_RING='-3' is not valid: expected {RING}"
    monkeypatch.setenv("TESSEL_TRACE_RING", "20000000")
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1))) == \
        f"TESSEL_TRACE_RING='20000000' is not valid: expected {RING}"
    monkeypatch.delenv("TESSEL_TRACE_RING")
    monkeypatch.setenv("TESSEL_TRACE", str(tmp_path))  # a directory
    assert message(tessel.ValidationError, lambda: tessel.Device.open(grid=(1, 1))) == \
        (f"TESSEL_TRACE: cannot write the trace file '{tmp_path}': Is a directory; expected a path in a writable "
         "directory")


def test_command_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-m", "tessel", "run", "loopback", "--trace", str(tmp_path / "t.json"),
                        "--trace-ring", "many"], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2
    assert f"argument --trace-ring: --trace-ring 'many' is not valid: expected {RING}" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tessel", "run", "loopback", "--trace", "/nonexistent-dir/t.json"],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2
    assert ("tessel run: --trace '/nonexistent-dir/t.json': its directory does not exist; expected a path in a "
            "writable directory") in r.stderr
    r = subprocess.run([sys.executable, "-m", "tessel", "stats", str(tmp_path / "missing.json")],
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 1
    assert f"tessel: cannot read the trace file '{tmp_path / 'missing.json'}': No such file or directory" in r.stderr


def test_trace_stats(tmp_path):
    assert message(TypeError, lambda: tessel.trace_stats(5)) == \
        "trace_stats: path must be a path (str or os.PathLike), got 5 (int)"
    not_trace = tmp_path / "x.json"
    not_trace.write_text('"hello"')
    assert message(tessel.ValidationError, lambda: tessel.trace_stats(not_trace)) == \
        (f"'{not_trace}' is not a trace-event JSON file: it does not start with '[' or '{{'; expected a JSON array of "
         "events, or an object with a \"traceEvents\" array")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "a"}, {"name": }]')
    assert message(tessel.ValidationError, lambda: tessel.trace_stats(bad)) == \
        f"'{bad}': malformed JSON at byte 25: a value was expected"
