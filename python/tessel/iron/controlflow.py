"""range_ / yield_: loops that stay loops. In a core_fn they become C++ for
loops in the worker's kernel; in a sequence body, loops of the recorded
stream (their trip count may be a DispatchTime value). Outside both, range_
is Python's range."""

from . import trace
from .expr import Scalar


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

    if iter_args is not None:
        raise NotImplementedError("range_ with iter_args (carried tasks and groups) is not supported yet")
    if not (isinstance(step, int) and step == 1 and isinstance(start, int) and start == 0):
        raise NotImplementedError("range_ in a sequence body counts from 0 in steps of 1 here")
    reg, begin = loop_begin(s, Scalar.of(stop, "range_ stop"))
    yield Scalar.register(reg)
    loop_end(s, reg, begin)


def yield_(values=None):
    raise NotImplementedError("yield_ (carrying tasks and groups through range_) is not supported yet")
