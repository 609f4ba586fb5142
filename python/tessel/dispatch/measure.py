"""The persistent dispatcher's figures beside silicon's (the spec's, one
p150a, X280 at 1000 MHz), as ratios.

    python -m tessel.dispatch.measure bench --n 100000 --depth 16 --group 1 --batch 64 --host-depth 64 --pll 1000
    python -m tessel.dispatch.measure exclusive --cores 1 12 120
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

from . import Program, Session

SILICON_HOST_FED_US = {1000: 1.228, 1750: 0.726}
SILICON_EXCLUSIVE_US = {1: 1.90, 12: 2.28, 120: 2.27}


def _program(depth):
    from .. import _tessel  # noqa: F401 - the examples directory comes with the package

    root = os.environ.get("TESSEL_EXAMPLES_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                                 "examples")
    return Program("measure", os.path.join(root, "dispatch_measure", "kernels"), depth=depth)


def host_fed_us(session, n=100000, depth=16, group=1, batch=64, host_depth=64):
    """Microseconds per host-fed NOP command: submit_many, then drain."""
    run = session.load(_program(depth), batch=batch, host_depth=host_depth)
    cores = session.grid[0] * session.grid[1]
    firsts = (np.arange(n, dtype=np.int64) * group) % (cores - group + 1)
    t0 = time.perf_counter()
    run.submit_many(0, firsts, group)
    run.drain(timeout=120.0)
    us = (time.perf_counter() - t0) / n * 1e6
    run.stop()
    return us


def exclusive_period_us(session, cores, warmup=10, measured=99):
    """Back-to-back exclusive NOPs on `cores` cores: the first core's take of one
    command to that of the next, median of `measured` after `warmup`."""
    run = session.load(_program(16), trace=warmup + measured + 1)
    handles = [run.submit(0, group=(0, cores), exclusive=True) for _ in range(warmup + measured + 1)]
    run.wait(handles, timeout=60.0)
    run.stop()
    trace = run.trace()
    takes = [min(v["taken"] for v in trace.command(h).values()) for h in handles]
    periods = [(b - a) / 50.0 for a, b in zip(takes[warmup:], takes[warmup + 1:])]
    return statistics.median(periods)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tessel.dispatch.measure", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    b = sub.add_parser("bench", help="host-fed NOP commands")
    b.add_argument("--n", type=int, default=100000)
    b.add_argument("--depth", type=int, default=16)
    b.add_argument("--group", type=int, default=1)
    b.add_argument("--batch", type=int, default=64)
    b.add_argument("--host-depth", type=int, default=64)
    b.add_argument("--pll", type=int, default=1000)
    b.add_argument("--repeat", type=int, default=3, help="runs; the median and the best print")
    e = sub.add_parser("exclusive", help="the period of back-to-back exclusive NOPs")
    e.add_argument("--cores", type=int, nargs="+", default=[1, 12, 120])
    e.add_argument("--pll", type=int, default=1000)
    a = p.parse_args(argv)
    with Session(pll_mhz=a.pll) as session:
        if a.what == "bench":
            runs = sorted(host_fed_us(session, a.n, a.depth, a.group, a.batch, a.host_depth)
                          for _ in range(max(1, a.repeat)))
            us = statistics.median(runs)
            ref = SILICON_HOST_FED_US.get(a.pll)
            ratio = f" (silicon {ref}: {us / ref:.2f}x)" if ref else ""
            print(f"host-fed NOP, depth {a.depth}, group {a.group}, batch {a.batch}, host depth {a.host_depth}: "
                  f"{us:.3f} us per command, median of {len(runs)} (best {runs[0]:.3f}){ratio}")
        else:
            for cores in a.cores:
                us = exclusive_period_us(session, cores)
                ref = SILICON_EXCLUSIVE_US.get(cores)
                ratio = f" (silicon {ref}: {us / ref:.2f}x)" if ref else ""
                print(f"exclusive NOP back to back on {cores} cores: period {us:.2f} us{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
