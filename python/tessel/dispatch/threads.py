"""X280 work-cluster threads (spec: program.thread, program.region,
load(thread=), Run.thread_result, run.thread.read; docs/x280-threads.md).

A thread is C/C++ code (its API is tessel/x280.h) the runtime builds and
runs beside the dispatcher, in a process of its own, with load(thread="card");
with load(thread="host") its host_fallback(ctx) runs instead, on the host,
its commands through the host ring.
"""

import os
import time

import numpy as np

from .. import _check
from .errors import ProgramError

__all__ = ["ThreadDecl", "ThreadResult", "ThreadContext", "RunThreads", "PREFETCH", "WORDS_MAX"]

PREFETCH = ("documented", "off")
WORDS_MAX = 64
_CHUNK = 2 << 20
_LOGGED_OVER = 4 << 20


class ThreadDecl:
    """One declared thread (Program.thread)."""

    def __init__(self, cluster, sources, regions, words, host_fallback, deadline, prefetch, program):
        what = f"Program.thread(cluster={cluster!r})"
        self.cluster = _check.integer(cluster, f"{what}: cluster", 1, 3)
        if isinstance(sources, (str, os.PathLike)):
            sources = [sources]
        if not isinstance(sources, (list, tuple)):
            raise TypeError(f"{what}: sources must be a path or a list of paths, got {_check.describe(sources)}")
        self.sources = []
        for s in sources:
            if not isinstance(s, (str, os.PathLike)):
                raise TypeError(f"{what}: a source must be a path, got {_check.describe(s)}")
            path = os.path.abspath(os.fspath(s))
            if not os.path.isfile(path):
                raise ProgramError(f"{what}: source {path!r} does not exist")
            self.sources.append(path)
        if isinstance(regions, str):
            regions = [regions]
        if not isinstance(regions, (list, tuple)):
            raise TypeError(f"{what}: regions must be a name or a list of names, got {_check.describe(regions)}")
        self.regions = [_check.text(r, f"{what}: a region name") for r in regions]
        if isinstance(words, (str, bytes)) or not hasattr(words, "__iter__"):
            raise TypeError(f"{what}: words must be a list of 32-bit words, got {_check.describe(words)}")
        self.words = [_check.word(w, f"{what}: words[{i}]") for i, w in enumerate(words)]
        if len(self.words) > WORDS_MAX:
            raise ProgramError(f"{what}: {len(self.words)} words: a thread takes at most {WORDS_MAX}")
        if host_fallback is not None and not callable(host_fallback):
            raise TypeError(f"{what}: host_fallback must be a callable fallback(ctx) or None, got "
                            f"{_check.describe(host_fallback)}")
        self.host_fallback = host_fallback
        if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not 0 <= deadline < float("inf"):
            raise ValueError(f"{what}: deadline must be non-negative seconds (0: none), got "
                             f"{_check.describe(deadline)}")
        self.deadline = float(deadline)
        if prefetch not in PREFETCH:
            raise ProgramError(f"{what}: prefetch {prefetch!r}: expected one of {', '.join(PREFETCH)}")
        self.prefetch = prefetch
        if not self.sources and host_fallback is None:
            raise ProgramError(f"{what}: a thread needs sources (for thread='card') or a host_fallback")

    def check_regions(self, regions):
        for r in self.regions:
            if r not in regions:
                known = ", ".join(regions) or "none"
                raise ProgramError(f"Program.thread(cluster={self.cluster}): region {r!r} is not declared with "
                                   f"program.region (declared: {known})")

    def __repr__(self):
        return f"ThreadDecl(cluster={self.cluster}, sources={len(self.sources)}, regions={self.regions})"


class ThreadResult:
    """ThreadResult(cluster, status, value, error, seconds, commands, log,
    output): status "done" (value: what the thread returned), "failed" (a
    crash, exit(), a misused API: error says which), "deadline" or
    "stopped"."""

    __slots__ = ("cluster", "status", "value", "error", "seconds", "commands", "log", "output")

    def __init__(self, cluster, status, value=0, error="", seconds=0.0, commands=0, log=(), output=""):
        self.cluster, self.status, self.value, self.error = cluster, status, value, error
        self.seconds, self.commands, self.log, self.output = seconds, commands, list(log), output

    @property
    def ok(self):
        return self.status == "done"

    def __repr__(self):
        extra = f", error={self.error!r}" if self.error else ""
        return (f"ThreadResult(cluster={self.cluster}, status={self.status!r}, value={self.value}, "
                f"commands={self.commands}{extra})")


class ThreadContext:
    """What a host_fallback(ctx) gets: cluster, words, region(name) (a
    writable numpy uint8 array), submit(handler, group=None, args=(),
    result=False) -> handle, wait(handle) -> Event, log(text),
    stop_requested() (always False on the host)."""

    def __init__(self, run, decl, regions):
        self._run, self.cluster, self.words = run, decl.cluster, list(decl.words)
        self._regions = {name: regions[name] for name in decl.regions}
        self.lines = []
        self.commands = 0

    def region(self, name):
        if name not in self._regions:
            raise KeyError(f"ThreadContext.region: the thread did not declare region {name!r}")
        return self._regions[name]

    def submit(self, handler, group=None, args=(), result=False):
        handle = self._run.submit(handler, group=group, args=args, result=result)
        self.commands += 1
        return handle

    def wait(self, handle, timeout=10.0):
        return self._run.wait(handle, timeout=timeout)

    def log(self, text):
        self.lines.append(str(text))

    def stop_requested(self):
        return False


class RunThreads:
    """run.thread: read(name, cluster=None) returns a region's bytes after
    the stop (the thread's copy; cluster None: the program's only thread
    that declared it)."""

    def __init__(self, run, program, mode):
        self._run, self._program, self.mode = run, program, mode
        # Host mode: the regions' host copies, one per thread.
        self._host = {d.cluster: {n: np.frombuffer(bytearray(program.regions[n]), dtype=np.uint8)
                                  for n in d.regions} for d in program.threads}
        self._results = None

    def _cluster_for(self, name, cluster):
        owners = [d.cluster for d in self._program.threads if name in d.regions]
        if cluster is None:
            if not owners:
                raise ValueError(f"run.thread.read: no thread declared region {name!r}")
            if len(owners) > 1:
                raise ValueError(f"run.thread.read: region {name!r} has a copy on clusters {owners}: give cluster=")
            return owners[0]
        cluster = _check.integer(cluster, "run.thread.read: cluster", 1, 3)
        if cluster not in owners:
            raise ValueError(f"run.thread.read: the thread on cluster {cluster} did not declare region {name!r}")
        return cluster

    def run_fallbacks(self):
        """Host mode: each thread's host_fallback, in cluster order (once)."""
        if self._results is not None:
            return self._results
        out = []
        for d in self._program.threads:  # in declaration order, as on the card
            ctx = ThreadContext(self._run, d, self._host[d.cluster])
            t0 = time.perf_counter()
            if d.host_fallback is None:
                out.append(ThreadResult(d.cluster, "failed", error="the thread has no host_fallback"))
                continue
            try:
                value = d.host_fallback(ctx)
                status, error = "done", ""
                value = 0 if value is None else _check.word(value, "host_fallback's return value")
            except Exception as e:  # noqa: BLE001 - a fallback's failure is its result
                status, error, value = "failed", f"{type(e).__name__}: {e}", 0
            out.append(ThreadResult(d.cluster, status, value, error, time.perf_counter() - t0, ctx.commands,
                                    ctx.lines))
        self._results = out
        return out

    def read(self, name, cluster=None):
        _check.text(name, "run.thread.read: name")
        cluster = self._cluster_for(name, cluster)
        if not self._run.stopped:
            raise ValueError("run.thread.read: regions are read after run.stop()")
        if self.mode == "host":
            return self._host[cluster][name].copy()
        size = self._run._native.thread_region_bytes(cluster, name)
        if size <= _LOGGED_OVER:
            return np.frombuffer(self._run._native.thread_read(cluster, name, 0, size), dtype=np.uint8).copy()
        out = np.empty(size, dtype=np.uint8)
        for first in range(0, size, _CHUNK):
            n = min(_CHUNK, size - first)
            out[first:first + n] = np.frombuffer(self._run._native.thread_read(cluster, name, first, n), np.uint8)
            if self._run._session._log is not None:
                self._run._session._log(f"thread region {name!r} (cluster {cluster}): read {first + n} of {size} "
                                        f"bytes")
        return out
