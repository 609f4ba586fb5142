"""Designs of several workers: core-to-core fifos, broadcast, a same-core
fifo, and results checked against numpy."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, Tile, Worker

from .common import fill_drain, per_object

N, LINE = 1024, 256
vec = np.ndarray[(N,), np.dtype[np.int32]]
line = np.ndarray[(LINE,), np.dtype[np.int32]]

AFFINE = """
extern "C" void affine(int32_t* in, int32_t* out, int32_t mul, int32_t add, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] * mul + add;
}
"""


def affine():
    return iron.ExternalFunction("affine", source_string=AFFINE, arg_types=[line, line, np.int32, np.int32, np.int32])


def stage(mul, add):
    return per_object(mul, add, LINE)


def test_a_pipeline_of_two_workers_moves_objects_core_to_core(device):
    a, b, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="b"), ObjectFifo(line, name="c")
    k = affine()
    w0 = Worker(stage(2, 0), [a.cons(), b.prod(), k], placement=Tile(0, 0))
    w1 = Worker(stage(1, 5), [b.cons(), c.prod(), k], placement=Tile(2, 1))

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w0, w1]).resolve_program()
    x = np.arange(N, dtype=np.int32) - 300
    for _ in range(2):
        y = np.zeros(N, np.int32)
        design(x, y)
        np.testing.assert_array_equal(y, x * 2 + 5)


def test_a_fifo_with_two_consumers_is_a_broadcast(device):
    a, b, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="b"), ObjectFifo(line, name="c")
    k = affine()
    w0 = Worker(stage(3, 0), [a.cons(), b.prod(), k])
    w1 = Worker(stage(-1, 7), [a.cons(depth=3), c.prod(), k])

    def seq(x, y, z, a_h, b_h, c_h):
        a_h.fill(x)
        b_h.drain(y, wait=True)
        c_h.drain(z, wait=True)

    design = Program(device, Runtime(seq, [vec, vec, vec, a.prod(), b.cons(), c.cons()]), [w0, w1]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y, z = np.zeros(N, np.int32), np.zeros(N, np.int32)
    design(x, y, z)
    np.testing.assert_array_equal(y, x * 3)
    np.testing.assert_array_equal(z, 7 - x)


def test_a_worker_chaining_two_kernels_through_its_own_fifo(device):
    a, mid, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="mid"), ObjectFifo(line, name="c")
    k = affine()

    def core_fn(a_h, mid_p, mid_c, c_h, k):
        x = a_h.acquire(1)
        m = mid_p.acquire(1)
        k(x, m, 4, 1, LINE)
        a_h.release(1)
        mid_p.release(1)
        m2 = mid_c.acquire(1)
        y = c_h.acquire(1)
        k(m2, y, 1, -1, LINE)
        mid_c.release(1)
        c_h.release(1)

    w = Worker(core_fn, [a.cons(), mid.prod(), mid.cons(), c.prod(), k])

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x * 4)


def test_a_program_enqueued_beside_a_design_stops_its_grid_and_the_design_goes_on(device):
    import tessel

    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    w = Worker(stage(1, 1), [a.cons(), c.prod(), affine()])

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    p = tessel.Program()
    p.add_kernel_from_source("void kernel_main() {}", "empty", tessel.CoreRange((0, 0), (0, 0)),
                             tessel.DataMovementConfig())
    device.command_queue.enqueue_program(p)  # would run beside the design's grid: that grid stops first
    y[:] = 0
    design(x, y)
    np.testing.assert_array_equal(y, x + 1)
    assert design._native.launches == 2


def test_a_crashing_kernel_is_reported_with_its_line_and_the_design_goes_on(device):
    import tessel

    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    bad = iron.ExternalFunction("bad_kernel", source_string="""
extern "C" void bad_kernel(int32_t* in, int32_t* out, int32_t n) {
  if (in[0] == 13) { volatile int32_t* p = nullptr; *p = 1; }
  for (int32_t i = 0; i < n; ++i) out[i] = in[i];
}
""", arg_types=[line, line, np.int32])

    def core_fn(of_in, of_out, k):
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        k(x, y, LINE)
        of_in.release(1)
        of_out.release(1)

    w = Worker(core_fn, [a.cons(), c.prod(), bad])

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32)
    x[LINE] = 13
    with pytest.raises(tessel.KernelFault) as e:
        design(x, np.zeros(N, np.int32))
    assert "bad_kernel.cc:3" in str(e.value), str(e.value)
    x[LINE] = 0
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x)


WINDOW = """
extern "C" void window_sum(int32_t* a, int32_t* b, int32_t* out, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}
"""


def test_a_sliding_window_acquire_2_release_1(device):
    """acquire(2) is absolute: the object still held comes back first, and
    one new object joins it (out[k] = in[k] + in[k+1] per object)."""
    a, c = ObjectFifo(line, name="a", depth=3), ObjectFifo(line, name="c")
    k = iron.ExternalFunction("window_sum", source_string=WINDOW, arg_types=[line, line, line, np.int32])
    objects = N // LINE

    def core_fn(a_h, c_h, k):
        a_h.acquire(1)
        for _ in iron.range_(objects - 1):
            pair = a_h.acquire(2)
            y = c_h.acquire(1)
            k(pair[0], pair[1], y, LINE)
            a_h.release(1)
            c_h.release(1)
        a_h.release(1)

    w = Worker(core_fn, [a.cons(), c.prod(), k])
    out_ty = np.ndarray[(N - LINE,), np.dtype[np.int32]]

    design = Program(device, Runtime(fill_drain, [vec, out_ty, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(N, dtype=np.int32) * 3
    y = np.zeros(N - LINE, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x[:-LINE] + x[LINE:])


def test_a_worker_that_does_not_loop_serves_one_call_and_the_next_deadlocks(device):
    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    w = Worker(stage(1, 0), [a.cons(), c.prod(), affine()], while_true=False)
    one = np.ndarray[(LINE,), np.dtype[np.int32]]

    design = Program(device, Runtime(fill_drain, [one, one, a.prod(), c.cons()]), [w]).resolve_program()
    x = np.arange(LINE, dtype=np.int32)
    y = np.zeros(LINE, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(iron.DeadlockError) as e:
        design(x, y)  # the worker ran its core_fn once and returned (IRON's cores are not restarted per call)
    m = str(e.value)
    assert "has returned: its core_fn ran once (Worker(while_true=False)) and serves no later object" in m, m
    assert "c drain (shim (0,0) S2MM 0) waits for an object from c producer on (0,0)" in m, m


def test_one_barrier_given_to_two_workers_is_a_lock_on_each(device):
    barrier = iron.WorkerRuntimeBarrier()
    rtps = [iron.Buffer(np.ndarray[(4,), np.dtype[np.int32]], name=f"rtp{i}", use_write_rtp=True) for i in range(2)]
    fifos = [(ObjectFifo(line, name=f"a{i}"), ObjectFifo(line, name=f"c{i}")) for i in range(2)]
    k = affine()

    def core_fn(a_h, c_h, rtp, barrier, k):
        barrier.wait_for_value(1)
        x = a_h.acquire(1)
        y = c_h.acquire(1)
        k(x, y, rtp[0], rtp[1], LINE)
        a_h.release(1)
        c_h.release(1)

    workers = [Worker(core_fn, [a.cons(), c.prod(), rtps[i], barrier, k]) for i, (a, c) in enumerate(fifos)]

    def seq(x, y0, y1, a0, a1, c0, c1):
        for i, r in enumerate(rtps):
            r[0] = i + 2
            r[1] = 100 * i
        barrier.set(1)
        a0.fill(x)
        a1.fill(x)
        c0.drain(y0, wait=True)
        c1.drain(y1, wait=True)

    one = np.ndarray[(LINE,), np.dtype[np.int32]]
    rt = Runtime(seq, [one, one, one, fifos[0][0].prod(), fifos[1][0].prod(), fifos[0][1].cons(), fifos[1][1].cons()])
    design = Program(device, rt, workers).resolve_program()
    x = np.arange(LINE, dtype=np.int32)
    y0, y1 = np.zeros(LINE, np.int32), np.zeros(LINE, np.int32)
    design(x, y0, y1)
    np.testing.assert_array_equal(y0, x * 2)
    np.testing.assert_array_equal(y1, x * 3 + 100)
    ops = design.spec["ops"]
    assert sum(1 for op in ops if op[0] == 5) == 2  # SetBarrier once per worker


def test_a_pinned_shim_tile(device):
    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    w = Worker(stage(1, 0), [a.cons(), c.prod(), affine()])

    rt = Runtime(fill_drain, [vec, vec, a.prod(tile=Tile(2, 0)), c.cons(tile=Tile(3, 0))])
    design = Program(device, rt, [w]).resolve_program()
    names = [ch[0] for ch in design.spec["channels"]]
    assert names == ["a fill (shim (2,0) MM2S 0)", "c drain (shim (3,0) S2MM 0)"]
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x)


def test_a_design_reloads_from_its_dict(device):
    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
    w = Worker(stage(5, -2), [a.cons(), c.prod(), affine()])

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
    import json

    again = iron.Design.from_dict(json.loads(json.dumps(design.to_dict())), device)
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    again(x, y)
    np.testing.assert_array_equal(y, x * 5 - 2)


def test_an_external_function_with_include_dirs_and_defines(device, tmp_path):
    import pathlib
    import shutil

    data = pathlib.Path(__file__).parent / "data"
    src_dir, inc_dir = tmp_path / "src", tmp_path / "inc"
    src_dir.mkdir()
    inc_dir.mkdir()
    shutil.copy(data / "scale_k.cc", src_dir)
    shutil.copy(data / "scale_k.h", inc_dir)  # found only through include_dirs
    k = iron.ExternalFunction("scale_k_kernel", source_file=str(src_dir / "scale_k.cc"), arg_types=[line, line, np.int32],
                              include_dirs=[str(inc_dir)], compile_flags=["-DSCALE=3", "-DBIAS=-4"])
    a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")

    def core_fn(a_h, c_h, k):
        x = a_h.acquire(1)
        y = c_h.acquire(1)
        k(x, y, LINE)
        a_h.release(1)
        c_h.release(1)

    design = Program(device, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [Worker(core_fn, [a.cons(), c.prod(), k])]
                     ).resolve_program()
    x = np.arange(N, dtype=np.int32)
    y = np.zeros(N, np.int32)
    design(x, y)
    np.testing.assert_array_equal(y, x * 3 - 4)
    with pytest.raises(ValueError) as e:
        iron.ExternalFunction("f", source_string="", compile_flags=["-O3"])
    assert str(e.value) == ("ExternalFunction 'f': compile flag '-O3' is not supported here; the kernel is built with "
                            "the worker's kernel, so only -DNAME[=VALUE] and -I DIR apply")


def test_closing_the_device_stops_a_design_and_its_calls_then_refuse():
    import tessel

    with tessel.Device.open(grid=(2, 2)) as d:
        a, c = ObjectFifo(line, name="a"), ObjectFifo(line, name="c")
        w = Worker(stage(1, 1), [a.cons(), c.prod(), affine()])
        design = Program(d, Runtime(fill_drain, [vec, vec, a.prod(), c.cons()]), [w]).resolve_program()
        x = np.arange(N, dtype=np.int32)
        y = np.zeros(N, np.int32)
        design(x, y)  # its grid now waits on the card thread for the next call
    with pytest.raises(tessel.ValidationError) as e:
        design(x, y)
    assert str(e.value) == "design 'fill_drain': its device is closed"
    design.close()
