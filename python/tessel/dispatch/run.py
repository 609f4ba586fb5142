"""Run: a persistent program loaded on a session's card (the spec's Run
table): submit, wait, drain, events, stop, abort, results, state and trace."""

import operator
import time

import numpy as np

from .. import _check
from . import abi
from .run_engines import EngineCalls

_K = abi.headers().constants
STATE_WORDS = _K["KM_STATE_WORDS"]
_BCAST_WORDS = _K["KM_BCAST_WORDS"]
# State word names from the runtime's header: KM_WORD_PASS -> "pass", ...
WORD_INDEX = {k[len("KM_WORD_"):].lower(): v for k, v in _K.items() if k.startswith("KM_WORD_")}
PHASES = {v: k[len("KM_PHASE_"):].lower() for k, v in _K.items() if k.startswith("KM_PHASE_")}

__all__ = ["Run", "Event", "Result", "Trace"]

_TIMER_MHZ = 50


class Event:
    """Event(handle, kind, auxiliary, ticks, result): kind is done, timeout,
    pong or rejected; auxiliary the group's first core (done), the slot
    (timeout) or the reason (rejected); ticks submit to completion in the
    card's 50 MHz timer (the result word for a result=True command)."""

    __slots__ = ("handle", "kind", "auxiliary", "ticks", "result")

    def __init__(self, handle, kind, auxiliary, ticks, result):
        self.handle, self.kind, self.auxiliary, self.ticks, self.result = handle, kind, auxiliary, ticks, result

    @property
    def microseconds(self):
        return self.ticks / _TIMER_MHZ

    def __repr__(self):
        extra = "" if self.result is None else f", result={self.result}"
        return f"Event(handle={self.handle}, kind={self.kind!r}, auxiliary={self.auxiliary}, ticks={self.ticks}{extra})"

    def __eq__(self, other):
        return isinstance(other, Event) and all(getattr(self, s) == getattr(other, s) for s in self.__slots__)


class Result:
    """The kernel's result block, decoded: ready, state, error, error_name,
    message, commands, events, rejected, error_slot, error_sequence,
    cluster0_restored, abandoned (handles left without their done event)."""

    def __init__(self, fields):
        self.__dict__.update(fields)
        self.abandoned = list(fields.get("abandoned", ()))

    @property
    def clean(self):
        return self.ready and self.error == 0 and self.cluster0_restored

    def __repr__(self):
        get = self.__dict__.get
        return (f"Result(state={get('state')}, error={get('error_name')!r}, commands={get('commands')}, "
                f"events={get('events')}, abandoned={len(self.abandoned)})")


class Trace:
    """The cores' trace of a stopped run: command(handle) gives each core's
    wall-clock words (taken, written, sent, passes; 50 MHz ticks),
    phases(handle) microseconds after the first core took it, lead(a, b) how
    long before a's completion a core of b took its command (positive: both
    were in flight at once)."""

    def __init__(self, native, grid_x):
        self._native = native
        self._grid_x = grid_x

    def command(self, handle):
        out = {}
        for core, taken, written, sent, passes in self._native.trace(handle):
            out[(core % self._grid_x, core // self._grid_x)] = {"taken": taken, "written": written, "sent": sent,
                                                                 "passes": passes}
        return out

    def phases(self, handle):
        c = self.command(handle)
        if not c:
            return {}
        t0 = min(v["taken"] for v in c.values())
        return {core: {k: (v[k] - t0) / _TIMER_MHZ for k in ("taken", "written", "sent") if v[k]}
                for core, v in c.items()}

    def lead(self, earlier, later):
        a, b = self.command(earlier), self.command(later)
        if not a or not b:
            return None
        sent = max(v["sent"] for v in a.values())
        taken = min(v["taken"] for v in b.values())
        return (sent - taken) / _TIMER_MHZ


def _handles(handles, what):
    if isinstance(handles, (int, np.integer)) and not isinstance(handles, bool):
        return np.array([operator.index(handles)], dtype=np.uint64), True
    if isinstance(handles, range):
        return np.arange(handles.start, handles.stop, handles.step, dtype=np.uint64), False
    try:
        values = [_check.integer(h, f"{what}: a handle", 1, (1 << 63) - 1) for h in handles]
    except TypeError:
        raise TypeError(f"{what}: handles must be a handle, a range or a list of handles, got "
                        f"{_check.describe(handles)}") from None
    return np.array(values, dtype=np.uint64), False


def _core_numbers(values, what):
    """One core number or a 1-D sequence of them, as uint32 (integers only)."""
    if isinstance(values, (bool, np.bool_)) or isinstance(values, (str, bytes)) or not (
            isinstance(values, (int, np.integer)) or hasattr(values, "__iter__")):
        raise TypeError(f"{what} must be a core number or a sequence of them, got {_check.describe(values)}")
    a = np.asarray(values)
    if a.ndim > 1:
        raise ValueError("Run.submit_many: firsts and counts must be one value or a 1-D sequence each")
    a = np.atleast_1d(a)
    if a.size and (a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"{what} must be integer core numbers, got {_check.describe(values)}")
    if a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF):
        raise ValueError(f"{what} must be non-negative core numbers")
    return np.ascontiguousarray(a, dtype=np.uint32)



class Run(EngineCalls):
    """A loaded persistent program. Made by Session.load. Its engine calls
    (upload, start, wait_engine, ...) are EngineCalls'."""

    def __init__(self, native, session, program, thread_mode="card"):
        from .threads import RunThreads

        self._native = native
        self._session = session
        self._program = program
        self.thread = RunThreads(self, program, thread_mode)  # run.thread.read(name)
        self._cores = session.grid[0] * session.grid[1]
        self._python_wait_s = 0.0

    # -- commands ------------------------------------------------------------

    def _handler(self, handler, what="Run.submit"):
        if isinstance(handler, str):
            return self._program.handler(handler)
        return self._program.handler(_check.integer(handler, f"{what}: handler", 0, 239))

    def submit(self, handler, group=None, args=(), exclusive=False, result=False, queued=False):
        """Queue one command; returns its handle (1, 2, ...)."""
        number = self._handler(handler)
        for name, flag in (("exclusive", exclusive), ("result", result), ("queued", queued)):
            _check.flag(flag, f"Run.submit: {name}")
        if queued:
            count = _check.integer(group, "Run.submit: group (a core count for queued=True)", 1, self._cores)
            first = 0
        elif group is None:
            first, count = 0, self._cores
        else:
            if not isinstance(group, (tuple, list)) or len(group) != 2:
                raise TypeError(f"Run.submit: group must be (first, count) or None, got {_check.describe(group)}")
            first = _check.integer(group[0], "Run.submit: group's first core", 0, self._cores - 1)
            count = _check.integer(group[1], "Run.submit: group's count", 1, self._cores)
            if first + count > self._cores:
                raise ValueError(f"Run.submit: group ({first}, {count}) does not lie inside the {self._cores} cores")
        if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
            raise TypeError(f"Run.submit: args must be a sequence of at most ten integer words, got "
                            f"{_check.describe(args)}")
        words = [_check.word(a, f"Run.submit: args[{i}]") for i, a in enumerate(args)]
        if len(words) > 10:
            raise ValueError(f"Run.submit: {len(words)} args: a command carries at most ten words")
        return self._native.submit(number, first, count, words, exclusive, result, queued)

    def submit_many(self, handler, firsts, counts, args=None, exclusive=False):
        """Queue n commands at once; returns their handles as a range. handler,
        firsts and counts are one value or n each; args an [n, m] integer
        matrix (m <= 10) or None. Everything is checked before any is queued."""
        what = "Run.submit_many"
        _check.flag(exclusive, f"{what}: exclusive")
        if isinstance(handler, (list, tuple, np.ndarray)):
            handlers = [self._handler(h, what) for h in handler]
        else:
            handlers = [self._handler(handler, what)]
        f = _core_numbers(firsts, f"{what}: firsts")
        c = _core_numbers(counts, f"{what}: counts")
        n = max(len(handlers) if isinstance(handler, (list, tuple, np.ndarray)) else 0, len(f), len(c))
        columns, a = 0, None
        if args is not None:
            a = np.asarray(args)
            if a.ndim != 2 or a.shape[1] > 10 or not (a.size == 0 or np.issubdtype(a.dtype, np.integer)):
                raise ValueError(f"{what}: args must be an [n, m] integer matrix with m <= 10, got shape "
                                 f"{a.shape} of {a.dtype}")
            if a.size and (a.min() < 0 or a.max() > 0xFFFFFFFF):
                raise ValueError(f"{what}: args must be 32-bit words (0 .. 4294967295)")
            n = max(n, a.shape[0])
            columns = a.shape[1]
            a = np.ascontiguousarray(a, dtype=np.uint32).ravel()
        for name, v in (("handler", handlers), ("firsts", f), ("counts", c)):
            if len(v) not in (1, n) and n:
                raise ValueError(f"{what}: {name} has {len(v)} values: expected 1 or {n}")
        if n == 0:
            following = self._native.submitted() + 1
            return range(following, following)
        first = self._native.submit_many(np.asarray(handlers, dtype=np.uint32), f, c, a, columns, exclusive, n)
        return range(first, first + n)

    # -- events --------------------------------------------------------------

    @staticmethod
    def _event(t):
        return Event(*t)

    def wait(self, handles, timeout=10.0):
        """Store what is queued, wait until each handle has its event; returns
        the Event (or a list) and forgets those handles."""
        hs, single = _handles(handles, "Run.wait")
        t0 = time.perf_counter()
        try:
            events = self._native.wait(hs, _check.timeout(timeout, "Run.wait"))
        finally:
            self._python_wait_s += time.perf_counter() - t0
        out = [Event(*e) for e in events]
        return out[0] if single else out

    def wait_any(self, handles, timeout=10.0):
        """Wait until one of the handles has its event; returns it (the lowest if several)."""
        hs, _ = _handles(handles, "Run.wait_any")
        t0 = time.perf_counter()
        try:
            return Event(*self._native.wait_any(hs, _check.timeout(timeout, "Run.wait_any")))
        finally:
            self._python_wait_s += time.perf_counter() - t0

    def drain(self, timeout=10.0):
        """Wait for every submitted command; returns how many events it waited for."""
        t0 = time.perf_counter()
        try:
            return self._native.drain(_check.timeout(timeout, "Run.drain"))
        finally:
            self._python_wait_s += time.perf_counter() - t0

    def event(self, handle):
        e = self._native.event(_check.integer(handle, "Run.event: handle", 1, (1 << 63) - 1))
        return None if e is None else Event(*e)

    def sequence(self, handle):
        return self._native.sequence(_check.integer(handle, "Run.sequence: handle", 1, (1 << 63) - 1))

    def group(self, handle):
        return self._native.group(_check.integer(handle, "Run.group: handle", 1, (1 << 63) - 1))

    def forget(self, handles):
        hs, _ = _handles(handles, "Run.forget")
        self._native.forget(hs)

    # -- the end -------------------------------------------------------------

    def stop(self, timeout=10.0):
        """Drain, EXIT every core, wait for the kernels, read back. Returns the
        result block; raises KernelFailed unless it is clean. With
        load(thread="host"), host_fallbacks not run yet run first."""
        timeout = _check.timeout(timeout, "Run.stop")
        if self.thread.mode == "host" and self._program.threads and not self._native.stopped():
            self.thread.run_fallbacks()
        return Result(self._native.stop(timeout))

    def thread_result(self, timeout=10.0):
        """A program with X280 threads: waits for each (stopping one still
        running when timeout passes) and returns its ThreadResult, or a list
        of them for several. With load(thread="host") the host_fallbacks run
        here, on the calling thread, their commands through this run."""
        from .threads import ThreadResult

        if not self._program.threads:
            from ..errors import ValidationError

            raise ValidationError("Run.thread_result: the program has no X280 thread")
        timeout = _check.timeout(timeout, "Run.thread_result")
        if self.thread.mode == "host":
            results = self.thread.run_fallbacks()
        else:
            results = [ThreadResult(*t) for t in self._native.thread_result(timeout)]
        return results[0] if len(results) == 1 else results

    def abort(self):
        """The failure path: stop the grid from the host, then the dispatcher; read back."""
        return Result(self._native.abort())

    @property
    def stopped(self):
        return self._native.stopped()

    def result(self):
        return Result(self._native.result())

    def state_words(self, what="Run.state_words"):
        """Each core's raw state words, [cores, words] uint32 (after the stop)."""
        if not self._native.stopped():
            from ..errors import ValidationError

            raise ValidationError(f"{what}: the state words are read after the stop")
        return np.asarray(self._native.state_words(), dtype=np.uint32).reshape(self._cores, STATE_WORDS)

    def state(self):
        """Each core's state words as a dict, by core (x, y) (after the stop)."""
        words = self.state_words("Run.state")
        bwords = np.asarray(self._native.broadcast_words(), dtype=np.uint32).reshape(self._cores, _BCAST_WORDS)
        pwords = np.asarray(self._native.port_words(), dtype=np.uint32).reshape(
            self._cores, _K["KM_PORTS"], _K["KM_PORT_WORDS"])
        gx = self._session.grid[0]
        out = {}
        for i, w in enumerate(words):
            d = {name: int(w[index]) for name, index in WORD_INDEX.items()}
            d["phase"] = PHASES.get(d["phase"], d["phase"])
            pw = pwords[i]
            d["ports"] = [{"port": p, "count": int(pw[p, _K["KM_PORT_COUNT"]]),
                           "wanted": int(pw[p, _K["KM_PORT_WANTED"]]), "sent": int(pw[p, _K["KM_PORT_SENT"]]),
                           "received": int(pw[p, _K["KM_PORT_RECEIVED"]]),
                           "gave_up": {0: None, 1: "sending", 2: "receiving"}.get(int(pw[p, _K["KM_PORT_GAVE_UP"]]))}
                          for p in range(_K["KM_PORTS"]) if pw[p].any()]
            b = bwords[i]
            d["broadcasts"] = [] if not b.any() else [{
                "valid": int(b[_K["KM_BCAST_VALID"]]),
                "blocks": int(b[_K["KM_BCAST_BLOCKS"]]),
                "wait_ticks": int(b[_K["KM_BCAST_WAIT_TICKS"]]),
                "first_give_up": int(b[_K["KM_BCAST_GAVE_UP"]]) - 1 if b[_K["KM_BCAST_GAVE_UP"]] else None,
                "done_by": int(b[_K["KM_BCAST_DONE_BY"]]),
                "wanted": [int(v) for v in b[_K["KM_BCAST_WANTED"]:_K["KM_BCAST_WANTED"] + _K["KM_BCAST_WINDOW_MAX"]]],
            }]
            out[(i % gx, i // gx)] = d
        return out

    def trace(self):
        if not self._native.stopped():
            raise ValueError("Run.trace: the trace is read after run.stop()")
        return Trace(self._native, self._session.grid[0])

    @property
    def submit_s(self):
        return self._native.submit_s()

    @property
    def wait_s(self):
        return max(self._python_wait_s, self._native.wait_s())

    @property
    def native_s(self):
        return self._native.native_s()
