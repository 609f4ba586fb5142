"""The recording contexts: a Worker's core_fn traced into C++, and a Runtime's
sequence body recorded into ops. One of each may be active at a time."""

import contextvars
import os
import sys

_worker = contextvars.ContextVar("tessel_iron_worker_trace", default=None)
_sequence = contextvars.ContextVar("tessel_iron_sequence", default=None)
site_override = contextvars.ContextVar("tessel_iron_site", default=None)  # set: the site user_site() reports

_HERE = os.path.dirname(os.path.abspath(__file__))


def worker_trace():
    return _worker.get()


def sequence():
    return _sequence.get()


def user_site():
    """(file, line) in the function being traced or recorded (the core_fn or
    the sequence body; a helper it calls is named by the line calling it),
    else of the innermost caller outside tessel.iron."""
    if site_override.get() is not None:
        return site_override.get()
    roots = [c.root for c in (_worker.get(), _sequence.get()) if c is not None and c.root is not None]
    w = _worker.get()
    if w is not None and w.roots:
        roots.extend(w.roots)
    first = None
    f = sys._getframe(1)
    while f is not None:
        if f.f_code in roots:
            return (f.f_code.co_filename, f.f_lineno)
        if first is None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) != _HERE:
            first = f
        f = f.f_back
    if first is None:
        return ("?", 0)
    return (first.f_code.co_filename, first.f_lineno)


class WorkerTrace:
    """Emits a worker's kernel: statements with #line to their core_fn line."""

    def __init__(self, worker):
        self.worker = worker
        self.root = getattr(worker.core_fn, "__code__", None)
        self.roots = set()  # code of Python kernels being traced into the body (their lines are reported)
        self.lines = []
        self.depth = 1
        self.names = 0
        self.functions = {}  # name -> ExternalFunction
        self.loops = []  # range_ loops open, innermost last
        self.blocks = [0]  # the C++ blocks open (range_ bodies, if_ / else_ blocks), innermost last
        self.block_count = 0
        self.last_if = None  # (token, index in lines of its closing brace) of the if_ block ended last
        # Barrier waits before the current statement (worker.py, _note_wait):
        self.waited = {}  # barrier number -> the largest value of a wait that needs a set
        self.passed = {}  # barrier number -> (value, site, released) of the last wait passing at once
        self.taken = {}  # barrier number -> waited for less released so far (None: not known)
        self.released = {}  # barrier number -> given by release_with_value so far
        self.rtp_reads = []  # (Buffer, element, site, waited before it, passed before it)
        self.local_buffers = []  # LocalBuffers the body declared, in order
        self.next_buffer = 0  # the number of the first of them (after the fn_args Buffers)

    def fresh(self, prefix):
        self.names += 1
        return f"{prefix}{self.names}"

    def open_block(self, head, site=None):
        """Emits `head {` and enters the block; returns its number."""
        self.emit(head + " {", site)
        return self.enter_block()

    def enter_block(self):
        """Enters a block whose opening brace is emitted already; returns its number."""
        self.depth += 1
        self.block_count += 1
        self.blocks.append(self.block_count)
        self.last_if = None
        return self.block_count

    def close_block(self):
        self.blocks.pop()
        self.depth -= 1
        self.lines.append("  " * self.depth + "}")
        self.last_if = None

    def emit(self, text, site=None):
        self.last_if = None
        file, line = site or user_site()
        pad = "  " * self.depth
        self.lines.append(f'#line {line} "{file}"')
        self.lines.append(pad + text)

    def __enter__(self):
        self._token = _worker.set(self)
        return self

    def __exit__(self, *exc):
        _worker.reset(self._token)


class SequenceRecording:
    """Collects a sequence body's ops (see program.py for their form)."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.root = getattr(runtime.sequence, "__code__", None)
        self.ops = []
        self.slots = 0
        self.registers = 0
        self.groups = []
        self.default_tasks = []
        self.explicit_used = False
        self.loop_depth = 0  # range_ loops open around the current op
        self.carried = []  # range_ loops open (what each carries, whether it yielded), innermost last
        self.discovering = False  # a first run binding the handles the body creates itself (program.py)

    def new_slot(self):
        self.slots += 1
        return self.slots - 1

    def new_register(self):
        self.registers += 1
        return self.registers - 1

    def __enter__(self):
        self._token = _sequence.set(self)
        return self

    def __exit__(self, *exc):
        _sequence.reset(self._token)
