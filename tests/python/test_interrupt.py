"""Ctrl-C during a long simulated run raises KeyboardInterrupt promptly,
and the device stays usable."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import tessel

FOREVER = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const uint32_t producer = get_arg_val<uint32_t>(0);
  for (;;) {
    if (producer) { cb_reserve_back(0, 1); cb_push_back(0, 1); }
    else { cb_wait_front(0, 1); cb_pop_front(0, 1); }
  }
}
"""

SPIN = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  volatile uint32_t* flag = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  while (*flag == 0) {
  }
}
"""


def _interrupted(device, program):
    sent = []

    def ctrl_c():
        time.sleep(0.2)
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    t = threading.Thread(target=ctrl_c)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        device.command_queue.enqueue_program(program)
    stopped = time.perf_counter()
    t.join()
    return stopped - sent[0]


@pytest.fixture
def no_watchdog(monkeypatch):
    monkeypatch.setenv("TESSEL_WATCHDOG_S", "0")


def _still_usable(device):
    b = tessel.Buffer(device, 4096, 1024)
    b.write(np.arange(1024, dtype=np.uint32))
    assert np.array_equal(b.read(np.uint32), np.arange(1024))
    p = tessel.Program()
    p.add_kernel_from_source("void kernel_main() {}\n", "nop.cpp", (0, 0), tessel.DataMovementConfig())
    device.command_queue.enqueue_program(p)


def test_ctrl_c_stops_a_run_that_switches_fibers(no_watchdog):
    with tessel.Device.open(grid=(1, 1)) as d:
        p = tessel.Program()
        p.add_circular_buffer((0, 0), tessel.CircularBufferConfig(4096, {0: "bf16"}).set_page_size(0, 2048))
        k0 = p.add_kernel_from_source(FOREVER, "forever.cpp", (0, 0), tessel.DataMovementConfig("RISCV_0"))
        k1 = p.add_kernel_from_source(FOREVER, "forever.cpp", (0, 0), tessel.DataMovementConfig("RISCV_1"))
        p.set_runtime_args(k0, (0, 0), [1])
        p.set_runtime_args(k1, (0, 0), [0])
        assert _interrupted(d, p) < 0.5  # prompt; `python -m tessel bench interrupt` measures it
        _still_usable(d)


def test_ctrl_c_stops_a_kernel_that_never_switches(no_watchdog):
    with tessel.Device.open(grid=(1, 1)) as d:
        p = tessel.Program()
        p.add_semaphore((0, 0), 0)
        p.add_kernel_from_source(SPIN, "spin.cpp", (0, 0), tessel.DataMovementConfig())
        assert _interrupted(d, p) < 0.5  # prompt; `python -m tessel bench interrupt` measures it
        _still_usable(d)


def test_a_custom_sigint_handler_sees_the_signal(no_watchdog):
    class Stop(Exception):
        pass

    def handler(sig, frame):
        raise Stop()

    old = signal.signal(signal.SIGINT, handler)
    tessel.install_interrupt_handler()  # back in front of the new Python handler
    try:
        with tessel.Device.open(grid=(1, 1)) as d:
            p = tessel.Program()
            p.add_semaphore((0, 0), 0)
            p.add_kernel_from_source(SPIN, "spin.cpp", (0, 0), tessel.DataMovementConfig())
            threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
            with pytest.raises(Stop):
                d.command_queue.enqueue_program(p)
            _still_usable(d)
    finally:
        signal.signal(signal.SIGINT, old)
        tessel.install_interrupt_handler()
