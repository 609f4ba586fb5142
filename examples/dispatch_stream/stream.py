"""stream: a stream that submits a pipeline of commands and reports its
progress with EVENTs — 24 jobs of 8 cores (each core doubling a bf16 tile,
the map example's kernels), enqueued back to back with no host step between
them; after every 4th job it waits for the enqueued ones and posts the jobs
done. The output is checked against the host.

    python examples/dispatch_stream/stream.py
"""

import os
import sys
import time

import numpy as np

import tessel.dispatch as km
from tessel.dispatch.engines.stream import Stream

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, os.pardir, "dispatch_map", "kernels")


def pipeline(map_handler, src, dst, jobs, group, every=4):
    """r0 jobs done, r1 the job's first tile, r2 scratch; bindings: r3 the job count."""
    s = Stream(req=2, deadline_microseconds=10_000_000)
    done, tile, scratch, count = (s.register() for _ in range(4))
    top, skip = s.here(), s.label()
    s.enqueue(map_handler, group=(0, group), args=[src, dst, tile])
    s.addi(tile, tile, group)
    s.addi(done, done, 1)
    s.andi(scratch, done, every - 1)
    s.bnz(scratch, skip)
    s.wait()          # every 4th job: the enqueued commands have completed
    s.event(done)     # progress: jobs done
    s.place(skip)
    s.lt(scratch, done, count)
    s.bnz(scratch, top)
    s.wait()
    s.halt(done)
    return s


def main(jobs=24, group=8):
    tiles = jobs * group
    x = np.random.default_rng(2).uniform(-4, 4, size=(tiles * 32, 32)).astype(np.float32)
    with km.Session() as session:
        src = session.tensor(x, "bfloat16", layout="tile")
        dst = session.empty(src.shape, "bfloat16", layout="tile")
        program = km.Program(
            "map", KERNELS, buffers=[km.Buffer(0, "bfloat16", 2048, 2), km.Buffer(16, "bfloat16", 2048, 2)],
            compile_args={"reader": src.accessor_args(), "writer": dst.accessor_args()},
            handlers=km.abi.handlers(os.path.join(KERNELS, "map.hpp")), depth=8)
        run = session.load(program)
        stream = pipeline(program.handler("map"), src.address, dst.address, jobs, group)
        t0 = time.perf_counter()
        handle = run.start(run.upload(stream), [0, 0, 0, jobs])  # r3 = jobs
        end = run.wait_engine(handle, 20.0)
        seconds = time.perf_counter() - t0
        y = session.read_bf16(dst)
        run.stop()
    progress = [e.value for e in handle.events if e.kind == "event"]
    expected = 2 * km.formats.bf16_values(km.formats.bf16_bits(x))
    ok = np.array_equal(y, expected) and end.value == jobs and progress == list(range(4, jobs + 1, 4))
    print(f"stream: {end.value} jobs of {group} cores enqueued by the card, progress events {progress}, "
          f"{tiles} tiles doubled in {seconds * 1e3:.1f} ms: {'PASSED' if ok else 'FAILED'}")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
