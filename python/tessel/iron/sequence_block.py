"""IRON's older Runtime API, mapped onto the sequence-body machinery
(runtime.py): one implementation of the recording, two spellings.

    rt = Runtime()
    with rt.sequence(ty_a, ty_b, ty_c) as (a, b, c):
        rt.start(worker)
        tg = rt.task_group()
        rt.fill(of_in.prod(), a, task_group=tg)
        rt.drain(of_out.cons(), c, task_group=tg, wait=True)
        rt.finish_task_group(tg)
    Program(device, rt).resolve_program()     # the workers rt.start was given

The `with` block runs once, eagerly, where the design is written. Each
rt.fill / drain / task_group / finish_task_group / set_barrier / inline_ops
call is checked there and kept as a step; when the block closes the steps
become the Runtime's sequence body, whose arguments are the block's buffer
types followed by every fifo handle the steps use (so the handles bind to
the Runtime as new-API fn_args do). Recording the body replays the steps
with the real buffers and TaskGroups, each op keeping the file:line of the
call that made it.
"""

import contextvars

from . import trace
from .dataflow import ObjectFifoHandle
from .errors import IronRuntimeError
from .placement import AnyShimTile, Tile, check_shim_pin
from .types import is_array_type

_active = contextvars.ContextVar("tessel_iron_sequence_block", default=None)


class BlockArg:
    """A buffer argument of the block (`a` in `as (a, b, c)`): replaced by
    the sequence body's RuntimeData when the steps replay."""

    def __init__(self, index, type_):
        self.index, self.type = index, type_

    def __repr__(self):
        return f"<sequence argument {self.index}>"


class BlockTaskGroup:
    """rt.task_group()'s group: a TaskGroup made when the steps replay."""

    def __init__(self, site):
        self.site = site
        self.finished = False

    def __repr__(self):
        return f"<task group of line {self.site[1]}>"


class SequenceBlock:
    def __init__(self, rt, types):
        for i, t in enumerate(types):
            if not is_array_type(t):
                raise TypeError(f"Runtime.sequence: argument {i} must be a tensor type such as "
                                f"np.ndarray[(n,), np.dtype[np.int32]], got {t!r}")
        self.rt = rt
        self.types = list(types)
        self.args = [BlockArg(i, t) for i, t in enumerate(types)]
        self.steps = []  # (site, function of the replay environment)
        self.handles = []
        self.made = []  # the BlockTaskGroups of rt.task_group()
        self.site = trace.user_site()
        self._token = None

    def __enter__(self):
        if _active.get() is not None:
            raise IronRuntimeError("Runtime.sequence: a `with rt.sequence(...)` block is open already")
        self._token = _active.set(self)
        return self.args[0] if len(self.args) == 1 else tuple(self.args)

    def __exit__(self, kind, value, tb):
        _active.reset(self._token)
        if kind is not None:
            return False
        for g in self.made:
            if not g.finished:
                raise IronRuntimeError(f"{g.site[0]}:{g.site[1]}: a task group made here by rt.task_group() is "
                                       "never finished; call rt.finish_task_group(tg) before the block ends")
        self.rt._close_block(self)
        return False

    def sequence(self, *values):
        """The sequence body: replays the steps with the block's arguments
        bound to `values` (RuntimeData, then the handles)."""
        env = {id(a): v for a, v in zip(self.args, values)}
        for site, step in self.steps:
            token = trace.site_override.set(site)  # the op reports the call that made it
            try:
                step(env)
            finally:
                trace.site_override.reset(token)

    def add(self, step):
        self.steps.append((trace.user_site(), step))


def active_block(rt, call):
    """The open block of `rt`; IronRuntimeError outside one."""
    block = _active.get()
    if block is None or block.rt is not rt:
        raise IronRuntimeError(f"Runtime.{call}() is called inside `with rt.sequence(...)`")
    return block


def _buffer(block, buf, call):
    if not isinstance(buf, BlockArg) or all(buf is not a for a in block.args):
        raise TypeError(f"Runtime.{call}: the buffer must be one of the block's arguments (`as (a, b, ...)`), "
                        f"got {buf!r}")
    return buf


def _handle(block, handle, producer, call):
    want = "producer handle (fifo.prod())" if producer else "consumer handle (fifo.cons())"
    if not isinstance(handle, ObjectFifoHandle) or handle.producer != producer:
        raise TypeError(f"Runtime.{call}: the first argument must be an ObjectFifo {want}, got {handle!r}")
    if all(handle is not h for h in block.handles):
        block.handles.append(handle)
    return handle


def _pin(handle, placement):
    if placement is None or placement is AnyShimTile:
        return
    if not isinstance(placement, Tile):
        raise TypeError(f"{handle.name}: placement= takes a shim Tile(col, 0) or AnyShimTile, got {placement!r}")
    check_shim_pin(placement, handle.name)
    if handle.tile is not None and handle.tile != placement:
        raise IronRuntimeError(f"{handle.name} is pinned to {handle.tile!r} already, and now to {placement!r}: a "
                               "host end sits on one shim tile")
    handle.tile = placement


def _group(block, group, call):
    if group is None:
        return None
    if not isinstance(group, BlockTaskGroup) or all(group is not g for g in block.made):
        raise TypeError(f"Runtime.{call}: task_group must come from rt.task_group() in this block, got {group!r}")
    if group.finished:
        raise IronRuntimeError(f"Runtime.{call}: the task group of line {group.site[1]} is already finished")
    return group


def transfer(rt, verb, handle, buf, tap, task_group, wait, placement):
    block = active_block(rt, verb)
    handle = _handle(block, handle, verb == "fill", verb)
    buf = _buffer(block, buf, verb)
    group = _group(block, task_group, verb)
    _pin(handle, placement)

    def step(env):
        getattr(handle, verb)(env[id(buf)], tap=tap, wait=wait, group=env[id(group)] if group else None)

    block.add(step)


def task_group(rt):
    from .runtime import TaskGroup

    block = active_block(rt, "task_group")
    group = BlockTaskGroup(trace.user_site())
    block.made.append(group)

    def step(env):
        env[id(group)] = TaskGroup()

    block.add(step)
    return group


def finish_task_group(rt, group):
    block = active_block(rt, "finish_task_group")
    group = _group(block, group, "finish_task_group")
    if group is None:
        raise TypeError("Runtime.finish_task_group: give the task group rt.task_group() returned")
    group.finished = True
    block.add(lambda env: env[id(group)].finish())


def set_barrier(rt, barrier, value):
    from .worker import WorkerRuntimeBarrier

    block = active_block(rt, "set_barrier")
    if not isinstance(barrier, WorkerRuntimeBarrier):
        raise TypeError(f"Runtime.set_barrier: the first argument must be a WorkerRuntimeBarrier, got {barrier!r}")
    block.add(lambda env: barrier.set(value))


def inline_ops(rt, fn, args):
    block = active_block(rt, "inline_ops")
    if not callable(fn):
        raise TypeError(f"Runtime.inline_ops: the first argument must be a function, got {fn!r}")
    args = list(args)
    block.add(lambda env: fn(*[env.get(id(a), a) for a in args]))
