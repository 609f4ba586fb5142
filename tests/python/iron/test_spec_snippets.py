"""The spec's own snippets (spec/runtime-data-movement.txt), with only the
import changed, completed into designs that run and are checked."""

import numpy as np

from tessel.iron import Buffer, ObjectFifo, Program, Runtime, TaskGroup, Worker, WorkerRuntimeBarrier
from tessel.iron.placers import SequentialPlacer

from .common import fill_drain

data_ty = np.ndarray[(1024,), np.dtype[np.int32]]
line_ty = np.ndarray[(256,), np.dtype[np.int32]]

RTP_KERNEL = """
extern "C" void rtp_affine(int32_t* in, int32_t* out, int32_t mul, int32_t add, int32_t sub, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = in[i] * mul + add - sub;
}
"""


def test_two_task_groups_each_finished_before_the_next(device):
    from tessel.iron import kernels

    of_in, of_out = ObjectFifo(line_ty), ObjectFifo(line_ty)
    k = kernels.passthrough(256, np.int32)

    def core_fn(i, o, k):
        x = i.acquire(1)
        y = o.acquire(1)
        k(x, y, 256)
        i.release(1)
        o.release(1)

    my_worker = Worker(core_fn, [of_in.cons(), of_out.prod(), k])

    def sequence(a_in, b, c_out, in_h, out_h):
        for _ in range(2):
            tg = TaskGroup()
            in_h.fill(a_in, group=tg)
            out_h.drain(c_out, group=tg, wait=True)
            tg.finish()

    rt = Runtime(sequence, [data_ty, data_ty, data_ty, of_in.prod(), of_out.cons()])
    design = Program(device, rt, workers=[my_worker]).resolve_program(SequentialPlacer())
    a = np.arange(1024, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, np.zeros_like(a), c)
    np.testing.assert_array_equal(c, a)


def test_runtime_parameters_released_by_barriers_to_four_workers(device):
    import tessel.iron as iron

    rtps = []
    for i in range(4):
        rtps.append(Buffer(np.ndarray[(16,), np.dtype[np.int32]], name=f"rtp{i}", use_write_rtp=True))
    workerBarriers = []
    for i in range(4):
        workerBarriers.append(WorkerRuntimeBarrier())
    kern = iron.ExternalFunction("rtp_affine", source_string=RTP_KERNEL,
                                 arg_types=[line_ty, line_ty, np.int32, np.int32, np.int32, np.int32])
    fifos = [(ObjectFifo(line_ty, name=f"in{i}"), ObjectFifo(line_ty, name=f"out{i}")) for i in range(4)]

    def core_fn(of_in, of_out, rtp, barrier, kern):
        barrier.wait_for_value(1)
        x = of_in.acquire(1)
        y = of_out.acquire(1)
        kern(x, y, rtp[0], rtp[1], rtp[2], 256)
        of_in.release(1)
        of_out.release(1)

    workers = [Worker(core_fn, [i.cons(), o.prod(), rtps[n], workerBarriers[n], kern]) for n, (i, o) in enumerate(fifos)]

    def sequence(a, b, c, *handles):
        # Set runtime parameters, then release the barriers.
        for rtp in rtps:
            rtp[0] = 50
            rtp[1] = 255
            rtp[2] = 0
        for i in range(4):
            workerBarriers[i].set(1)
        for n in range(4):
            handles[n].fill(a, offset=256 * n, sizes=[256], strides=[1])
            handles[4 + n].drain(c, offset=256 * n, sizes=[256], strides=[1], wait=True)

    rt = Runtime(sequence, [data_ty, data_ty, data_ty] + [i.prod() for i, _ in fifos] + [o.cons() for _, o in fifos])
    design = Program(device, rt, workers=workers).resolve_program()
    a = np.arange(1024, dtype=np.int32)
    c = np.zeros_like(a)
    design(a, np.zeros_like(a), c)
    np.testing.assert_array_equal(c, a * 50 + 255)


def test_a_design_comes_back_from_the_disk_cache(tmp_path, monkeypatch):
    import tessel.iron as iron

    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    built = []

    @iron.jit
    def twice(a: iron.In, f: iron.In, c: iron.Out):
        built.append(1)
        of_in, of_out = ObjectFifo(line_ty), ObjectFifo(line_ty)
        k = iron.kernels.scale(256, np.int32)
        factor = ObjectFifo(np.ndarray[(1,), np.dtype[np.int32]])

        def core_fn(i, f, o, k):
            g = f.acquire(1)
            x = i.acquire(1)
            y = o.acquire(1)
            k(x, y, g, 256)
            i.release(1)
            o.release(1)
            f.release(1)

        w = Worker(core_fn, [of_in.cons(), factor.cons(), of_out.prod(), k])

        def seq(x, f, y, in_h, f_h, out_h):
            f_h.fill(f)
            fill_drain(x, y, in_h, out_h)

        one = np.ndarray[(1,), np.dtype[np.int32]]
        return Program(None, Runtime(seq, [line_ty, one, line_ty, of_in.prod(), factor.prod(), of_out.cons()]),
                       workers=[w]).resolve_program()

    a = np.arange(256, dtype=np.int32)
    for _ in range(2):
        c = np.zeros_like(a)
        twice(a, np.array([2], np.int32), c)
        np.testing.assert_array_equal(c, a * 2)
        iron.jit.clear_memory_cache()
    assert len(built) == 1  # the second call loaded the design from disk
    assert len(list((tmp_path / "iron").glob("*/design.json"))) == 1
