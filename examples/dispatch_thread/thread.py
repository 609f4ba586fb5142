"""thread: an X280 thread that reduces a region while the grid works. The
host sends 15 map jobs to cores 0..7 (each core doubling a bf16 tile); at
the same time a thread on work cluster 1 sums a region of 262,144 uint32
values into a second region, and after each of its 4 chunks sends a map
job of its own to cores 8..15 — a third source of the dispatcher's one
sequence. With --thread host its host_fallback does the same from the host.

    python examples/dispatch_thread/thread.py [--thread card|host]
"""

import argparse
import os
import sys

import numpy as np

import tessel.dispatch as km

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, os.pardir, "dispatch_map", "kernels")
JOBS, GROUP, CHUNKS, VALUES = 15, 8, 4, 1 << 18


def fallback(ctx):
    """The thread's work on the host (load(thread="host"))."""
    handler, first, cores, src, dst, tile, chunks = ctx.words
    values = ctx.region("values").view(np.uint32)
    per_chunk = -(-len(values) // chunks)
    total, done = 0, 0
    for at in range(0, len(values), per_chunk):
        total += int(values[at:at + per_chunk].sum(dtype=np.uint64))
        ctx.wait(ctx.submit(handler, group=(first, cores), args=[src, dst, tile + done * cores]))
        done += 1
    ctx.region("total")[:] = np.frombuffer(np.uint64(total).tobytes(), dtype=np.uint8)
    return done


def main(thread="card"):
    rng = np.random.default_rng(3)
    tiles = (JOBS + CHUNKS) * GROUP
    x = rng.uniform(-4, 4, size=(tiles * 32, 32)).astype(np.float32)
    values = rng.integers(0, 1 << 32, size=VALUES, dtype=np.uint32)
    with km.Session() as session:
        src = session.tensor(x, "bfloat16", layout="tile")
        dst = session.empty(src.shape, "bfloat16", layout="tile")
        program = km.Program(
            "map", KERNELS, buffers=[km.Buffer(0, "bfloat16", 2048, 2), km.Buffer(16, "bfloat16", 2048, 2)],
            compile_args={"reader": src.accessor_args(), "writer": dst.accessor_args()},
            handlers=km.abi.handlers(os.path.join(KERNELS, "map.hpp")), depth=8)
        program.region("values", values)
        program.region("total", 8)
        program.thread(cluster=1, sources=[os.path.join(HERE, "kernels", "reduce.cpp")], regions=["values", "total"],
                       words=[program.handler("map"), GROUP, GROUP, src.address, dst.address, JOBS * GROUP, CHUNKS],
                       host_fallback=fallback, deadline=30.0)
        run = session.load(program, thread=thread)
        handles = [run.submit("map", group=(0, GROUP), args=[src.address, dst.address, job * GROUP])
                   for job in range(JOBS)]
        run.wait(handles, timeout=10.0)
        result = run.thread_result(30.0)
        y = session.read_bf16(dst)
        run.stop()
        total = int(run.thread.read("total").view(np.uint64)[0])
    expected = 2 * km.formats.bf16_values(km.formats.bf16_bits(x))
    ok = (result.status == "done" and result.value == CHUNKS and total == int(values.sum(dtype=np.uint64))
          and np.array_equal(y, expected))
    print(f"thread ({thread}): {result.status}, {result.value} chunks of region 'values' summed to {total} "
          f"while the grid ran {JOBS} host jobs and {result.commands} of the thread's; {tiles} tiles doubled: "
          f"{'PASSED' if ok else 'FAILED'}")
    return ok


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--thread", choices=("card", "host"), default="card")
    sys.exit(0 if main(p.parse_args().thread) else 1)
