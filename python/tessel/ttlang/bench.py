"""python -m tessel.ttlang.bench: TT-Lang's tutorial workloads (workloads.py)
on tessel, and on TT-Lang's simulator (tt-lang-sim) in the same process
when it is installed, as ratios. Each line is `<figure> <value> <unit>`.

- run time: the operation's call with a warm plan (the best of several on
  tessel; the simulator's single run, which takes seconds), and the ratio;
- whole process: the same workload as a script under `python -m
  tessel.ttlang` with a warm kernel cache, and under `tt-lang-sim`;
- cold: the first call in a process with an empty kernel cache (trace the
  body, compile the kernels to C++, JIT-build them, run);
- compile: DSL -> C++ per kernel function;
- host reference: the workload's arithmetic as one numpy call in float32
  (`a * b + c`; `a @ b` through the host's BLAS on all its cores), the
  floor under any simulator that computes the values, with both
  simulators' run times as multiples of it.

Options: --quick (smaller sizes), --no-sim (tessel only).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from . import workloads

CASES = {  # name: (workload, block, grid, shapes (M, K, N) or (rows, cols))
    "eltwise 2048^2 4x4 blocks 8x8 grid": ("eltwise", 4, (8, 8), (2048, 2048)),
    "eltwise 2048^2 4x4 blocks full grid": ("eltwise", 4, "full", (2048, 2048)),
    "matmul 1024^3 tile by tile 1 node": ("matmul", 1, (1, 1), (1024, 1024, 1024)),
    "matmul 1024^3 4x4x4 blocks 1 node": ("matmul", 4, (1, 1), (1024, 1024, 1024)),
}
QUICK = {"eltwise": (512, 512), "matmul": (256, 256, 256)}


def _sim():
    try:
        from ttl.sim import ttl as sim_ttl  # noqa: F401  (TT-Lang's simulator)
        from ttl.sim import ttnn as sim_ttnn
        return sim_ttl, sim_ttnn
    except ImportError:
        return None


def _inputs(kind, shape, rng):
    if kind == "eltwise":
        return [rng.random(shape, dtype=np.float32) for _ in range(3)], shape
    m, k, n = shape
    return [rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)], (m, n)


def _tensors(ttnn, device, arrays, out_shape):
    try:
        import torch
        to = lambda a: torch.from_numpy(a).to(torch.bfloat16)  # noqa: E731
        zeros = torch.zeros(out_shape, dtype=torch.bfloat16)
    except ImportError:
        to = lambda a: a  # noqa: E731
        zeros = np.zeros(out_shape, np.float32)
    kw = dict(dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)
    return [ttnn.from_torch(to(a), **kw) for a in arrays] + [ttnn.from_torch(zeros, **kw)]


def _run_time(ttl, ttnn, case, shape, repeats):
    kind, block, grid, _ = CASES[case]
    arrays, out_shape = _inputs(kind, shape, np.random.default_rng(0))
    device = ttnn.open_device(device_id=0)
    try:
        op = getattr(workloads, kind)(ttl, ttnn, block, grid)
        tensors = _tensors(ttnn, device, arrays, out_shape)
        best = float("inf")
        for _ in range(repeats):
            t = time.perf_counter()
            op(*tensors)
            best = min(best, time.perf_counter() - t)
        return best
    finally:
        ttnn.close_device(device)


_SCRIPT = """\
import time, numpy as np
import ttl, ttnn
from tessel.ttlang import workloads
case = {case!r}
kind, block, grid, shape = {kind!r}, {block!r}, {grid!r}, {shape!r}
from tessel.ttlang.bench import _inputs, _tensors
arrays, out_shape = _inputs(kind, shape, np.random.default_rng(0))
device = ttnn.open_device(device_id=0)
op = getattr(workloads, kind)(ttl, ttnn, block, grid)
tensors = _tensors(ttnn, device, arrays, out_shape)
t = time.perf_counter()
op(*tensors)
print("first-call", time.perf_counter() - t)
ttnn.close_device(device)
"""


def _host_reference(kind, shape, repeats=3):
    arrays, _ = _inputs(kind, shape, np.random.default_rng(0))
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        if kind == "eltwise":
            arrays[0] * arrays[1] + arrays[2]
        else:
            arrays[0] @ arrays[1]
        best = min(best, time.perf_counter() - t)
    return best


def _process(case, shape, command, env=None):
    kind, block, grid, _ = CASES[case]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "workload.py")
        with open(path, "w") as f:
            f.write(_SCRIPT.format(case=case, kind=kind, block=block, grid=grid, shape=shape))
        t = time.perf_counter()
        r = subprocess.run(command + [path], capture_output=True, text=True, env=env, timeout=3600)
        wall = time.perf_counter() - t
    if r.returncode:
        raise RuntimeError(f"{' '.join(command)} {case}: exit {r.returncode}\n{r.stderr[-2000:]}")
    first = float(next(line.split()[1] for line in r.stdout.splitlines() if line.startswith("first-call")))
    return wall, first


def _compile_time():
    """DSL -> C++ per kernel function: trace + compile a plan, over its kernels."""
    import tessel.ttl as ttl
    import tessel.ttnn as ttnn
    device = ttnn.open_device(device_id=0)
    try:
        arrays, out_shape = _inputs("matmul", (256, 256, 256), np.random.default_rng(0))
        tensors = [ttl.as_tensor(t, "bench") for t in _tensors(ttnn, device, arrays, out_shape)]
        best = float("inf")
        for _ in range(5):
            op = workloads.matmul(ttl, ttnn, 2, (1, 1))
            t = time.perf_counter()
            plan = op.plan(tuple(tensors))
            best = min(best, (time.perf_counter() - t) / len(plan.functions))
        return best
    finally:
        ttnn.close_device(device)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tessel.ttlang.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--no-sim", action="store_true", help="tessel only, even when tt-lang-sim is installed")
    p.add_argument("--cases", nargs="*", help="substrings selecting the cases")
    options = p.parse_args(argv)
    import tessel.ttl as ttl
    import tessel.ttnn as ttnn
    sim = None if options.no_sim else _sim()
    print(f"tt-lang-sim {'installed: ratios against it' if sim else 'not installed: tessel figures only'}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"compile dsl-to-c++ {_compile_time() * 1e3:.1f} ms/kernel")
    for case, (kind, _, _, shape) in CASES.items():
        if options.cases and not any(s in case for s in options.cases):
            continue
        if options.quick:
            shape = QUICK[kind]
        label = case if not options.quick else f"{case} (quick {shape})"
        ours = _run_time(ttl, ttnn, case, shape, 3)
        print(f"{label}: tessel run {ours * 1e3:.1f} ms")
        host = _host_reference(kind, shape)
        multiples = f"tessel {ours / host:.1f}x"
        if sim:
            theirs = _run_time(*sim, case, shape, 1)
            print(f"{label}: tt-lang-sim run {theirs * 1e3:.1f} ms, tessel {theirs / ours:.1f}x faster")
            multiples += f", tt-lang-sim {theirs / host:.1f}x"
        print(f"{label}: host reference (numpy float32) {host * 1e3:.2f} ms; {multiples} of it")
        env = dict(os.environ)
        with tempfile.TemporaryDirectory() as cold:
            env_cold = dict(env, TESSEL_CACHE_DIR=cold)
            _, first_cold = _process(case, shape, [sys.executable, "-m", "tessel.ttlang"], env_cold)
            wall, _ = _process(case, shape, [sys.executable, "-m", "tessel.ttlang"], env_cold)
        print(f"{label}: tessel cold first call {first_cold:.2f} s (empty kernel cache); whole process "
              f"{wall:.2f} s (warm cache)")
        if sim:
            sim_wall, _ = _process(case, shape, [sys.executable, "-m", "ttl.sim.ttlang_sim"])
            print(f"{label}: tt-lang-sim whole process {sim_wall:.2f} s, tessel {sim_wall / wall:.1f}x faster")


if __name__ == "__main__":
    main()
