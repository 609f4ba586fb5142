"""Worker: a persistent kernel on one core, generated from its core_fn; and
WorkerRuntimeBarrier, a lock per worker the sequence body sets (0..63)."""

from . import trace
from .buffer import Buffer, LocalBuffer
from .dataflow import ObjectFifo, ObjectFifoHandle
from .errors import IronRuntimeError
from .placement import AnyComputeTile, Tile


class WorkerRuntimeBarrier:
    def __init__(self, initial_value=0):
        _check_value("WorkerRuntimeBarrier initial_value", initial_value)
        self.initial_value = initial_value
        self.workers = []  # (worker, barrier number on it)

    def wait_for_value(self, value):
        self._core_call("wait_for_value", value)

    def release_with_value(self, value):
        self._core_call("release_with_value", value)

    def _core_call(self, call, value):
        t = trace.worker_trace()
        if t is None:
            raise IronRuntimeError(f"WorkerRuntimeBarrier.{call}() is called inside a Worker's core_fn")
        _check_value(f"WorkerRuntimeBarrier.{call}", value)
        number = dict((id(w), b) for w, b in self.workers).get(id(t.worker))
        if number is None:
            raise IronRuntimeError(f"this barrier was not given to worker '{t.worker.name}' in its fn_args")
        site = trace.user_site()
        t.emit(f"iron::{call}({number}, {value});", site)
        if call == "wait_for_value":
            _note_wait(t, number, value, self.initial_value, site)
        else:
            _note_release(t, number, value)

    def set(self, value):
        from .runtime import set_barrier

        set_barrier(self, value)


def _note_wait(t, number, value, initial_value, site):
    """Notes a wait_for_value(value) of barrier `number` for the runtime-
    parameter window (rtp_window.py). A wait that the barrier's initial
    value (less what the worker's waits took from it before) already holds
    passes at once: it orders nothing. Any other wait needs a set of the
    sequence. Inside a range_ loop, or after a wait that needed a set, what
    the lock holds is not known here: the wait is taken to need a set."""
    if value == 0:  # a wait for 0 passes at once: it orders nothing
        return
    taken = t.taken.get(number, 0)
    if t.loops or taken is None or initial_value - taken < value:
        t.waited[number] = max(value, t.waited.get(number, 0))
        t.taken[number] = None
    else:
        t.passed[number] = (value, site, t.released.get(number, 0))
        t.taken[number] = taken + value


def _note_release(t, number, value):
    """A release_with_value(value) gives the worker's later waits `value`
    (how often, inside a range_ loop, is not known here)."""
    taken = t.taken.get(number, 0)
    t.taken[number] = None if t.loops or taken is None else taken - value
    t.released[number] = t.released.get(number, 0) + value


def _check_value(what, value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 63:
        raise ValueError(f"{what}: barrier values are integers 0 to 63 (the lock's range), got {value!r}")


class Worker:
    _count = 0

    def __init__(self, core_fn, fn_args=(), placement=AnyComputeTile, while_true=True, stack_size=None,
                 allocation_scheme=None, trace=None, name=None, tile=None):
        if tile is not None:  # IRON's newer name for placement
            if placement is not AnyComputeTile and placement != tile:
                raise TypeError(f"Worker: placement={placement!r} and tile={tile!r} name two tiles; give one")
            placement = tile
        from . import dispatch_time

        if core_fn is not None and not callable(core_fn):
            raise TypeError(f"Worker: core_fn must be a function, got {core_fn!r}")
        fn_args = list(fn_args)
        dispatch_time.check_worker_args(fn_args)
        for i, a in enumerate(fn_args):
            if isinstance(a, ObjectFifo):
                raise TypeError(f"Worker fn_args[{i}] is the ObjectFifo '{a.name}' itself: pass a handle, "
                                f"{a.name}.prod() or {a.name}.cons()")
        if placement is not AnyComputeTile and not isinstance(placement, Tile):
            raise TypeError(f"Worker: placement must be a Tile or AnyComputeTile, got {placement!r}")
        Worker._count += 1
        self.name = name or f"worker{Worker._count - 1}"
        self.core_fn = core_fn
        self.fn_args = fn_args
        self.tile = placement
        self.while_true = while_true
        self.handles = []
        self.barriers = []
        self.buffers = []
        self.rtp_reads = []  # from generate(): (Buffer, element, site, barriers waited for before it)
        for i, a in enumerate(fn_args):
            if isinstance(a, ObjectFifoHandle):
                if a.endpoint is not None and a.endpoint is not self:
                    raise IronRuntimeError(f"Worker '{self.name}': handle {a.name} already belongs to "
                                           f"{getattr(a.endpoint, 'name', 'the Runtime')}")
                a.endpoint = self
                a.index = len(self.handles)
                self.handles.append(a)
            elif isinstance(a, WorkerRuntimeBarrier):
                a.workers.append((self, len(self.barriers)))
                self.barriers.append(a)
            elif isinstance(a, Buffer):
                if a.worker is not None and a.worker is not self:
                    raise IronRuntimeError(f"Buffer '{a.name}' is given to two workers ('{a.worker.name}' and "
                                           f"'{self.name}'); a Buffer lives on one core")
                a.worker, a.index = self, len(self.buffers)
                self.buffers.append(a)

    def generate(self):
        """The worker's kernel source (C++), from one trace of core_fn, and
        the include directories its external kernels need."""
        t = trace.WorkerTrace(self)
        self.rtp_reads = t.rtp_reads
        self.buffers = [a for a in self.buffers if not isinstance(a, LocalBuffer)]  # a new trace declares them anew
        t.next_buffer = len(self.buffers)
        if self.core_fn is not None:
            with t:
                if self.while_true:
                    t.lines.append("  for (;;) {")
                    t.depth = 2
                self.core_fn(*self.fn_args)
                if self.while_true:
                    t.lines.append("  }")
        self.buffers.extend(t.local_buffers)  # numbered after the fn_args Buffers as they were declared
        head = ['#include "tessel/iron.h"']
        sources = {}  # a source shared by several functions goes in once
        for f in t.functions.values():
            key = (f.source_string if f.source_string is not None else f.source_file, tuple(f.defines))
            sources.setdefault(key, f.source_text())
        head.extend(sources.values())
        body = "\n".join(t.lines)
        dirs = list(dict.fromkeys(d for f in t.functions.values() for d in f.include_dirs))
        return "\n".join(head) + f"\n#line 1 \"{self.name}\"\nvoid kernel_main() {{\n{body}\n}}\n", dirs

    def __repr__(self):
        return f"Worker({self.name})"


__all__ = ["Worker", "WorkerRuntimeBarrier"]
