"""Runtime: a sequence body recorded once into the stream the card runs on
every call; fill/drain tasks, TaskGroups, RTP writes and barrier sets."""

import numpy as np

from . import trace
from .dataflow import ObjectFifoHandle
from .errors import IronRuntimeError
from .expr import Scalar
from .types import array_type, element_count, is_array_type

# Op kinds (tessel::flow::OpKind).
PUSH, AWAIT, FREE, COPY, WRITE_RTP, SET_BARRIER, LOOP_BEGIN, LOOP_END = range(8)


class RuntimeData:
    """A host buffer argument of the sequence body (bound on every call)."""

    def __init__(self, index, shape, dtype, name):
        self.index, self.shape, self.dtype, self.name = index, shape, dtype, name
        self.count = element_count(shape)

    def __repr__(self):
        return f"RuntimeData({self.name}: {self.count} x {self.dtype})"


class Task:
    def __init__(self, handle, verb, buffer, wait, managed, site):
        self.handle, self.verb, self.buffer = handle, verb, buffer
        self.wait, self.managed, self.site = wait, managed, site
        self.slot = None
        self.group = None
        self.freed = False

    def _seq(self, call):
        s = trace.sequence()
        if s is None:
            raise IronRuntimeError(f"Task.{call}() is called inside a Runtime's sequence body")
        return s

    def await_(self):
        s = self._seq("await_")
        if self.managed:
            raise IronRuntimeError(f"{self.describe()}: await_() is for unmanaged tasks (managed=False); "
                                   "a managed task is awaited by its TaskGroup's finish()")
        if not self.wait:
            raise IronRuntimeError(f"{self.describe()}: await_() needs a task issued with wait=True "
                                   "(only those give a completion token)")
        _op(s, AWAIT, a=self.slot)

    def free(self):
        s = self._seq("free")
        if self.managed:
            raise IronRuntimeError(f"{self.describe()}: a managed task is freed by its TaskGroup; "
                                   "do not free it by hand")
        if self.freed:
            raise IronRuntimeError(f"{self.describe()}: freed twice")
        self.freed = True
        _op(s, FREE, a=self.slot)

    def describe(self):
        return f"the {self.handle.fifo.name} {self.verb} at line {self.site[1]}"


class TaskGroup:
    def __init__(self):
        s = trace.sequence()
        if s is None:
            raise IronRuntimeError("TaskGroup() is created inside a Runtime's sequence body")
        self.tasks = []
        self.finished = False
        self.site = trace.user_site()
        self.loop_depth = s.loop_depth
        s.groups.append(self)

    def finish(self):
        s = trace.sequence()
        if s is None:
            raise IronRuntimeError("TaskGroup.finish() is called inside a Runtime's sequence body")
        if self.finished:
            raise IronRuntimeError(f"the TaskGroup of line {self.site[1]} is finished twice")
        _finish(s, self.tasks)
        self.finished = True


def _op(s, kind, a=0, b=0, c=0, wait=False, value=None, sizes=(1, 1, 1, 1), strides=(0, 0, 0, 0)):
    s.ops.append((kind, trace.user_site()[1], a, b, c, wait, Scalar.of(0 if value is None else value),
                  list(sizes), list(strides)))
    return len(s.ops) - 1


def _finish(s, tasks):
    _check_races(tasks)
    for t in tasks:
        if t.wait:
            _op(s, AWAIT, a=t.slot)
    for t in tasks:
        _op(s, FREE, a=t.slot)
        t.freed = True


def _check_races(tasks):
    """The race rule: an un-awaited task must feed an awaited one of its group
    (its data reaches an awaited drain through the workers)."""
    from .errors import warn_or_raise

    awaited = [t for t in tasks if t.wait]
    for t in tasks:
        if t.wait:
            continue
        if not any(_feeds(t, a) for a in awaited):
            others = ", ".join(f"the {a.handle.fifo.name} {a.verb} at line {a.site[1]}" for a in awaited) or "none"
            warn_or_raise(f"{t.site[0]}:{t.site[1]}: the {t.handle.fifo.name} {t.verb} is not awaited and no awaited "
                          f"task of its TaskGroup depends on it (awaited: {others}); finish() may free its "
                          "descriptor while it still moves data: await it, or make it feed an awaited task", t.site)


def _feeds(task, awaited):
    from .links import Link

    if task.verb != "fill" or awaited.verb != "drain":
        return False
    # Fifos reachable from the filled one through workers.
    seen, todo = set(), [task.handle.fifo]
    while todo:
        f = todo.pop()
        if f is awaited.handle.fifo:
            return True
        if id(f) in seen:
            continue
        seen.add(id(f))
        for cons in f._cons:
            e = cons.endpoint
            if isinstance(e, Link):  # a split's parts, or a join's whole
                todo.extend(e.fifos if e.kind == "split" else [e.big])
            for h in getattr(e, "handles", []):
                if h.producer:
                    todo.append(h.fifo)
    return False


def record_task(s, task, group, offset, sizes, strides):
    task.slot = s.new_slot()
    if task.managed:
        depth = 0 if group is None else group.loop_depth
        if depth != s.loop_depth:
            raise IronRuntimeError(
                f"{task.describe()}: a managed task in a range_ loop needs a TaskGroup created and finished in "
                "the same loop (the " + ("default group" if group is None else f"TaskGroup of line {group.site[1]}") +
                " is finished outside it, and would free only the last iteration's task); or use managed=False "
                "with await_() and free() in the loop")
        if group is None:
            if s.explicit_used and s.runtime.strict_task_groups:
                raise IronRuntimeError(_mix_message(task))
            s.default_tasks.append(task)
        else:
            if not isinstance(group, TaskGroup):
                raise TypeError(f"{task.describe()}: group must be a TaskGroup, got {group!r}")
            if group.finished:
                raise IronRuntimeError(f"{task.describe()}: its TaskGroup (line {group.site[1]}) is already finished")
            if s.default_tasks and s.runtime.strict_task_groups:
                raise IronRuntimeError(_mix_message(s.default_tasks[0]))
            s.explicit_used = True
            group.tasks.append(task)
            task.group = group
    _op(s, PUSH, a=task.slot, b=getattr(task.handle, "channel_index", None), c=task.buffer.index, wait=task.wait,
        value=offset,
        sizes=sizes, strides=strides)


def _mix_message(task):
    return (f"{task.describe()}: this sequence uses both the default task group and explicit TaskGroups; assign "
            "every managed transfer to an explicit group (or pass strict_task_groups=False to the Runtime)")


def write_rtp(buffer, i, value):
    s = trace.sequence()
    if s is None:
        raise IronRuntimeError(f"Buffer '{buffer.name}' is written inside a Runtime's sequence body")
    if not buffer.use_write_rtp:
        raise IronRuntimeError(f"Buffer '{buffer.name}' was not declared with use_write_rtp=True")
    if buffer.worker is None:
        raise IronRuntimeError(f"Buffer '{buffer.name}' is given to no worker")
    if not isinstance(i, int) or not 0 <= i < buffer.count:
        raise IndexError(f"Buffer '{buffer.name}' has elements 0 to {buffer.count - 1}, not {i!r}")
    _op(s, WRITE_RTP, a=buffer.worker.index, b=buffer.index, c=i, value=Scalar.of(value, "an RTP value"))


def set_barrier(barrier, value):
    s = trace.sequence()
    if s is None:
        raise IronRuntimeError("WorkerRuntimeBarrier.set() is called inside a Runtime's sequence body")
    v = Scalar.of(value, "a barrier value")
    if v.is_constant() and not 0 <= v.constant <= 63:
        raise ValueError(f"WorkerRuntimeBarrier.set({v.constant}): values are 0 to 63 (the lock's range)")
    if not barrier.workers:
        raise IronRuntimeError("WorkerRuntimeBarrier.set(): the barrier is given to no worker")
    for w, number in barrier.workers:
        _op(s, SET_BARRIER, a=w.index, b=number, value=v)


def loop_begin(s, span, step=1):
    """A loop of ceil(span / step) iterations (none when span <= 0); its
    register counts them from 0."""
    reg = s.new_register()
    s.loop_depth += 1
    return reg, _op(s, LOOP_BEGIN, a=reg, c=step, value=span)


def loop_end(s, reg, begin):
    s.loop_depth -= 1
    for g in s.groups:
        if g.loop_depth > s.loop_depth and not g.finished:
            raise IronRuntimeError(f"{g.site[0]}:{g.site[1]}: a TaskGroup created in a range_ loop is not finished "
                                   "before the loop's iteration ends")
    end = _op(s, LOOP_END, a=reg, b=begin)
    k = s.ops[begin]
    s.ops[begin] = (k[0], k[1], k[2], end) + k[4:]


class Runtime:
    """The host side of a design. New API: Runtime(sequence_body, fn_args).
    Older API: Runtime() and a `with rt.sequence(types...) as (...)` block
    calling rt.start / fill / drain / task_group / finish_task_group /
    set_barrier / inline_ops (sequence_block.py), which becomes the body."""

    def __init__(self, sequence=None, *types, fn_args=None, strict_task_groups=None):
        """Runtime(body, fn_args), or Runtime(body, buffer_types, fn_args=handles)
        (a spelling of IRON's: the body receives the buffers, then the
        handles), or Runtime() for the older API's block."""
        if len(types) > 1:
            raise TypeError(f"Runtime: takes the sequence body and its fn_args, got {1 + len(types)} positional "
                            "arguments")
        if types and fn_args is not None:
            fn_args = list(types[0]) + list(fn_args)
        elif types:
            fn_args = types[0]
        fn_args = () if fn_args is None else fn_args
        # The default task group and explicit ones may not mix (the spec's rule, by
        # default) in a body; the older API's block never had that rule, and
        # IRON's older designs mix them, so there it is off unless asked for.
        self.strict_task_groups = (sequence is not None) if strict_task_groups is None else bool(strict_task_groups)
        self.workers = []  # the workers rt.start() was given (older API)
        self.trace_size = None  # rt.enable_trace(): accepted and noted; tessel traces with TESSEL_TRACE
        self.source_file = None
        if sequence is None:
            if fn_args:
                raise TypeError("Runtime: fn_args are the arguments of a sequence body; give the body too "
                                "(Runtime(body, fn_args)), or use Runtime() with a `with rt.sequence(...)` block")
            self.sequence = self._open_block  # replaced by the block's body when the block closes
            self._block = "unopened"
            self.fn_args, self.params, self.handles, self.buffers = [], [], [], []
            return
        if not callable(sequence):
            raise TypeError(f"Runtime: the sequence body must be a function, got {sequence!r}")
        self._block = None
        self.sequence = sequence
        self._bind_args(list(fn_args))

    def _bind_args(self, fn_args):
        from . import dispatch_time

        self.fn_args = fn_args
        self.params = dispatch_time.claim_runtime_args(self, self.fn_args)
        claimed = {pos for pos, _ in self.params}
        self.handles = []
        self.buffers = []  # (position, shape, dtype)
        for i, a in enumerate(self.fn_args):
            if i in claimed:
                continue
            for h in (a if isinstance(a, (list, tuple)) else [a]):  # IRON passes handles in (nested) lists too
                if isinstance(h, ObjectFifoHandle):
                    if h.endpoint is not None and h.endpoint is not self:
                        raise IronRuntimeError(f"Runtime: handle {h.name} already belongs to "
                                               f"{getattr(h.endpoint, 'name', 'another Runtime')}")
                    h.endpoint = self
                    self.handles.append(h)
            if is_array_type(a):
                shape, dtype = array_type(a, f"Runtime fn_args[{i}]")
                self.buffers.append((i, shape, dtype))
            elif isinstance(a, type) and issubclass(a, np.generic):
                raise NotImplementedError("Runtime: scalar-type arguments are DispatchTime parameters here "
                                          "(use tessel.iron.jit with DispatchTime[...])")

    # -- the older API

    def _open_block(self, *types):
        """rt.sequence(ty, ...) opens the older API's block; rt.sequence(body,
        fn_args) (a spelling between the two APIs) gives the body as
        Runtime(body, fn_args) would."""
        from .sequence_block import SequenceBlock

        if self._block != "unopened":
            raise IronRuntimeError("Runtime.sequence(): this Runtime has its sequence already (one "
                                   "`with rt.sequence(...)` block or rt.sequence(body, fn_args) per Runtime)")
        if types and callable(types[0]) and not is_array_type(types[0]):
            if len(types) > 2:
                raise TypeError("Runtime.sequence(body, fn_args): takes the body and one list of fn_args")
            self._block = None
            self.sequence = types[0]
            self._bind_args(list(types[1]) if len(types) > 1 else [])
            return None
        return SequenceBlock(self, types)

    def _close_block(self, block):
        self._block = block
        self.sequence = block.sequence
        self.source_file = block.site[0]
        self._bind_args(list(block.types) + list(block.handles))

    def start(self, *workers):
        """Older API: the workers the design runs (Program takes them from here)."""
        from .sequence_block import active_block
        from .worker import Worker

        active_block(self, "start")
        for w in workers:
            if not isinstance(w, Worker):
                raise TypeError(f"Runtime.start: takes Workers, got {w!r}")
            if all(w is not x for x in self.workers):
                self.workers.append(w)

    def fill(self, handle, source, tap=None, task_group=None, wait=False, placement=None):
        """Older API: handle.fill(source, tap, wait, group), pinned to the shim Tile `placement`."""
        from .sequence_block import transfer

        transfer(self, "fill", handle, source, tap, task_group, wait, placement)

    def drain(self, handle, dest, tap=None, task_group=None, wait=False, placement=None):
        """Older API: handle.drain(dest, tap, wait, group), pinned to the shim Tile `placement`."""
        from .sequence_block import transfer

        transfer(self, "drain", handle, dest, tap, task_group, wait, placement)

    def task_group(self):
        """Older API: a TaskGroup, finished by rt.finish_task_group(tg)."""
        from .sequence_block import task_group

        return task_group(self)

    def finish_task_group(self, group):
        from .sequence_block import finish_task_group

        finish_task_group(self, group)

    def set_barrier(self, barrier, value):
        """Older API: barrier.set(value)."""
        from .sequence_block import set_barrier

        set_barrier(self, barrier, value)

    def inline_ops(self, fn, args):
        """Older API: fn(*args) in the sequence (Buffer element writes become RTP writes)."""
        from .sequence_block import inline_ops

        inline_ops(self, fn, args)

    def enable_trace(self, trace_size=None, **options):
        """Accepted and noted: tessel writes its event trace when TESSEL_TRACE names a file (docs/trace.md)."""
        self.trace_size = trace_size

    def record(self, discovering=False):
        """Runs the body once; returns the recording (discovering: a first
        run binding the handles the body creates itself, program.py)."""
        s = trace.SequenceRecording(self)
        s.discovering = discovering
        param_regs = {pos: k for k, (pos, _) in enumerate(self.params)}
        s.registers = len(self.params)
        args = []
        buf_index = 0
        for i, a in enumerate(self.fn_args):
            if i in param_regs:
                args.append(Scalar.register(param_regs[i]))
            elif is_array_type(a):
                _, shape, dtype = self.buffers[buf_index]
                args.append(RuntimeData(buf_index, shape, dtype, f"arg{i}"))
                buf_index += 1
            else:
                args.append(a)
        with s:
            self.sequence(*args)
            for g in s.groups:
                if not g.finished:
                    raise IronRuntimeError(f"{g.site[0]}:{g.site[1]}: a TaskGroup created here is never "
                                           "finished; call finish() before the sequence body ends")
            if s.default_tasks:
                _finish(s, s.default_tasks)
        return s
