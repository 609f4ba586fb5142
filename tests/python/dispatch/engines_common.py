"""What the engine tests share (test_engine_streams.py, test_engine_graphs.py,
test_engine_runs.py): the basic program on a 4 x 2 Blackhole device (the
C++ tests' kernels: fill = 1, result = 3: arg0 * 2 + the core's index in the
group, count = 5), a module run every test releases its uploads on, a
session of its own for the tests that look at offsets, count the kernel's
events or stop the run, and helpers that build and patch engines.
"""

import struct
import time

import pytest

import tessel
import tessel.dispatch as km
from tessel.dispatch.engines import (ERROR_NAMES, OPS, CpuNode, EngineEvent, EngineHandle, Graph, HostfedResult,
                                     Stream, Upload)

from .common import BASIC, BASIC_HEADER, GRID, CORES, K

RESULT, COUNT, NOP = 3, 5, 0  # basic.hpp's handlers
LINE = K["KM_LINE_BYTES"]
HEADER = LINE // 4  # words of the header line
NODE = K["KM_NODE_WORDS"]
M32 = 0xFFFFFFFF


def basic_program():
    return km.Program("basic", BASIC, buffers=[km.Buffer(0, "uint32", 64, 1)], handlers=km.abi.handlers(BASIC_HEADER),
                      depth=4)


@pytest.fixture(scope="module")
def shared():
    """One run for the tests that leave the region as they found it."""
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        run = s.load(basic_program())
        yield run
        if not run.stopped:
            result = run.stop()
            assert result.error_name == "none"
        s.close()


@pytest.fixture
def run(shared):
    """The shared run, checked to be left empty: no upload, no engine."""
    assert shared.uploads() == []
    yield shared
    left = shared.uploads()
    for u in left:  # a failed test's uploads: do not let them spoil the next test
        if u.state != "running":
            shared.release(u)
    assert left == [], f"the test left uploads behind: {left}"


@pytest.fixture
def session():
    with tessel.Device.open(arch="blackhole", grid=GRID) as d:
        s = km.Session(device=d)
        yield s
        s.close()


@pytest.fixture
def fresh(session):
    """A run of its own (offsets from 0, its own result block); stopped at the end."""
    r = session.load(basic_program())
    yield r
    if not r.stopped:
        r.stop()


# ---------------------------------------------------------------------------
# helpers


def words_of(data):
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def bytes_of(words):
    return struct.pack(f"<{len(words)}I", *words)


def patched(data, index, change):
    """The upload `data` with word `index` (from the header's first word) replaced by change(word)."""
    w = words_of(data)
    w[index] = change(w[index]) & M32
    return bytes_of(w)


def byte_set(word, byte, value):
    return (word & ~(0xFF << (8 * byte))) | (value << (8 * byte))


def finish(run, engine, bindings=(), kind=None, timeout=10.0):
    """Upload, start and wait for `engine`; release it. Returns (handle, end event or EngineError)."""
    up = run.upload(engine, kind=kind)
    try:
        h = run.start(up, bindings)
        try:
            return h, run.wait_engine(h, timeout)
        except km.EngineError as e:
            return h, e
    finally:
        if up.state == "running":
            run.cancel(h)
            with pytest.raises(km.EngineError):
                run.wait_engine(h, timeout)
        run.release(up)


def spinning(req, **kw):
    """A stream that adds 1 to r0 forever (until cancelled)."""
    s = Stream(req, **kw)
    r = s.register()
    top = s.here()
    s.addi(r, r, 1)
    s.jmp(top)
    return s


def counting_stream(req):
    """r0 counts to r3 (a binding); each pass SUBMITs `result` (2 * r0 + index 0) on (2, 3) into r1 and posts it."""
    s = Stream(req)
    i, out, more, n = (s.register() for _ in range(4))
    s.li(i, 0)
    top = s.here()
    s.submit(RESULT, group=(2, 3), args=[i], result=out)
    s.event(out)
    s.addi(i, i, 1)
    s.lt(more, i, n)
    s.bnz(more, top)
    s.halt(i)
    return s


def counting_graph(req, keep=False, max_runs=100):
    """While counter < limit: `result` on (1, 2) writes 2 * counter into `doubled`, then counter += 1."""
    g = Graph(deadline_microseconds=0, max_runs=max_runs, req=req, keep=keep)
    counter, limit = g.bindings("counter", "limit")
    doubled = g.register()
    cmd = g.command(RESULT, group=(1, 2), args=[counter], result=doubled)
    cpu = g.cpu(after=[cmd])
    cpu.addi(counter, counter, 1)
    cpu.lt(g.again, counter, limit)
    return g


def values(events):
    return [(e.kind, e.value) for e in events]


# Operand pairs of the ALU tests (streams and graphs).
PAIRS = [(0xF0F01234, 37), (5, 5), (3, 0xFFFFFFFF), (0x80000001, 1)]


def alu_reference(name, a, b):
    s = b & 31
    return {
        "mov": a, "add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
        "shl": a << s, "shr": a >> s, "min": min(a, b), "max": max(a, b), "lt": int(a < b), "le": int(a <= b),
        "gt": int(a > b), "ge": int(a >= b), "eq": int(a == b), "ne": int(a != b),
    }[name] & M32

