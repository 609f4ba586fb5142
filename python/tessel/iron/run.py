"""python -m tessel.iron.run DESIGN.py [ARGS...]: run an IRON design (or an
IRON test program) unchanged on tessel's simulated device.

For this process only, the design's imports of IRON's Python API are bound
to tessel's modules (tessel.module_alias; nothing named `aie` is installed):

- `aie.iron` and `aie.iron.*` (controlflow, device, placers, kernel(s),
  dataflow, runtime, algorithms, ...) -> tessel.iron and its modules
  (`aie.iron.dataflow.*` and `aie.iron.runtime.*` give those modules'
  names); `aie.iron.hostruntime` -> tessel.iron.utils.hostruntime;
- `aie.utils` and `aie.utils.*` (xrt, test, verify, benchmark, config,
  trace, hostruntime, compile) -> tessel.iron.utils; `aie.utils.compile.jit.*`
  -> tessel.iron.markers' names (In, Out, InOut, CompileTime, ...);
- `aie.helpers.taplib` (and its submodules) -> tessel.iron.taplib;
- MLIR-level modules (`aie.dialects`, `aie.extras`, `aie.helpers.dialects`,
  `aie.ir`, ...) are refused with a message naming the module: such designs
  build MLIR directly and are out of scope.

The design runs as __main__ with sys.argv = [DESIGN.py, *ARGS], __file__
set and its directory first on sys.path; the exit status is the design's.
The current device starts as NPU2() (TESSEL_IRON_DEVICE=npu, ... picks
another; docs/iron.md, "Devices"). What a design prints for its MLIR module (`print(module)`) is a design
record (design_record.py), so `python -m tessel.iron.run test.py -x
build/final.xclbin -i build/insts.bin` runs the design the record names.
"""

import argparse
import os
import sys

from ..module_alias import PACKAGE, Aliases, Mirror, OutOfScopeImport, Refused
from ..script_runner import run_script
from . import design_record
from .device import from_name, set_current_device

__all__ = ["ALIASES", "aliases", "main", "run", "start_device"]

_OUT_OF_SCOPE = Refused(
    "{name} is one of IRON's MLIR-level modules: a design importing it builds MLIR directly, which is out of scope "
    "for tessel (it runs designs written with IRON's Python API: aie.iron, aie.utils, aie.helpers.taplib)")

ALIASES = {
    "aie": PACKAGE,
    "aie.iron": "tessel.iron",
    "aie.iron.dataflow": Mirror("tessel.iron.dataflow"),  # and aie.iron.dataflow.objectfifo (StreamDims)
    "aie.iron.runtime": Mirror("tessel.iron.runtime"),  # and aie.iron.runtime.runtime, .taskgroup
    "aie.iron.hostruntime": "tessel.iron.utils.hostruntime",
    "aie.utils": "tessel.iron.utils",
    "aie.utils.compile.jit": Mirror("tessel.iron.markers"),  # .jit.markers: In, Out, CompileTime, ...
    "aie.helpers": PACKAGE,
    "aie.helpers.taplib": Mirror("tessel.iron.taplib"),
    # The few helper-dialect names IRON's Python-API designs use in worker
    # bodies: scf's _for / if_ / else_, the @func Python kernel, arith's
    # index_cast and aie.helpers.util's type helpers (the rest of those
    # modules builds MLIR directly and stays refused).
    "aie.helpers.dialects.ext.scf": Mirror("tessel.iron.controlflow"),
    "aie.helpers.dialects.scf": Mirror("tessel.iron.controlflow"),
    "aie.helpers.dialects.ext.func": Mirror("tessel.iron.function"),
    "aie.helpers.dialects.func": Mirror("tessel.iron.function"),
    "aie.extras.dialects.arith": Mirror("tessel.iron.arith"),
    "aie.extras.dialects.ext.arith": Mirror("tessel.iron.arith"),
    "aie.helpers.util": Mirror("tessel.iron.util"),
    "aie.extras.types": Mirror("tessel.iron.extras_types"),
    "aie.dialects": _OUT_OF_SCOPE,
    "aie.extras": _OUT_OF_SCOPE,
    "aie.helpers.dialects": _OUT_OF_SCOPE,
    "aie.ir": _OUT_OF_SCOPE,
    "aie.passmanager": _OUT_OF_SCOPE,
    "aie.compiler": _OUT_OF_SCOPE,
    "aie._mlir_libs": _OUT_OF_SCOPE,
}
"""The names IRON designs import, and what they get."""

aliases = Aliases(ALIASES)

PROG = "python -m tessel.iron.run"


def parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Run an IRON design or test program (its `import aie.iron`, `aie.utils`, "
                    "`aie.helpers.taplib`) on tessel's simulated device.",
        epilog="The exit status is the design's; an uncaught exception prints its traceback and exits 1. What the "
               "design prints for its MLIR module is a tessel design record: a test program given the xclbin next "
               "to it (-x build/final.xclbin) runs that design (docs/iron.md, 'Running a design').")
    p.add_argument("--kernel-flags", action="append", default=[], metavar="OBJECT=FLAGS",
                   help="build the kernels the design names by OBJECT (transpose.o) with FLAGS too (-DNAME[=VALUE], "
                        "-I DIR), as its Makefile compiles that object; repeatable; recorded with the design")
    p.add_argument("design", metavar="DESIGN.py", help="the IRON design or test program (a .py file)")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="its own arguments")
    return p


DEVICE_VARIABLE = "TESSEL_IRON_DEVICE"
"""Names the device designs start with (from_name's names; default npu2)."""


def start_device():
    """Make the device TESSEL_IRON_DEVICE names (default NPU2(), what IRON
    detects on a Strix machine) the current one, so designs asking for it
    (`iron.get_current_device().cols`) see an IRON device. A bad name
    raises ValueError naming the variable."""
    name = os.environ.get(DEVICE_VARIABLE) or "npu2"
    try:
        set_current_device(from_name(name))
    except ValueError as e:
        raise ValueError(f"{DEVICE_VARIABLE}={name}: {e}") from None


def run(design, args=(), kernel_flags=None):
    """Run `design` with `args` as IRON's `aie` modules bound to tessel's;
    returns the exit status. The binding is removed afterwards; the current
    device starts as start_device() makes it. kernel_flags ({object:
    [flags]}) are the flags its Makefile builds those objects with
    (kernel.set_object_flags), for this run and the records it prints."""
    from .kernel import object_flags, set_object_flags

    try:
        start_device()
    except ValueError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    design_record.set_run(design, args, kernel_flags)
    saved = object_flags()
    set_object_flags(kernel_flags or {})
    aliases.bind()
    try:
        return run_script(design, args, prog=PROG, quiet=(OutOfScopeImport,))
    finally:
        aliases.unbind()
        set_object_flags(saved)


def main(argv=None):
    options = parser().parse_args(argv)
    from .kernel import parse_object_flags

    try:
        flags = parse_object_flags(options.kernel_flags)
    except ValueError as e:
        print(f"{PROG}: --kernel-flags: {e}", file=sys.stderr)
        return 2
    return run(options.design, options.args, kernel_flags=flags)


if __name__ == "__main__":
    sys.exit(main())
