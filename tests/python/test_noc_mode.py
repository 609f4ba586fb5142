"""The checked NoC mode from Python: Device.open(noc=...), TESSEL_NOC, and a
kernel that uses a read's data before its barrier reported with both lines."""

import numpy as np
import pytest

import tessel

EARLY = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t wait_first = get_arg_val<uint32_t>(1);
  const uint64_t src = get_noc_addr_from_bank_id<true>(0, get_arg_val<uint32_t>(0));
  const uint32_t buf = get_write_ptr(0);
  volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(uintptr_t(buf));
  noc_async_read(src, buf, 64);
  if (wait_first) noc_async_read_barrier();
  p[8] = p[1] + 1;
  noc_async_read_barrier();
  noc_async_write(buf, src, 64);
  noc_async_write_barrier();
}
"""


def _run(device, wait_first):
    b = tessel.Buffer(device, 64, 64)
    b.write(np.arange(16, dtype=np.uint32) + 40)
    p = tessel.Program()
    p.add_circular_buffer((0, 0), tessel.CircularBufferConfig(4096, {0: tessel.DataFormat.UInt32}).set_page_size(0, 4096))
    k = p.add_kernel_from_source(EARLY, "early.cpp", (0, 0), tessel.DataMovementConfig())
    p.set_runtime_args(k, (0, 0), [b.address, wait_first])
    device.command_queue.enqueue_program(p)
    return b.read(np.uint32)


def test_checked_mode_reports_a_use_before_the_read_barrier():
    with tessel.Device.open(grid=(2, 2), noc="checked") as d:
        assert d.noc_mode == "checked"
        with pytest.raises(tessel.KernelError) as e:
            _run(d, 0)
        message = str(e.value)
        assert message.startswith("early.cpp:9: core (0,0) BRISC: kernel '")
        assert " while the noc_async_read at early.cpp:7 is still landing in L1 [0x" in message
        assert message.endswith("(noc=checked)")
        got = _run(d, 1)
        assert got[8] == 42 and got[1] == 41


def test_eager_mode_is_the_default_and_runs_it(monkeypatch):
    monkeypatch.delenv("TESSEL_NOC", raising=False)
    with tessel.Device.open(grid=(2, 2)) as d:
        assert d.noc_mode == "eager"
        assert _run(d, 0)[8] == 42


def test_the_mode_comes_from_tessel_noc_and_is_checked(monkeypatch):
    monkeypatch.setenv("TESSEL_NOC", "checked")
    with tessel.Device.open(grid=(2, 2)) as d:
        assert d.noc_mode == "checked"
    monkeypatch.setenv("TESSEL_NOC", "later")
    with pytest.raises(tessel.ValidationError) as e:
        tessel.Device.open(grid=(2, 2))
    assert str(e.value) == "TESSEL_NOC='later' is not valid: expected eager or checked"
    with pytest.raises(TypeError):
        tessel.Device.open(grid=(2, 2), noc=1)
    with pytest.raises(tessel.ValidationError):
        tessel.Device.open(grid=(2, 2), noc="checked", policy="parallel:2")
