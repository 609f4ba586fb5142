"""python -m tessel: info, list, run <example>, bench, stats <trace> — as the `tessel` CLI."""

import argparse
import os
import sys

from . import Device, errors
from . import _tessel


def _info(args):
    for name in ("blackhole", "wormhole_b0"):
        if args.arch and args.arch != name:
            continue
        with Device.open(arch=name) as d:
            g = d.grid
            print(f"{name}: grid {g.x}x{g.y} ({g.x * g.y} cores), L1 {d.l1_size // 1024} KiB per core, DRAM "
                  f"{d.dram_banks} banks x {d.dram_bank_size >> 30} GiB, alignment L1 {d.l1_alignment} B / DRAM "
                  f"{d.dram_alignment} B, {d.num_cb_indices} CB indices, {d.clock_mhz} MHz")
    return 0


def _list(args):
    print("examples (python -m tessel run <name>):")
    for name, description in _tessel.examples.names():
        print(f"  {name:<29} {description}")
    return 0


def _grid(text):
    try:
        x, y = text.lower().split("x")
        return int(x), int(y)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--grid '{text}' is not of the form XxY") from None


def _trace_ring(text):
    if not text.isdigit() or int(text) > _tessel.MAX_TRACE_RING_EVENTS:
        raise argparse.ArgumentTypeError(f"--trace-ring '{text}' is not valid: expected a whole number of events "
                                         f"per RISC, 0 (write every event) to {_tessel.MAX_TRACE_RING_EVENTS}")
    return text


def _waits(text):
    if not text.isdigit() or int(text) > 1 << 20:
        raise argparse.ArgumentTypeError(f"--waits '{text}' is not valid: expected a whole number from 0 to {1 << 20}")
    return int(text)


def _run(args):
    # The example opens its own devices: they are traced as TESSEL_TRACE says.
    if args.trace_ring is not None:
        if not args.trace:
            print("tessel run: --trace-ring needs --trace <file> (where the ring is written)", file=sys.stderr)
            return 2
        os.environ["TESSEL_TRACE_RING"] = args.trace_ring
    if args.trace:
        # Checked here, so that a bad path is reported as --trace's; nothing is created yet.
        directory = os.path.dirname(args.trace) or "."
        problem = ("is a directory" if os.path.isdir(args.trace) else
                   "its directory does not exist" if not os.path.isdir(directory) else
                   "its directory is not writable" if not os.access(directory, os.W_OK | os.X_OK) else None)
        if problem:
            print(f"tessel run: --trace '{args.trace}': {problem}; expected a path in a writable directory",
                  file=sys.stderr)
            return 2
        os.environ["TESSEL_TRACE"] = args.trace
    if args.noc:
        os.environ["TESSEL_NOC"] = args.noc
    if args.timing:
        os.environ["TESSEL_TIMING"] = "1"
    gx, gy = args.grid or (0, 0)
    passed, summary, seconds, compile_seconds = _tessel.examples.run(
        args.example, args.arch, gx, gy, args.policy, args.size, args.format, args.op)
    print(f"{args.example}: {summary}")
    compile = f" after {compile_seconds * 1e3:.3f} ms of compile and planning" if compile_seconds > 0 else ""
    print(f"{args.example}: {'PASSED' if passed else 'FAILED'}: ran in {seconds * 1e3:.3f} ms{compile} "
          f"(policy {args.policy})")
    if args.timing or os.environ.get("TESSEL_TIMING") == "1":  # --timing is TESSEL_TIMING=1
        print(_tessel.examples.timing_report(), end="")
    return 0 if passed else 1


def _stats(args):
    from .trace import trace_stats

    print(trace_stats(args.trace, longest_waits=args.waits).report, end="")
    return 0


def _bench(args):
    from . import bench

    bench.run(args.name)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tessel", description="tessel: a simulated tile-based dataflow "
                                "accelerator")
    sub = p.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="show the architecture presets")
    info.add_argument("--arch", default="", help="only this preset")
    sub.add_parser("list", help="list the examples")
    run = sub.add_parser("run", help="run an example and check its result")
    run.add_argument("example")
    run.add_argument("--arch", default="blackhole")
    run.add_argument("--grid", type=_grid, default=None, help="worker grid XxY")
    run.add_argument("--policy", default="deterministic",
                     help="deterministic, random:<seed>, parallel or parallel:<threads>")
    run.add_argument("--size", type=int, default=0, help="example-specific problem size")
    run.add_argument("--format", default="", help="data format (where the example has it)")
    run.add_argument("--op", default="", help="example-specific op selection")
    run.add_argument("--trace", default="", help="write an event trace (Chrome/Perfetto JSON) to this file")
    run.add_argument("--trace-ring", type=_trace_ring, default=None,
                     help="with --trace: keep only the last N events per RISC")
    run.add_argument("--noc", choices=("eager", "checked"), default=None,
                     help="when NoC transfers land (docs/guide.md, NoC modes)")
    run.add_argument("--timing", action="store_true",
                     help="estimate cycles (as TESSEL_TIMING=1) and print the estimated device time and busy/wait "
                          "per RISC (docs/timing.md)")
    stats = sub.add_parser("stats", help="busy, waiting and idle time, NoC bytes and tiles per core of a trace")
    stats.add_argument("trace", help="a trace file (run --trace, TESSEL_TRACE)")
    stats.add_argument("--waits", type=_waits, default=10, help="how many of the longest waits to list (0..1048576)")
    bench = sub.add_parser("bench", help="the Python figures: one '<figure> <value> <unit>' line each")
    bench.add_argument("name", nargs="?", default="all", help="dispatch, buffer, interrupt, ops or all")
    args = p.parse_args(argv)
    try:
        return {"info": _info, "list": _list, "run": _run, "bench": _bench, "stats": _stats}[args.command](args)
    except errors.Error as e:
        print(f"tessel: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
