"""range_ / yield_ and if_ / else_: control flow that stays control flow. In
a core_fn, range_ becomes a C++ for loop of the worker's kernel (its index a
value of the body) and if_ / else_ a C++ if; in a sequence body, range_ is a
loop of the recorded stream (its trip count may be a DispatchTime value).
Outside both, range_ is Python's range."""

from contextlib import contextmanager

import numpy as np

from . import trace
from .errors import IronRuntimeError
from .expr import Scalar
from .runtime import Task, TaskGroup
from .values import BOOL, INDEX, Value, operand


def range_(start, stop=None, step=None, iter_args=None, insert_yield=True):
    """IRON's range_: range_(stop) or range_(start, stop[, step]) with an
    optional iter_args. With insert_yield=True (the default) the loop ends
    each iteration by itself; with insert_yield=False the body ends with
    yield_([...]) (yield_([]) when nothing is carried). A loop carrying
    iter_args always ends with the yield_ of the values carried on."""
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    start, stop, step = (int(v) if isinstance(v, np.integer) else v for v in (start, stop, step))
    t = trace.worker_trace()
    s = trace.sequence()
    if t is not None:
        return _core_loop(t, start, stop, step, iter_args, insert_yield)
    if s is not None:
        return _sequence_loop(s, start, stop, step, iter_args, insert_yield)
    return range(start, stop, step)


def _check_step(step, where):
    if isinstance(step, Scalar) and not step.is_constant():
        raise NotImplementedError(f"range_ in a {where}: a step that is a runtime value is not supported yet; "
                                  "give an integer")
    if not isinstance(step, int) or isinstance(step, bool):
        raise TypeError(f"range_ in a {where}: step must be an integer, got {step!r}")
    if step <= 0:
        raise ValueError(f"range_ in a {where}: step must be positive (an scf.for step), got {step}")
    return step


def _end_frame(frame, yielded_what):
    if not frame["insert_yield"] and not frame["yielded"]:
        raise IronRuntimeError(f"range_(..., insert_yield=False): the loop body must end with {yielded_what}")


def _core_bound(v, what):
    """A loop bound of a core_fn: an integer, or an integer value of the body."""
    if hasattr(v, "c_value"):
        v = v.c_value()
    if isinstance(v, Value):
        if not v.kind.integer or v.kind is BOOL:
            raise TypeError(f"range_ in a core_fn: {what} must be an integer, got a {v.kind.name} value")
        return operand(v, INDEX, f"range_ {what}")
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"range_ in a core_fn: {what} must be an integer or an integer value of the body, got {v!r}")
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError(f"range_ in a core_fn: {what} {v} is outside the 64-bit index range")
    return f"int64_t({v}LL)"


def _core_loop(t, start, stop, step, iter_args, insert_yield):
    lo, hi = _core_bound(start, "start"), _core_bound(stop, "stop")
    if not isinstance(step, int) or isinstance(step, bool):
        raise TypeError(f"range_ in a core_fn: step must be an integer (a CompileTime value), got {step!r}")
    _check_step(step, "core_fn")
    if iter_args:
        raise NotImplementedError("range_ in a core_fn: iter_args are not supported yet")
    i = t.fresh("i")
    end = t.fresh("end")
    t.emit(f"const int64_t {end} = {hi};")
    t.open_block(f"for (int64_t {i} = {lo}; {i} < {end}; {i} += {step})")
    frame = {"carried": [], "yielded": False, "insert_yield": insert_yield}
    t.loops.append(frame)
    try:
        yield Value(t, i, INDEX)
    finally:
        t.loops.pop()
    _end_frame(frame, "yield_([])")
    t.close_block()


class _IfBlock:
    """What `with if_(cond) as x` gives: else_(x) continues it."""

    def __init__(self):
        self.closed_at = None  # the index of its closing brace in the kernel's lines
        self.has_else = False


def _condition(cond):
    if hasattr(cond, "c_value"):
        cond = cond.c_value()
    if isinstance(cond, Value):
        if cond.kind is BOOL:
            return cond.c_expr()
        if cond.kind.integer:
            return f"({cond.c_expr()} != 0)"
        raise TypeError(f"if_: the condition must be a comparison or an integer value, got a {cond.kind.name} value")
    if isinstance(cond, (bool, np.bool_)):
        return "true" if cond else "false"
    raise TypeError(f"if_: the condition must be a value of the core_fn (a comparison), got {cond!r}; a condition "
                    "known while tracing is a plain Python `if`")


@contextmanager
def if_(cond, results=None, *, hasElse=False, has_else=False):
    """`with if_(cond):` runs its block when cond holds; `with else_(x):`
    right after it (x from `with if_(cond) as x`) when it does not."""
    t = trace.worker_trace()
    if t is None:
        raise IronRuntimeError("if_() is used inside a Worker's core_fn")
    if results:
        raise NotImplementedError("if_ with results is not supported; write the results to an object or a Buffer")
    block = _IfBlock()
    t.open_block(f"if ({_condition(cond)})")
    try:
        yield block
    finally:
        t.close_block()
    block.closed_at = len(t.lines) - 1
    t.last_if = block


@contextmanager
def else_(if_block=None):
    t = trace.worker_trace()
    if t is None:
        raise IronRuntimeError("else_() is used inside a Worker's core_fn")
    last = t.last_if
    if last is None or (if_block is not None and if_block is not last):
        raise IronRuntimeError("else_() must come right after the `with if_(...)` block it continues")
    if last.has_else:
        raise IronRuntimeError("this if_ block has an else_ already")
    last.has_else = True
    t.lines[last.closed_at] += " else {"
    t.enter_block()
    try:
        yield last
    finally:
        t.close_block()


def _sequence_bounds(start, stop, step):
    """(stop - start, the first index, the step): the card runs
    ceil((stop - start) / step) iterations."""
    if isinstance(step, Scalar) and step.is_constant():
        step = step.constant
    step = _check_step(step, "sequence body")
    first = Scalar.of(start, "range_ start")
    return Scalar.of(stop, "range_ stop") - first, first, step


def _sequence_loop(s, start, stop, step, iter_args, insert_yield):
    from .runtime import loop_begin, loop_end

    span, first, step = _sequence_bounds(start, stop, step)
    if iter_args is None:
        reg, begin = loop_begin(s, span, step)
        frame = {"carried": [], "yielded": False, "insert_yield": insert_yield}
        s.carried.append(frame)
        try:
            yield first + step * Scalar.register(reg)
        finally:
            s.carried.pop()
        _end_frame(frame, "yield_([])")
        loop_end(s, reg, begin)
        return
    carried = [_carry_in(s, a) for a in iter_args]
    reg, begin = loop_begin(s, span, step)
    inside = [_proxy(s, c, in_loop=True) for c in carried]
    # With iter_args the body yields the carried values itself, whichever
    # insert_yield says (IRON's own spelling is insert_yield=False).
    s.carried.append({"carried": carried, "yielded": False, "insert_yield": False})
    after = []
    try:
        after = [_proxy(s, c, in_loop=False) for c in carried]
        yield first + step * Scalar.register(reg), _one(inside), _one(after)
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

    values = list(values or [])
    t = trace.worker_trace()
    if t is not None:
        if not t.loops or t.loops[-1]["insert_yield"]:
            raise IronRuntimeError("yield_() in a core_fn ends the body of a range_(..., insert_yield=False) loop")
        if values:
            raise NotImplementedError("range_ in a core_fn: iter_args are not supported yet, so yield_ takes []")
        t.loops[-1]["yielded"] = True
        return
    s = trace.sequence()
    if s is None or not s.carried:
        raise IronRuntimeError("yield_() ends the body of a range_ loop with iter_args (or insert_yield=False) "
                               "in a sequence body")
    frame = s.carried[-1]
    if frame["insert_yield"]:
        raise IronRuntimeError("yield_(): this range_ loop carries nothing and ends its iterations itself "
                               "(insert_yield=True); pass insert_yield=False to end them with yield_([])")
    if frame["yielded"]:
        raise IronRuntimeError("yield_(): the loop body has yielded already")
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


# aie.helpers.dialects.ext.scf spells range_ `_for` (designs import it `as range_`).
_for = range_
