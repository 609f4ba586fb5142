"""Bad input to tessel.iron's design calls: the exact error, naming the call,
the part and what was expected, raised at construction or resolve time
before anything is built."""

import numpy as np
import pytest

import tessel.iron as iron
from tessel.iron import (Buffer, ObjectFifo, Program, Runtime, TensorAccessPattern, Tile, Worker,
                         WorkerRuntimeBarrier)

line = np.ndarray[(64,), np.dtype[np.int32]]
vec = np.ndarray[(256,), np.dtype[np.int32]]
vec16 = np.ndarray[(256,), np.dtype[np.int16]]


def message(exc_type, fn):
    with pytest.raises(exc_type) as e:
        fn()
    assert type(e.value) is exc_type or isinstance(e.value, exc_type)
    return str(e.value)


def copy_core(i, o):
    x = i.acquire(1)
    o.acquire(1)
    i.release(1)
    o.release(1)
    return x


def resolve(device, seq, core_fn=copy_core, types=(vec, vec), worker_args=None, fifo_type=line):
    of_in, of_out = ObjectFifo(fifo_type, name="in"), ObjectFifo(fifo_type, name="out")
    args = worker_args(of_in, of_out) if worker_args else [of_in.cons(), of_out.prod()]
    w = Worker(core_fn, args)
    return Program(device, Runtime(seq, [*types, of_in.prod(), of_out.cons()]), [w]).resolve_program()


def good_seq(a, c, i, o):
    i.fill(a)
    o.drain(c, wait=True)


CONSTRUCT = [
    ("obj_type", TypeError, lambda: ObjectFifo(np.int32),
     "ObjectFifo obj_type must be a type like np.ndarray[(16,), np.dtype[np.int32]], got <class 'numpy.int32'>"),
    ("depth", ValueError, lambda: ObjectFifo(line, depth=0), "ObjectFifo: depth must be an integer >= 1, got 0"),
    ("tile", TypeError, lambda: Tile(-1, 0), "Tile: col must be an integer >= 0, got -1"),
    ("prod-tile", TypeError, lambda: ObjectFifo(line, name="f").prod(tile=(0, 0)),
     "f.prod(tile=...) takes a shim Tile(col, 0) or AnyShimTile, got (0, 0)"),
    ("fifo-in-worker", TypeError, lambda: Worker(copy_core, [ObjectFifo(line, name="g")]),
     "Worker fn_args[0] is the ObjectFifo 'g' itself: pass a handle, g.prod() or g.cons()"),
    ("core-fn", TypeError, lambda: Worker(3), "Worker: core_fn must be a function, got 3"),
    ("barrier", ValueError, lambda: WorkerRuntimeBarrier(64),
     "WorkerRuntimeBarrier initial_value: barrier values are integers 0 to 63 (the lock's range), got 64"),
    ("rtp-type", TypeError, lambda: Buffer(np.ndarray[(4,), np.dtype[np.int16]], use_write_rtp=True),
     "Buffer: runtime parameters here are 32-bit integers (np.int32 / np.uint32)"),
    ("split-cover", ValueError,
     lambda: ObjectFifo(line, name="s").cons().split([0, 16], obj_types=[np.ndarray[(16,), np.dtype[np.int32]]] * 2),
     "s.cons().split(): the parts must tile the 64-element object of s exactly, without overlap; they cover "
     "[(0, 16), (16, 32)]"),
    ("split-prod", iron.IronRuntimeError, lambda: ObjectFifo(line, name="p").prod().split([0]),
     "p.prod().split(): only consumer handles can be split"),
    ("ext-sources", TypeError, lambda: iron.ExternalFunction("k", arg_types=[]),
     "ExternalFunction 'k': give exactly one of source_file= and source_string="),
]


@pytest.mark.parametrize("name,exc,fn,want", CONSTRUCT, ids=[c[0] for c in CONSTRUCT])
def test_construction(name, exc, fn, want):
    assert message(exc, fn) == want


def test_fill_of_a_consumer_and_drain_of_a_producer(device):
    def seq(a, c, i, o):
        o.fill(a)

    assert message(iron.IronRuntimeError, lambda: resolve(device, seq)) == \
        "out.cons().fill(): fill a producer handle (of.prod()); this is a consumer"

    def seq2(a, c, i, o):
        i.drain(c)

    assert message(iron.IronRuntimeError, lambda: resolve(device, seq2)) == \
        "in.prod().drain(): drain a consumer handle (of.cons()); this is a producer"


def test_a_buffer_of_another_element_type(device):
    assert message(TypeError, lambda: resolve(device, good_seq, types=(vec16, vec))) == \
        "in.prod().fill(): buffer 'arg0' holds int16, the fifo's objects hold int32 (4 bytes each, not 2)"


def test_a_tap_over_another_tensor(device):
    def seq(a, c, i, o):
        i.fill(a, tap=TensorAccessPattern((8, 8), 0, [8, 8], [8, 1]))
        o.drain(c, wait=True)

    assert message(ValueError, lambda: resolve(device, seq)) == \
        "in.prod().fill(): the tap is over 64 elements, buffer 'arg0' has 256"


def test_acquire_beyond_the_depth_and_handles_not_given(device):
    def deep(i, o):
        i.acquire(3)

    assert message(iron.IronRuntimeError, lambda: resolve(device, good_seq, core_fn=deep)) == \
        "in.cons().acquire(3): n must be 1 to the handle's depth 2"

    stray = ObjectFifo(line, name="stray").cons()

    def other(i, o):
        stray.acquire(1)

    assert message(iron.IronRuntimeError, lambda: resolve(device, good_seq, core_fn=other)).startswith(
        "stray.cons().acquire(): this handle was not given to worker 'worker")


def test_verbs_outside_their_context():
    f = ObjectFifo(line, name="ctx")
    assert message(iron.IronRuntimeError, lambda: f.cons().acquire(1)) == \
        "ctx.cons().acquire() is called inside a Worker's core_fn"
    assert message(iron.IronRuntimeError, lambda: f.prod().fill(None)) == \
        "ctx.prod().fill() is called inside a Runtime's sequence body"
    assert message(iron.IronRuntimeError, lambda: iron.TaskGroup()) == \
        "TaskGroup() is created inside a Runtime's sequence body"


def test_a_barrier_value_out_of_range_in_the_body(device):
    b = WorkerRuntimeBarrier()

    def core_fn(i, o, b):
        b.wait_for_value(1)
        copy_core(i, o)

    def seq(a, c, i, o):
        b.set(64)
        good_seq(a, c, i, o)

    assert message(ValueError, lambda: resolve(device, seq, core_fn=core_fn,
                                               worker_args=lambda i, o: [i.cons(), o.prod(), b])) == \
        "WorkerRuntimeBarrier.set(64): values are 0 to 63 (the lock's range)"


def test_a_fifo_without_a_consumer(device):
    def seq(a, c, i, o):
        i.fill(a)

    of_in, of_out = ObjectFifo(line, name="in"), ObjectFifo(line, name="out")
    w = Worker(copy_core, [of_in.cons(), of_out.prod()])
    with pytest.raises(iron.IronRuntimeError) as e:
        Program(device, Runtime(seq, [vec, vec, of_in.prod()]), [w]).resolve_program()
    assert str(e.value) == ("ObjectFifo 'out' has no consumer: give out.cons() to a Worker or to the Runtime")
