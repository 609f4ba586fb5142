"""The event trace's statistics (include/tessel/trace_stats.hpp): what each
RISC of each core of a traced device spent its time on, what it moved and
computed, and the longest waits, read back from the trace file
(Device.open(trace=...), TESSEL_TRACE). `python -m tessel stats FILE` prints
them; docs/trace.md describes the file."""

import os
from dataclasses import dataclass

from . import _check, _tessel
from .core import CoreCoord

__all__ = ["TraceDevice", "TraceRisc", "TraceStats", "TraceTiles", "TraceWait", "trace_stats"]


@dataclass(frozen=True)
class TraceDevice:
    """One traced device: a process of the trace file."""

    process_id: int
    label: str
    time_base: str  # "logical" (simulated API calls) or "estimated" (cycles)
    begin: int
    end: int
    ring_events: int  # 0: every event was written
    stopped_waits_left_out: int = 0  # its waits runs stopped in beyond the 1024 TraceStats.stopped_waits holds


@dataclass(frozen=True)
class TraceTiles:
    matmul: int
    eltwise: int
    sfpu: int
    pack: int
    unpack: int

    @property
    def math(self) -> int:
        return self.matmul + self.eltwise + self.sfpu


@dataclass(frozen=True)
class TraceRisc:
    """One RISC of one core, over every kernel it ran (times in the trace's time base)."""

    process_id: int
    core: CoreCoord
    risc: str
    kernels: str
    kernel_runs: int
    kernel_time: int
    wait_time: int
    waits: int
    noc_read_bytes: int
    noc_write_bytes: int
    noc_transfers: int
    cb_pages_pushed: int
    cb_pages_popped: int
    commands: int
    tiles: TraceTiles

    @property
    def busy_time(self) -> int:
        return self.kernel_time - self.wait_time


@dataclass(frozen=True)
class TraceWait:
    """One wait span: where a RISC blocked, for what and for how long."""

    process_id: int
    core: CoreCoord
    risc: str
    name: str
    what: str
    file: str
    line: int
    begin: int
    duration: int
    stopped: bool = False  # the run stopped in it (a deadlock, an error, an interrupt): it never ended


@dataclass(frozen=True)
class TraceStats:
    path: str
    events: int
    complete: bool  # the file ends as a closed device leaves it
    devices: tuple
    riscs: tuple
    longest_waits: tuple
    report: str  # the table `python -m tessel stats` prints
    stopped_waits: tuple = ()  # the waits runs stopped in, in the file's order (at most 1024; see TraceDevice)

    def __str__(self):
        return self.report


def trace_stats(path, *, longest_waits: int = 10) -> TraceStats:
    """Read the statistics of the trace at `path`, keeping the
    `longest_waits` longest waits. Raises tessel.ValidationError when the file
    cannot be read or is not a trace."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"trace_stats: path must be a path (str or os.PathLike), got {_check.describe(path)}")
    n = _check.integer(longest_waits, "trace_stats: longest_waits", 0, 1 << 20)
    events, complete, devices, riscs, waits, report, stopped = _tessel.trace_stats(os.fspath(path), n)
    return TraceStats(
        path=os.fspath(path), events=events, complete=complete,
        devices=tuple(TraceDevice(*d) for d in devices),
        riscs=tuple(TraceRisc(r[0], CoreCoord(r[1], r[2]), *r[3:15], TraceTiles(*r[15])) for r in riscs),
        longest_waits=tuple(TraceWait(w[0], CoreCoord(w[1], w[2]), *w[3:]) for w in waits),
        report=report,
        stopped_waits=tuple(TraceWait(w[0], CoreCoord(w[1], w[2]), *w[3:]) for w in stopped))
