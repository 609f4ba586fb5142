"""The engines' figures, all in one run: the per-command cost of commands a
graph sends from the card against the same graph host-fed (run_hostfed:
each command through the host ring, its completion read by the host
before the next), and the microseconds a round of the graph example takes.

    python -m tessel.dispatch.engines.measure [--nodes 32] [--rounds 200] [--repeat 5]
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

from .. import Program, Session
from ..errors import EngineError
from .graph import Graph


def _examples():
    return os.environ.get("TESSEL_EXAMPLES_DIR") or os.path.join(os.path.dirname(__file__), os.pardir, os.pardir,
                                                                 os.pardir, os.pardir, "examples")


def chain_graph(nodes, rounds, group=(0, 1), req=1):
    """`nodes` NOP commands, each after the one before, then a cpu node looping `rounds` rounds."""
    g = Graph(deadline_microseconds=0, max_runs=rounds + 1, req=req)
    done, want = g.bindings("done", "want")
    previous = []
    for _ in range(nodes):
        previous = [g.command(0, group=group, after=previous)]
    cpu = g.cpu(after=previous)
    cpu.addi(done, done, 1)
    cpu.lt(g.again, done, want)
    return g


def per_command_us(run, nodes, rounds, group):
    """(card, host-fed) microseconds per command of the chain graph, same run."""
    g = chain_graph(nodes, rounds, group)
    bindings = {"done": 0, "want": rounds}
    upload = run.upload(g)
    t0 = time.perf_counter()
    end = run.wait_engine(run.start(upload, bindings), 120.0)
    card = (time.perf_counter() - t0) / (nodes * rounds) * 1e6
    run.release(upload)
    t0 = time.perf_counter()
    host = run.run_hostfed(g, bindings, 120.0)
    hostfed = (time.perf_counter() - t0) / (nodes * rounds) * 1e6
    assert end.registers[0] == rounds and host.registers[0] == rounds and len(host.commands) == nodes * rounds
    return card, hostfed


def graph_round_us(session):
    """(rounds, microseconds per round) of the graph example's graph run to its
    max_runs (a limit it never reaches), from its start to its end event."""
    import numpy as np

    from .. import Buffer, abi

    path = os.path.join(_examples(), "dispatch_graph", "graph.py")
    spec = importlib.util.spec_from_file_location("tessel_graph_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    kernels = os.path.join(os.path.dirname(path), "kernels")
    state = session.tensor(np.zeros((example.ROWS, example.WORDS), np.uint32), "uint32")
    program = Program("graph", kernels, buffers=[Buffer(0, "uint32", example.WORDS * 4, 1)],
                      handlers=abi.handlers(os.path.join(kernels, "graph.hpp")))
    run = session.load(program)
    upload = run.upload(example.build(program))
    t0 = time.perf_counter()
    h = run.start(upload, {"state": state.address, "iteration": 0, "limit": 0xFFFFFFFF})
    try:
        run.wait_engine(h, 60.0)
    except EngineError as e:
        if e.reason_name != "runs":  # max_runs ends it: the expected end
            raise
    seconds = time.perf_counter() - t0
    rounds = sum(e.kind == "round" for e in h.events) + 1
    run.release(upload)
    run.stop()
    return rounds, seconds / rounds * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tessel.dispatch.engines.measure", description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=32)
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--group", type=int, default=1, help="cores per command")
    p.add_argument("--repeat", type=int, default=5, help="runs; the median and the best print")
    a = p.parse_args(argv)
    with Session() as session:
        run = session.load(Program("measure", os.path.join(_examples(), "dispatch_measure", "kernels"), depth=16))
        pairs = [per_command_us(run, a.nodes, a.rounds, (0, a.group)) for _ in range(max(1, a.repeat))]
        run.stop()
        ratios = sorted(c / h for c, h in pairs)
        card = statistics.median(c for c, _ in pairs)
        host = statistics.median(h for _, h in pairs)
        print(f"graph of {a.nodes} chained NOP commands on {a.group} core(s), {a.rounds} rounds: {card:.3f} us per "
              f"command from the card, {host:.3f} us host-fed (run_hostfed), same run: {statistics.median(ratios):.3f}x "
              f"host-fed (median of {len(pairs)}; best {ratios[0]:.3f}x; target <= 0.5x)")
        rounds, us = graph_round_us(session)
        print(f"graph example (step on 60 cores, left and right on 30 each, norm, the cpu node): {us:.0f} us per round "
              f"over {rounds} rounds, start to end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
