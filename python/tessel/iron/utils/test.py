"""IRON's `aie.utils.test`: the test programs' default command line."""

import argparse

__all__ = ["create_default_argparser", "parse_args"]


def create_default_argparser():
    """The flags IRON's test.py programs take: -x/--xclbin, -k/--kernel,
    -i/--instr, -v, --verify, --iters, --warmup, -t/--trace_sz, --trace_file,
    -i1s/-i2s/-os (buffer sizes in bytes), -s/--size. A test program that
    adds one of these flags itself gets its own (IRON's parser has only the
    first nine; the others are later versions' and older Makefiles')."""
    p = argparse.ArgumentParser(conflict_handler="resolve")
    p.add_argument("-x", "--xclbin", required=True, dest="xclbin", help="the xclbin (its design record's neighbour)")
    p.add_argument("-k", "--kernel", dest="kernel", default="MLIR_AIE", help="the kernel name (accepted)")
    p.add_argument("-v", "--verbosity", default=0, type=int, help="verbosity")
    p.add_argument("-i", "--instr", dest="instr", default="instr.txt", help="the instruction file")
    p.add_argument("--verify", dest="verify", default=True, help="verify the output")
    p.add_argument("--iters", dest="iters", default=1, type=int, help="iterations")
    p.add_argument("--warmup", dest="warmup_iters", default=0, type=int, help="warmup iterations")
    p.add_argument("-t", "--trace_sz", dest="trace_size", default=0, type=int, help="trace size in bytes")
    p.add_argument("--trace_file", dest="trace_file", default="trace.txt", help="trace output file")
    p.add_argument("-i1s", "--in1_size", dest="in1_size", default=0, help="input 1 size in bytes")
    p.add_argument("-i2s", "--in2_size", dest="in2_size", default=0, help="input 2 size in bytes")
    p.add_argument("-os", "--out_size", dest="out_size", default=0, help="output size in bytes")
    p.add_argument("-s", "--size", dest="size", default=0, help="data size (older Makefiles)")
    return p


def parse_args(args):
    return create_default_argparser().parse_args(args)
