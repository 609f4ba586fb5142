"""IRON's `aie.utils.benchmark`: timing a design's calls. Times are host
wall-clock of the simulated dispatch (tessel's cycle estimates are
`python -m tessel.iron.bench` and TESSEL_TIMING; docs/timing.md)."""

import dataclasses
import math
import statistics
import time

__all__ = ["Stats", "BenchmarkResult", "run_iters", "print_benchmark"]


@dataclasses.dataclass
class Stats:
    avg_us: float
    min_us: float
    max_us: float
    median_us: float = 0.0
    mad_us: float = 0.0
    p95_us: float = 0.0
    cov: float = 0.0
    n: int = 0
    samples_us: list = dataclasses.field(default_factory=list, repr=False)

    @classmethod
    def from_samples(cls, samples_us):
        if not samples_us:
            raise ValueError("Stats.from_samples needs at least one sample")
        s = sorted(samples_us)
        median = statistics.median(s)
        mean = sum(s) / len(s)
        return cls(avg_us=mean, min_us=s[0], max_us=s[-1], median_us=median,
                   mad_us=statistics.median(abs(x - median) for x in s),
                   p95_us=s[min(len(s) - 1, math.ceil(0.95 * len(s)) - 1)],
                   cov=statistics.stdev(s) / mean if len(s) > 1 and mean > 0 else 0.0, n=len(s),
                   samples_us=list(samples_us))


@dataclasses.dataclass
class BenchmarkResult:
    e2e: Stats
    npu: Stats = None  # when the call returns something with npu_time (ns)


def _npu_time_ns(ret):
    candidate = ret[1] if isinstance(ret, tuple) and len(ret) >= 2 else ret
    return getattr(candidate, "npu_time", None)


def run_iters(fn, *args, warmup=0, iters=1, arg_sets=None, **kwargs):
    """Call fn warmup + iters times; the timings of the last `iters`."""
    if iters < 1:
        raise ValueError(f"run_iters: iters must be >= 1, got {iters}")
    if warmup < 0:
        raise ValueError(f"run_iters: warmup must be >= 0, got {warmup}")
    if arg_sets is not None and args:
        raise ValueError("run_iters: pass either *args or arg_sets, not both")
    rotation = list(arg_sets) if arg_sets is not None else [args]
    if not rotation:
        raise ValueError("run_iters: arg_sets must hold at least one argument tuple")
    e2e, npu = [], []
    for i in range(warmup + iters):
        start = time.perf_counter()
        ret = fn(*rotation[i % len(rotation)], **kwargs)
        elapsed_us = (time.perf_counter() - start) * 1e6
        if i >= warmup:
            e2e.append(elapsed_us)
            ns = _npu_time_ns(ret)
            if ns is not None:
                npu.append(ns / 1000.0)
    return BenchmarkResult(Stats.from_samples(e2e), Stats.from_samples(npu) if npu else None)


def print_benchmark(result):
    """avg / min / max microseconds, with median, MAD and p95."""
    for label, s in (("NPU time    ", result.npu), ("End-to-end  ", result.e2e)):
        if s is not None:
            print(f"{label} (avg/min/max us): {s.avg_us:.1f} / {s.min_us:.1f} / {s.max_us:.1f}"
                  f"   [median {s.median_us:.1f}, MAD {s.mad_us:.1f}, p95 {s.p95_us:.1f}]")
