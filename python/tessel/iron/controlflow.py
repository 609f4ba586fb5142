"""range_ / yield_: loops that stay loops. In a core_fn they become C++ for
loops in the worker's kernel; in a sequence body, loops of the recorded
stream (their trip count may be a DispatchTime value). Outside both, range_
is Python's range."""

from . import trace
from .errors import IronRuntimeError
from .expr import Scalar
from .runtime import Task, TaskGroup


class _CoreIndex:
    def __init__(self, name):
        self.name = name

    def c_expr(self):
        return self.name


def range_(start, stop=None, step=1, iter_args=None):
    if stop is None:
        start, stop = 0, start
    t = trace.worker_trace()
    s = trace.sequence()
    if t is not None:
        return _core_loop(t, start, stop, step)
    if s is not None:
        return _sequence_loop(s, start, stop, step, iter_args)
    return range(start, stop, step)


def _core_loop(t, start, stop, step):
    for v, what in ((start, "start"), (stop, "stop"), (step, "step")):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"range_ in a core_fn: {what} must be an integer (a CompileTime value), got {v!r}")
    if step <= 0:
        raise ValueError("range_ in a core_fn: step must be positive")
    i = t.fresh("i")
    t.emit(f"for (int32_t {i} = {start}; {i} < {stop}; {i} += {step}) {{")
    t.depth += 1
    yield _CoreIndex(i)
    t.depth -= 1
    t.lines.append("  " * t.depth + "}")


def _sequence_loop(s, start, stop, step, iter_args):
    from .runtime import loop_begin, loop_end

    if not (isinstance(step, int) and step == 1 and isinstance(start, int) and start == 0):
        raise NotImplementedError("range_ in a sequence body counts from 0 in steps of 1 here")
    if iter_args is None:
        reg, begin = loop_begin(s, Scalar.of(stop, "range_ stop"))
        yield Scalar.register(reg)
        loop_end(s, reg, begin)
        return
    carried = [_carry_in(s, a) for a in iter_args]
    reg, begin = loop_begin(s, Scalar.of(stop, "range_ stop"))
    inside = [_proxy(s, c, in_loop=True) for c in carried]
    s.carried.append({"carried": carried, "yielded": False})
    after = []
    try:
        after = [_proxy(s, c, in_loop=False) for c in carried]
        yield Scalar.register(reg), _one(inside), _one(after)
        if not s.carried[-1]["yielded"]:
            raise IronRuntimeError("range_ with iter_args: the loop body must end with yield_([...]) giving the "
                                   "values carried into the next iteration")
    finally:
        s.carried.pop()
    loop_end(s, reg, begin)
    for a in after:  # handed back after the loop: the caller finishes them
        if isinstance(a, TaskGroup):
            s.groups.append(a)


def _one(values):
    return values[0] if len(values) == 1 else tuple(values)


def _carry_in(s, a):
    """Moves a Task or TaskGroup into slots of its own for the loop."""
    from .runtime import COPY, _op

    if isinstance(a, Task):
        slot = s.new_slot()
        _op(s, COPY, a=slot, b=a.slot)
        a.freed = True  # now the loop's
        return ("task", [slot], [a])
    if isinstance(a, TaskGroup):
        if a.finished:
            raise IronRuntimeError(f"range_ iter_args: the TaskGroup of line {a.site[1]} is already finished")
        slots = []
        for t in a.tasks:
            slots.append(s.new_slot())
            _op(s, COPY, a=slots[-1], b=t.slot)
        a.finished = True  # spent: the loop carries it
        return ("group", slots, list(a.tasks))
    raise NotImplementedError(f"range_ iter_args carries Tasks and TaskGroups here, not {a!r}")


def _proxy(s, carried, in_loop):
    kind, slots, tasks = carried
    proxies = []
    for slot, t in zip(slots, tasks):
        p = Task(t.handle, t.verb, t.buffer, t.wait, t.managed if kind == "task" else True, t.site)
        p.slot = slot
        proxies.append(p)
    if kind == "task":
        return proxies[0]
    g = TaskGroup.__new__(TaskGroup)
    g.tasks, g.finished, g.site = proxies, False, tasks[0].site if tasks else trace.user_site()
    g.loop_depth = s.loop_depth
    for p in proxies:
        p.group = g
    if in_loop:
        s.groups.append(g)
    return g


def yield_(values=None):
    from .runtime import COPY, _op

    s = trace.sequence()
    if s is None or not s.carried:
        raise IronRuntimeError("yield_() ends the body of a range_ loop with iter_args in a sequence body")
    frame = s.carried[-1]
    values = list(values or [])
    if len(values) != len(frame["carried"]):
        raise ValueError(f"yield_: the loop carries {len(frame['carried'])} values, yielded {len(values)}")
    for v, (kind, slots, tasks) in zip(values, frame["carried"]):
        if kind == "task":
            if not isinstance(v, Task):
                raise TypeError(f"yield_: the loop carries a Task here, got {v!r}")
            _op(s, COPY, a=slots[0], b=v.slot)
            v.freed = True
        else:
            if not isinstance(v, TaskGroup):
                raise TypeError(f"yield_: the loop carries a TaskGroup here, got {v!r}")
            got, want = [t.wait for t in v.tasks], [t.wait for t in tasks]
            if got != want:
                raise ValueError(f"yield_: the yielded TaskGroup has transfers waited {got} but the loop carries a "
                                 f"group waited {want}; every iteration must issue the same transfers in the same "
                                 "order")
            for slot, t in zip(slots, v.tasks):
                _op(s, COPY, a=slot, b=t.slot)
            v.finished = True  # spent
    frame["yielded"] = True
