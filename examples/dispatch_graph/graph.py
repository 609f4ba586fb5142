"""graph: the persistent-dispatch spec's examples/06_graph — a graph of four
handlers (step on 60 cores, then left and right on 30 cores each, then norm)
whose cpu node counts iterations and goes round again while the error is
below a limit. A kept graph is started, restarted with other bindings and
no new upload, then released; the final state tensors are checked against
the same loop on the host.

    python examples/dispatch_graph/graph.py
"""

import os
import sys
import time

import numpy as np

import tessel.dispatch as km
from tessel.dispatch.engines.graph import Graph

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS, WORDS = 60, 16


def model(x, iteration, limit):
    """The graph's loop on the host: the final state, iteration, error and rounds."""
    x = x.astype(np.int64)
    rounds = 0
    while True:
        x += iteration + 1
        x[:30] *= 2
        x[30:] += x[30:] // 2
        error = min(int(x.sum()), 0xFFFFFFFF)
        iteration += 1
        rounds += 1
        if not error < limit:
            return x.astype(np.uint32), iteration, error, rounds


def build(program):
    step_handler, left_handler, right_handler, norm_handler = (
        program.handler(name) for name in ("step", "left", "right", "norm"))
    graph = Graph(deadline_microseconds=200_000, max_runs=50, req=6, keep=True)
    state, iteration, limit = graph.bindings("state", "iteration", "limit")
    error = graph.register()
    step = graph.command(step_handler, group=(0, 60), args=[state, iteration])
    left = graph.command(left_handler, group=(0, 30), args=[state], after=[step])
    right = graph.command(right_handler, group=(30, 30), args=[state], after=[step])
    norm = graph.command(norm_handler, group=(0, 60), args=[state, 60], after=[left, right], result=error)
    cpu = graph.cpu(after=[norm])
    cpu.addi(iteration, iteration, 1)
    cpu.lt(graph.again, error, limit)  # go round again while error < limit
    return graph


def main():
    kernels = os.path.join(HERE, "kernels")
    rng = np.random.default_rng(6)
    x0 = rng.integers(0, 50, size=(ROWS, WORDS), dtype=np.uint32)
    y0 = rng.integers(0, 50, size=(ROWS, WORDS), dtype=np.uint32)
    with km.Session() as session:
        x = session.tensor(x0, "uint32")
        y = session.tensor(y0, "uint32")
        program = km.Program("graph", kernels, buffers=[km.Buffer(0, "uint32", WORDS * 4, 1)],
                             handlers=km.abi.handlers(os.path.join(kernels, "graph.hpp")))
        run = session.load(program)
        graph = build(program)
        upload = run.upload(graph)

        first = {"state": x.address, "iteration": 0, "limit": 10**6}
        t0 = time.perf_counter()
        handle = run.start(upload, first)
        event = run.wait_engine(handle, 10.0)
        first_s = time.perf_counter() - t0
        first_rounds = sum(e.kind == "round" for e in handle.events) + 1

        second = {"state": y.address, "iteration": 3, "limit": 10**7}
        t0 = time.perf_counter()
        again = run.restart(6, second)
        event = run.wait_engine(again, 10.0)
        second_s = time.perf_counter() - t0
        second_rounds = sum(e.kind == "round" for e in again.events) + 1
        iteration_end, error_end = event.registers  # registers 0 (its low 24 bits) and 1
        run.release(upload)  # the kept graph is dropped, its lines are free again

        xs = np.frombuffer(session.read(x).tobytes(), dtype=np.uint32).reshape(ROWS, WORDS)
        ys = np.frombuffer(session.read(y).tobytes(), dtype=np.uint32).reshape(ROWS, WORDS)
        run.stop()

    x_end, _, _, x_rounds = model(x0, 0, 10**6)
    y_end, y_iteration, y_error, y_rounds = model(y0, 3, 10**7)
    ok = (np.array_equal(xs, x_end) and np.array_equal(ys, y_end) and first_rounds == x_rounds
          and second_rounds == y_rounds and iteration_end == y_iteration & 0xFFFFFF and error_end == y_error
          and upload.state == "released")
    print(f"graph: started ({first_rounds} rounds, {first_s / first_rounds * 1e6:.0f} us a round), restarted "
          f"({second_rounds} rounds, {second_s / second_rounds * 1e6:.0f} us a round): iteration {iteration_end}, "
          f"error {error_end}; state tensors {'PASSED' if ok else 'FAILED'} against the host's loop")
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
