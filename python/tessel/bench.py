"""The Python package's figures (python -m tessel bench): each printed as
`<figure> <value> <unit>`, a ratio against a reference measured in the same
process where the figure is a comparison."""

import time

import numpy as np

from . import Buffer, BufferType, DataMovementConfig, Device, Program

_NOP = "void kernel_main() {}\n"


def _best(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def dispatch():
    """A cached re-dispatch of a one-kernel program: the Python call against
    the same enqueue driven by a C++ loop through the binding."""
    n = 2000
    with Device.open(grid=(1, 1)) as d:
        p = Program()
        k = p.add_kernel_from_source(_NOP, "nop.cpp", (0, 0), DataMovementConfig())
        p.set_runtime_args(k, (0, 0), [1, 2, 3])
        q = d.command_queue
        q.enqueue_program(p)  # compile once

        def from_python():
            for _ in range(n):
                q.enqueue_program(p)

        def from_cpp():
            q._q.enqueue_program_loop(p._p, n)

        py = _best(from_python)
        cpp = _best(from_cpp)
    print(f"python_dispatch_us {py / n * 1e6:.3f} us")
    print(f"cpp_dispatch_us {cpp / n * 1e6:.3f} us")
    print(f"python_dispatch_added_us {(py - cpp) / n * 1e6:.3f} us")


def buffer():
    """Buffer.write + Buffer.read of 64 MiB from numpy against numpy copying
    the same bytes twice (one copy in, one out)."""
    size = 64 << 20
    src = np.random.default_rng(1).integers(0, 255, size, dtype=np.uint8)
    out = np.empty_like(src)
    scratch = np.empty_like(src)
    with Device.open() as d:
        b = Buffer(d, size, 1 << 16, BufferType.DRAM)

        def roundtrip():
            b.write(src)
            b.read(out=out)

        def memcpy():
            np.copyto(scratch, src)
            np.copyto(out, scratch)

        roundtrip()
        t = _best(roundtrip)
        m = _best(memcpy)
        assert np.array_equal(out, src)
    print(f"buffer_roundtrip_64mib_ms {t * 1e3:.2f} ms")
    print(f"memcpy_twice_64mib_ms {m * 1e3:.2f} ms")
    print(f"buffer_roundtrip_vs_memcpy {t / m:.2f} x")


def ops():
    """tessel.ops.add on 1024 x 1024 bf16 tensors against numpy.add on float32."""
    from . import ops as tops

    rng = np.random.default_rng(2)
    a = rng.standard_normal((1024, 1024), dtype=np.float32)
    b = rng.standard_normal((1024, 1024), dtype=np.float32)
    with Device.open() as d:
        tops.add(a, b, device=d)  # compile once
        t = _best(lambda: tops.add(a, b, device=d), 3)
    n = _best(lambda: np.add(a, b), 5)
    print(f"ops_add_1024x1024_bf16_ms {t * 1e3:.2f} ms")
    print(f"numpy_add_1024x1024_f32_ms {n * 1e3:.3f} ms")
    print(f"ops_add_vs_numpy {t / n:.1f} x")


def interrupt():
    """Ctrl-C (SIGINT to this process) during a run that never ends: the time
    until KeyboardInterrupt, for a run that switches fibers and for a kernel
    that spins without calling anything (target: 100 ms)."""
    import os
    import signal
    import threading

    from . import CircularBufferConfig

    forever = ("#include \"api/dataflow/dataflow_api.h\"\nvoid kernel_main() {\n"
               "  if (get_arg_val<uint32_t>(0)) for (;;) { cb_reserve_back(0, 1); cb_push_back(0, 1); }\n"
               "  for (;;) { cb_wait_front(0, 1); cb_pop_front(0, 1); }\n}\n")
    spin = ("#include \"api/dataflow/dataflow_api.h\"\nvoid kernel_main() {\n"
            "  volatile uint32_t* f = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));\n"
            "  while (*f == 0) {}\n}\n")
    os.environ["TESSEL_WATCHDOG_S"] = "0"
    try:
        with Device.open(grid=(1, 1)) as d:
            switching = Program()
            switching.add_circular_buffer((0, 0), CircularBufferConfig(4096, {0: "bf16"}).set_page_size(0, 2048))
            for i, risc in enumerate(("RISCV_0", "RISCV_1")):
                k = switching.add_kernel_from_source(forever, "forever.cpp", (0, 0), DataMovementConfig(risc))
                switching.set_runtime_args(k, (0, 0), [1 - i])
            spinning = Program()
            spinning.add_semaphore((0, 0), 0)
            spinning.add_kernel_from_source(spin, "spin.cpp", (0, 0), DataMovementConfig())
            for name, p in (("switching", switching), ("spinning", spinning)):
                d.command_queue.compile_program(p)  # a kernel build in progress is not interrupted
                worst = 0.0
                for _ in range(5):
                    sent = []
                    t = threading.Timer(0.1, lambda: (sent.append(time.perf_counter()),
                                                      os.kill(os.getpid(), signal.SIGINT)))
                    t.start()
                    try:
                        d.command_queue.enqueue_program(p)
                    except KeyboardInterrupt:
                        worst = max(worst, time.perf_counter() - sent[0])
                    t.join()
                print(f"ctrl_c_{name}_worst_ms {worst * 1e3:.1f} ms")
    finally:
        del os.environ["TESSEL_WATCHDOG_S"]


BENCHMARKS = {"dispatch": dispatch, "buffer": buffer, "interrupt": interrupt, "ops": ops}


def run(name="all"):
    if name == "all":
        for fn in BENCHMARKS.values():
            fn()
        return
    if name not in BENCHMARKS:
        raise SystemExit(f"python -m tessel bench: no benchmark named '{name}'; benchmarks: all, "
                         + ", ".join(BENCHMARKS))
    BENCHMARKS[name]()
