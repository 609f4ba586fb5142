"""broadcast: the persistent-dispatch spec's examples/03_broadcast shape — one
core multicasting blocks to a rectangle through the broadcast protocol
(tessel/persistent.h, persistent::Broadcast), each receiver checksumming
every block, checked against numpy.

    python examples/dispatch_broadcast/broadcast.py --rect 0,0,12,10 --blocks 16 --pages 4 --window 2 --jobs 40

--rect is x,y,columns,rows of logical cores; the rectangle's first core is the
root. --no-check moves the blocks only (the spec's timing).
"""

import argparse
import os
import sys
import time

import numpy as np

import tessel.dispatch as km

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE_BYTES = 2048


def run(rect=(0, 0, 12, 10), blocks=16, pages=4, window=2, jobs=40, check=True, log=None):
    kernels = os.path.join(HERE, "kernels")
    k = km.abi.constants(os.path.join(kernels, "broadcast.hpp"), known=km.abi.headers().constants)
    handlers = km.abi.handlers(os.path.join(kernels, "broadcast.hpp"))
    words_per_job = blocks * pages * PAGE_BYTES // 4
    data = np.random.default_rng(3).integers(0, 1 << 32, size=(jobs * blocks * pages, PAGE_BYTES // 4),
                                             dtype=np.uint64).astype(np.uint32)
    with km.Session(log=log) as session:
        cores = session.grid[0] * session.grid[1]
        x, y, w, h = rect
        first = y * session.grid[0] + x
        count = (y + h - 1) * session.grid[0] + (x + w - 1) - first + 1
        src = session.tensor(data, "uint32")
        out = session.empty((jobs * cores, 16), "uint32")
        program = km.Program(
            "broadcast", kernels,
            buffers=[km.Buffer(k["kCbRegion"], "uint32", PAGE_BYTES, window * pages),
                     km.Buffer(k["kCbScratch"], "uint32", 64, 1)],
            compile_args={"reader": src.accessor_args() + out.accessor_args()}, handlers=handlers)
        run = session.load(program)
        bargs = km.layout.broadcast_args(session.nocs(), rect)
        t0 = time.perf_counter()
        handles = [run.submit("broadcast", group=(first, count),
                              args=bargs + [src.address, out.address, job, blocks, pages | window << 16, int(check)])
                   for job in range(jobs)]
        run.wait(handles, timeout=60.0)
        per_job_us = (time.perf_counter() - t0) / jobs * 1e6
        sums = session.read(out).view(np.uint32)[:, 0].reshape(jobs, cores) if check else None
        run.stop()
        state = run.state()
    wrong = 0
    if check:
        expected = data.reshape(jobs, words_per_job).astype(np.uint64).sum(axis=1) % (1 << 32)
        in_rect = [c for c in range(cores) if x <= c % session.grid[0] < x + w and y <= c // session.grid[0] < y + h]
        wrong = int((sums[:, in_rect] != expected[:, None]).sum())
    return per_job_us, wrong, state


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rect", default="0,0,12,10")
    p.add_argument("--blocks", type=int, default=16)
    p.add_argument("--pages", type=int, default=4)
    p.add_argument("--window", type=int, default=2)
    p.add_argument("--jobs", type=int, default=40)
    p.add_argument("--no-check", action="store_true")
    a = p.parse_args(argv)
    rect = tuple(int(v) for v in a.rect.split(","))
    us, wrong, _ = run(rect, a.blocks, a.pages, a.window, a.jobs, not a.no_check)
    checked = "not checked" if a.no_check else f"{wrong} wrong checksums"
    print(f"broadcast: {a.jobs} jobs, {a.blocks} blocks of {a.pages} pages, window {a.window}, rect {a.rect}: "
          f"{checked}; host time {us:.1f} us per job (silicon 47.9: {us / 47.9:.2f}x)")
    return wrong == 0


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
