"""The cycle estimate from Python (docs/timing.md): Device.open(timing=True)
makes each run report estimated cycles; the report is a frozen TimingReport
whose rows add up; off by default; argument and environment checks."""

import dataclasses

import numpy as np
import pytest

import tessel

READ = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  // args: DRAM address, bytes: one read from bank 0 into CB 0
  cb_reserve_back(0, 1);
  noc_async_read(get_noc_addr_from_bank_id<true>(0, get_arg_val<uint32_t>(0)), get_write_ptr(0),
                 get_arg_val<uint32_t>(1));
  noc_async_read_barrier();
}
"""


def run_read(device):
    buf = tessel.Buffer(device, 4096 * device.dram_banks, 4096, tessel.BufferType.DRAM)
    buf.write(np.zeros(4096 * device.dram_banks // 4, dtype=np.uint32))
    p = tessel.Program()
    cb = tessel.CircularBufferConfig(4096, {0: tessel.DataFormat.UInt32}).set_page_size(0, 4096)
    p.add_circular_buffer((0, 0), cb)
    k = p.add_kernel_from_source(READ, "timing_read.cpp", (0, 0), tessel.DataMovementConfig())
    p.set_runtime_args(k, (0, 0), [buf.address, 4096])
    device.command_queue.enqueue_program(p)


def test_timed_device_reports_each_run():
    with tessel.Device.open(arch="wormhole_b0", grid=(2, 2), timing=True) as d:
        assert d.timing is True
        assert d.last_run_timing().runs == 0
        run_read(d)
        r = d.last_run_timing()
        assert isinstance(r, tessel.TimingReport)
        assert r.runs == 1 and r.clock_mhz == 1000
        (brisc,) = [x for x in r.riscs if x.risc == "BRISC"]
        assert brisc.core == tessel.CoreCoord(0, 0)
        # The documented formula (docs/timing.md): reserve 8, issue 8 + 16, 4096 B at the
        # bank's 24 B/cycle (171), NoC 32 + DRAM 200 + 15 hops x 4; the barrier's call is busy.
        assert brisc.total_cycles == 8 + 24 + 171 + 32 + 200 + 60
        assert brisc.busy_cycles == 8 + 24 + 8
        assert r.kernel_cycles == brisc.total_cycles
        assert r.device_cycles == r.kernel_cycles + r.dispatch_cycles
        assert r.device_us == pytest.approx(r.device_cycles / 1000)
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.runs = 3


def test_estimates_repeat_exactly_under_deterministic():
    reports = []
    for _ in range(2):
        with tessel.Device.open(arch="wormhole_b0", grid=(2, 2), timing=True) as d:
            run_read(d)
            reports.append(d.last_run_timing())
    assert reports[0] == reports[1]


def test_off_by_default():
    with tessel.Device.open(grid=(1, 1)) as d:
        assert d.timing is False
        with pytest.raises(tessel.ValidationError, match=r"Device.last_run_timing: this device does not estimate "
                                                         r"time; open it with Device.open\(timing=True\) or "
                                                         r"TESSEL_TIMING=1"):
            d.last_run_timing()


def test_timing_argument_and_environment_checks(monkeypatch):
    with pytest.raises(TypeError, match="Device.open: timing"):
        tessel.Device.open(grid=(1, 1), timing="yes")
    monkeypatch.setenv("TESSEL_TIMING", "2")
    with pytest.raises(tessel.ValidationError, match=r"TESSEL_TIMING='2' is not valid: expected 0 \(off\) or 1"):
        tessel.Device.open(grid=(1, 1))
    monkeypatch.setenv("TESSEL_TIMING", "1")
    with tessel.Device.open(grid=(1, 1)) as d:
        assert d.timing is True


def test_python_m_tessel_run_has_timing_and_noc(tmp_path):
    """`python -m tessel run --timing --noc checked`, as the C++ tool: the estimate is printed after the result."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("TESSEL_TIMING", None)
    r = subprocess.run([sys.executable, "-m", "tessel", "run", "loopback", "--timing", "--noc", "checked"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith("loopback: PASSED")
    assert lines[2] == "estimated timing (a cost model's estimate, not a measurement: docs/timing.md)"
    assert "(0,0)     BRISC" in r.stdout
    # TESSEL_TIMING=1 is --timing: the estimate is printed too.
    r = subprocess.run([sys.executable, "-m", "tessel", "run", "loopback"], capture_output=True, text=True,
                       timeout=120, env=dict(env, TESSEL_TIMING="1"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2] == "estimated timing (a cost model's estimate, not a measurement: docs/timing.md)"
    r = subprocess.run([sys.executable, "-m", "tessel", "run", "loopback", "--noc", "lazy"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2
    assert "argument --noc: invalid choice: 'lazy'" in r.stderr
