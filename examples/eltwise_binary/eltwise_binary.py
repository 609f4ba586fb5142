"""eltwise_binary in Python: C = A op B for op = add, sub, mul, spread over
every core of the grid with the C++ example's kernels (reader on BRISC,
compute with the op chosen by defines, writer on NCRISC), and the same check
(as examples/eltwise_binary/eltwise_binary.cpp): every element within the
sum of float rounding, DST rounding (bf16 DST: 2^-8 relative) and pack
rounding of its format."""

import pathlib
import sys

import numpy as np

import tessel
from tessel import formats

KERNELS = pathlib.Path(__file__).resolve().parent / "kernels"
OPS = {"add": ("add_tiles", np.add), "sub": ("sub_tiles", np.subtract), "mul": ("mul_tiles", np.multiply)}


def split_tiles(grid, num_tiles):
    """(core, first tile, count) per core, row-major, the first (tiles %
    cores) taking one more."""
    cores = grid.x * grid.y
    start = 0
    for i in range(cores):
        count = num_tiles // cores + (1 if i < num_tiles % cores else 0)
        yield (i % grid.x, i // grid.x), start, count
        start += count


def make_program(device, a, b, c, num_tiles, op_call, fmt):
    grid = device.grid
    everything = ((0, 0), (grid.x - 1, grid.y - 1))
    tile_bytes = formats.tile_size(fmt)
    program = tessel.Program()
    for cb in (0, 1, 16):
        program.add_circular_buffer(everything,
                                    tessel.CircularBufferConfig(2 * tile_bytes, {cb: fmt}).set_page_size(cb, tile_bytes))
    reader_args, writer_args = [], []
    tessel.TensorAccessorArgs(a).append_to(reader_args)
    tessel.TensorAccessorArgs(b).append_to(reader_args)
    tessel.TensorAccessorArgs(c).append_to(writer_args)
    reader = program.add_kernel(KERNELS / "reader.cpp", everything,
                                tessel.DataMovementConfig(tessel.DataMovementProcessor.RISCV_0,
                                                          compile_args=reader_args))
    writer = program.add_kernel(KERNELS / "writer.cpp", everything,
                                tessel.DataMovementConfig(tessel.DataMovementProcessor.RISCV_1,
                                                          compile_args=writer_args))
    compute = program.add_kernel(KERNELS / "compute.cpp", everything, tessel.ComputeConfig(
        math_fidelity=tessel.MathFidelity.HiFi4, fp32_dest_acc_en=fmt == tessel.DataFormat.Float32,
        defines={"ELTWISE_OP": op_call, "ELTWISE_OP_INIT": op_call + "_init"}))
    for core, start, count in split_tiles(grid, num_tiles):
        program.set_runtime_args(reader, core, [a.address, b.address, start, count])
        program.set_runtime_args(compute, core, [count])
        program.set_runtime_args(writer, core, [c.address, start, count])
    return program


def pack_bound(fmt, ref, group_max):
    if fmt == tessel.DataFormat.Bfp8_b:
        return np.ldexp(group_max, -6)
    if fmt == tessel.DataFormat.Float32:
        return np.ldexp(np.abs(ref), -24)
    return 0.0


def run(device, num_tiles=64, fmt=tessel.DataFormat.Float16_b):
    """{op: (values outside the bound, worst error / bound)}."""
    rng = np.random.default_rng(0x2545F491)
    values = num_tiles * formats.TILE_HW
    a_vals = rng.uniform(-4, 4, values).astype(np.float32)
    b_vals = rng.uniform(-4, 4, values).astype(np.float32)
    a_bytes, b_bytes = formats.to_bytes(a_vals, fmt), formats.to_bytes(b_vals, fmt)
    # What the FPU sees: the stored values (Float32 cut to the source registers' 10 mantissa bits).
    a_src, b_src = formats.from_bytes(a_bytes, fmt), formats.from_bytes(b_bytes, fmt)
    if fmt == tessel.DataFormat.Float32:
        a_src = (a_src.view(np.uint32) & ~np.uint32(0x1FFF)).view(np.float32)
        b_src = (b_src.view(np.uint32) & ~np.uint32(0x1FFF)).view(np.float32)
    tile_bytes = formats.tile_size(fmt)
    bufs = [tessel.Buffer(device, num_tiles * tile_bytes, tile_bytes) for _ in range(3)]
    cq = device.command_queue
    cq.enqueue_write_buffer(bufs[0], a_bytes)
    cq.enqueue_write_buffer(bufs[1], b_bytes)
    results = {}
    for name, (call, reference) in OPS.items():
        program = make_program(device, *bufs, num_tiles, call, fmt)
        cq.enqueue_program(program)
        c = formats.from_bytes(cq.enqueue_read_buffer(bufs[2]), fmt).astype(np.float64)
        ref = reference(a_src.astype(np.float64), b_src.astype(np.float64))
        mag = np.abs(ref)
        group_max = np.repeat(mag.reshape(-1, 16).max(axis=1) * (1 + 2.0**-7), 16)
        bound = np.ldexp(mag, -24) + (0 if fmt == tessel.DataFormat.Float32 else np.ldexp(mag, -8))
        bound = bound + pack_bound(fmt, ref, group_max)
        err = np.abs(c - ref)
        outside = int(np.count_nonzero(~(err <= bound)))
        worst = float(np.max(np.where(bound > 0, err / np.where(bound > 0, bound, 1), 0)))
        results[name] = (outside, worst)
    return results


if __name__ == "__main__":
    with tessel.Device.open() as device:
        results = run(device, 256)
    ok = all(outside == 0 for outside, _ in results.values())
    print("eltwise_binary:", ", ".join(f"{op} worst error {w:.2f} of its bound" for op, (_, w) in results.items()))
    print("eltwise_binary:", "PASSED" if ok else "FAILED")
    sys.exit(0 if ok else 1)
