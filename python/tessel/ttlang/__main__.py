"""python -m tessel.ttlang [options] SCRIPT [ARGS...]: run a TT-Lang program
on tessel's simulated devices, unchanged.

- `import ttl` / `import ttnn` (and their submodules) get tessel.ttl /
  tessel.ttnn (bind.py).
- The script's directory goes first on sys.path; sys.argv is [SCRIPT,
  *ARGS]; the script runs as __main__.
- The exit status is the script's: a SystemExit's code (None: 0, an int:
  that int, anything else: printed, 1); an uncaught exception prints its
  traceback and exits 1.
- The options set tessel.ttl.settings before the script runs.
"""

import argparse
import os
import sys

from ..script_runner import run_script
from ..ttl.settings import settings
from .bind import bind_modules

ARCHES = ("blackhole", "wormhole_b0")


def _grid(text):
    try:
        x, y = text.lower().split("x")
        grid = int(x), int(y)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not of the form XxY (e.g. 8x8)") from None
    if min(grid) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': both counts must be at least 1")
    return grid


def _count(text):
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"'{text}' is not a device count (1..64)")
    return int(text)


def parser():
    p = argparse.ArgumentParser(
        prog="python -m tessel.ttlang",
        description="Run a TT-Lang program (its `import ttl` and `import ttnn`) on tessel's simulated devices.",
        epilog="The options set tessel.ttl.settings, which ttnn.open_device and ttnn.open_mesh_device read when "
               "they open devices and the DSL compiler reads when it generates kernels. The exit status is the "
               "script's; an uncaught exception prints its traceback and exits 1.")
    p.add_argument("--arch", choices=ARCHES, help="the architecture devices open with (default: blackhole)")
    p.add_argument("--grid", type=_grid, metavar="XxY",
                   help="the worker grid devices open with, X columns by Y rows (default: the arch's full grid)")
    p.add_argument("--policy", metavar="P",
                   help="the scheduling policy: deterministic (default), random:<seed>, parallel or "
                        "parallel:<threads>")
    p.add_argument("--trace", metavar="FILE",
                   help="write each device's event trace (Chrome/Perfetto JSON) to FILE; the devices of a mesh "
                        "write FILE's name with .device<N> before the extension")
    p.add_argument("--timing", action="store_true",
                   help="estimate cycles and print each operation's estimate on stderr")
    p.add_argument("--profile", action="store_true",
                   help="record the device profiler's zones and print, after each operation, those its kernels "
                        "marked (with ttl.signpost(name): ...) with their durations in cycles")
    p.add_argument("--keep-kernels", metavar="DIR",
                   help="write the C++ of every kernel the DSL compiler generates (and of ttnn's own "
                        "operations) to DIR")
    p.add_argument("--num-devices", type=_count, metavar="N",
                   help="the devices the simulated machine has, for ttnn.get_num_devices and mesh devices "
                        "(default: TESSEL_MESH's rows x columns, else 8)")
    p.add_argument("script", metavar="SCRIPT", help="the TT-Lang program (a .py file)")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the program's own arguments")
    return p


def _apply(options):
    settings.arch = options.arch
    settings.grid = options.grid
    settings.policy = options.policy
    settings.trace = os.path.abspath(options.trace) if options.trace else None
    settings.timing = options.timing
    settings.profile = options.profile
    settings.keep_kernels = os.path.abspath(options.keep_kernels) if options.keep_kernels else None
    settings.num_devices = options.num_devices
    # print() in kernels shows, as in TT-Lang (TESSEL_DPRINT_CORES narrows it).
    os.environ.setdefault("TESSEL_DPRINT_CORES", "all")


def run(script, args=()):
    """Run `script` as a TT-Lang program with `args`; returns the exit status."""
    if os.path.isfile(os.path.abspath(script)):
        bind_modules()
    return run_script(script, args, prog="python -m tessel.ttlang")


def main(argv=None):
    options = parser().parse_args(argv)
    _apply(options)
    return run(options.script, options.args)


if __name__ == "__main__":
    sys.exit(main())
