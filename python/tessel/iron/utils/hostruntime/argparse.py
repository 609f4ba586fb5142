"""IRON's shared command-line flags for designs and test programs
(`aie.utils.hostruntime.argparse`), with the same names and defaults."""

import argparse

from ...device import device_from_args  # noqa: F401  (IRON exports it here too)

__all__ = ["add_compile_args", "add_benchmark_args", "add_trace_arg", "add_runtime_args", "device_from_args"]


def add_compile_args(parser, *, with_dev=True, dev_choices=("npu", "npu2"), default_dev="npu", short_dev="-d",
                     with_elf=False, with_emit_mlir=False, with_pdi=False, **options):
    """-d/--dev, --xclbin-path, --insts-path, and optionally --elf-path,
    --pdi-path and --emit-mlir (IRON's other options are accepted)."""
    if with_dev:
        names = ("--dev",) if short_dev is None else (short_dev, "--dev")
        parser.add_argument(*names, type=str, choices=list(dev_choices), default=default_dev,
                            help="target device family (default: %(default)s)")
    if with_emit_mlir:
        parser.add_argument("--emit-mlir", action="store_true", help="print the design (a tessel design record)")
    parser.add_argument("--xclbin-path", type=str, default=None, help="compile only: write the design record here")
    parser.add_argument("--insts-path", type=str, default=None, help="compile only: write the design record here too")
    if with_elf:
        parser.add_argument("--elf-path", type=str, default=None, help="accepted; tessel writes no ELF")
    if with_pdi:
        parser.add_argument("--pdi-path", type=str, default=None, help="compile only: write the design record here too")


def add_benchmark_args(parser, *, default_warmup=2, default_iters=5):
    """-w/--warmup and -i/--iters."""
    parser.add_argument("-w", "--warmup", type=int, default=default_warmup,
                        help="warmup iterations (default: %(default)s)")
    parser.add_argument("-i", "--iters", type=int, default=default_iters,
                        help="timed iterations (default: %(default)s)")


def add_trace_arg(parser, *, with_short=True, default=0):
    """-t/--trace_size (bytes; 0: no trace)."""
    names = ("-t", "--trace_size") if with_short else ("--trace_size",)
    parser.add_argument(*names, type=int, default=default, help="trace buffer size in bytes (default: %(default)s)")


def add_runtime_args(parser, *, with_io_sizes=False, with_benchmark=False):
    """The test programs' flags: --xclbin, --instr, -k, -v, --verify, -t, --trace-file, ..."""
    parser.add_argument("--xclbin", type=str, required=True, help="the design's xclbin (its record's neighbour)")
    parser.add_argument("--instr", type=str, default="instr.txt", help="the instruction file (default: %(default)s)")
    parser.add_argument("-k", "--kernel", type=str, default="MLIR_AIE", help="kernel name (default: %(default)s)")
    parser.add_argument("-v", "--verbosity", type=int, default=0, help="verbosity (default: %(default)s)")
    parser.add_argument("--verify", action=argparse.BooleanOptionalAction, default=True,
                        help="verify the output against the reference (default: %(default)s)")
    add_trace_arg(parser)
    parser.add_argument("--trace-file", type=str, default="trace.txt", help="trace output file")
    parser.add_argument("--ddr-id", type=int, default=4, help="accepted")
    parser.add_argument("--enable-ctrl-pkts", action="store_true", help="accepted")
    if with_io_sizes:
        for name in ("--in1-size", "--in2-size", "--out-size"):
            parser.add_argument(name, type=int, default=0, help="buffer size in bytes")
    if with_benchmark:
        add_benchmark_args(parser)
