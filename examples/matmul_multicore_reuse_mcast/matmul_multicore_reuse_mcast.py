"""matmul_multicore_reuse_mcast in Python: C = A B in per-core output blocks,
the left column reading in0 and multicasting it along its row, the top row
reading in1 and multicasting it down its column, with the C++ example's
kernels (examples/matmul_common/kernels) and its check: PCC >= 0.999
against the float64 product of the stored inputs, and every element within
its first-order rounding bound (DST rounding after every 16-deep K step,
the partials spilled to CB 24, the output pack, and 2^-17 sum |a b|; x 1.02),
as examples/matmul_common/matmul_common.cpp states it."""

import pathlib
import sys

import numpy as np

import tessel
from tessel import formats

KERNELS = pathlib.Path(__file__).resolve().parents[1] / "matmul_common" / "kernels"
INVALID = 0


def choose_blocking(grid, Mt, Nt, Kt, fmt):
    """As choose_matmul_blocking: per_core_M/N the smallest divisors that fit
    the grid, in0_block_w the largest divisor of Kt up to 4, the largest
    (squarest) sub-block that fits DST."""
    def smallest_divisor_within(n, parts):
        return next((d for d in range(1, n) if n % d == 0 and n // d <= parts), n)

    pm, pn = smallest_divisor_within(Mt, grid.y), smallest_divisor_within(Nt, grid.x)
    w = max(v for v in range(1, min(4, Kt) + 1) if Kt % v == 0)
    dst = 4 if fmt == tessel.DataFormat.Float32 else 8
    best = max(((h * ww, -abs(h - ww), h, ww) for h in range(1, pm + 1) for ww in range(1, pn + 1)
                if h * ww <= dst and pm % h == 0 and pn % ww == 0))
    return pm, pn, w, best[2], best[3]


def make_program(device, a, b, c, Mt, Nt, Kt, fmt, blocking):
    pm, pn, w, sh, sw = blocking
    used = (Nt // pn, Mt // pm)
    everything = ((0, 0), (used[0] - 1, used[1] - 1))
    tile = formats.tile_size(fmt)
    p = tessel.Program()
    in0_tiles, in1_tiles, out_tiles = pm * w, w * pn, pm * pn
    p.add_circular_buffer(everything, tessel.CircularBufferConfig(2 * in0_tiles * tile, {0: fmt}).set_page_size(0, tile))
    p.add_circular_buffer(everything, tessel.CircularBufferConfig(2 * in1_tiles * tile, {1: fmt}).set_page_size(1, tile))
    p.add_circular_buffer(everything, tessel.CircularBufferConfig(out_tiles * tile, {16: fmt, 24: fmt})
                          .set_page_size(16, tile).set_page_size(24, tile))
    in0_sub, in1_sub = pm // sh, pn // sw
    p.add_kernel(KERNELS / "bmm_large_block_zm.cpp", everything, tessel.ComputeConfig(
        math_fidelity="HiFi4", fp32_dest_acc_en=fmt == tessel.DataFormat.Float32,
        compile_args=[w, in0_sub, in0_tiles, sh * w, in1_sub, in1_tiles, pn, Kt // w, sh, sw, sh * sw, 1]))
    writer_args = tessel.TensorAccessorArgs(c).append_to([]) + [sh, sw, in0_sub, in1_sub]
    writer = p.add_kernel(KERNELS / "writer_bmm_tile_layout.cpp", everything,
                          tessel.DataMovementConfig("RISCV_1", compile_args=writer_args))
    sems = [p.add_semaphore(everything, INVALID) for _ in range(4)]  # in0 send/recv, in1 send/recv
    roles = [(True, True, ((0, 0), (0, 0))), (True, False, ((0, 1), (0, used[1] - 1))),
             (False, True, ((1, 0), (used[0] - 1, 0))), (False, False, ((1, 1), (used[0] - 1, used[1] - 1)))]
    worker = device.worker_core_from_logical_core
    for in0_sender, in1_sender, (lo, hi) in roles:
        if lo[0] > hi[0] or lo[1] > hi[1]:
            continue
        cta = tessel.TensorAccessorArgs(a).append_to([])
        tessel.TensorAccessorArgs(b).append_to(cta)
        cta += [int(in0_sender), int(in1_sender), pm, pn, w, *sems]
        reader = p.add_kernel(KERNELS / "reader_bmm_tile_layout_mcast.cpp", (lo, hi),
                              tessel.DataMovementConfig("RISCV_0", compile_args=cta))
        for core in tessel.CoreRange(lo, hi).cores():
            m0, n0 = core.y * pm, core.x * pn
            row_first, row_last = worker((1 if used[0] > 1 else 0, core.y)), worker((used[0] - 1, core.y))
            row_sender = worker((0, core.y))
            col_first, col_last = worker((core.x, 1 if used[1] > 1 else 0)), worker((core.x, used[1] - 1))
            col_sender = worker((core.x, 0))
            p.set_runtime_args(reader, core, [a.address, b.address, Kt, Nt, m0, n0,
                                              *row_first, *row_last, used[0] - 1, *row_sender,
                                              *col_first, *col_last, used[1] - 1, *col_sender])
            p.set_runtime_args(writer, core, [c.address, Nt, m0, n0])
    return p


def group_max(m):
    """Largest |v| of each element's aligned 16-column group (one face row)."""
    g = np.abs(m).reshape(m.shape[0], -1, 16).max(axis=2)
    return np.repeat(g, 16, axis=1)


def pack_bound(fmt, v):
    if fmt == tessel.DataFormat.Float32:
        return np.ldexp(np.abs(v), -24)
    if fmt == tessel.DataFormat.Float16_b:
        return np.ldexp(np.abs(v), -8)
    if fmt == tessel.DataFormat.Bfp8_b:
        return np.ldexp(group_max(v), -6)
    return np.abs(v)


def check(a, b, c, fmt, spill_k_tiles):
    """(pcc, values outside their bound, worst err / bound)."""
    K = a.shape[1]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    steps = [a64[:, k:k + 16] @ b64[k:k + 16, :] for k in range(0, K, 16)]
    partial = np.cumsum(steps, axis=0)
    ref = partial[-1]
    u_dst = 2.0**-24 if fmt == tessel.DataFormat.Float32 else 2.0**-8
    bound = u_dst * np.abs(partial).sum(axis=0)
    bound += np.ldexp(np.abs(a64) @ np.abs(b64), -9 if fmt == tessel.DataFormat.Float32 else -17)
    spill = spill_k_tiles * 32
    for done in range(spill, K, spill):
        bound += pack_bound(fmt, partial[done // 16 - 1])
    bound = 1.02 * (bound + pack_bound(fmt, ref))
    err = np.abs(c.astype(np.float64) - ref)
    outside = int(np.count_nonzero(~(err <= bound)))
    worst = float(np.max(err / np.where(bound > 0, bound, np.inf)))
    pcc = float(np.corrcoef(ref.reshape(-1), c.reshape(-1).astype(np.float64))[0, 1])
    return pcc, outside, worst


def run(device, size=256, fmt=tessel.DataFormat.Float16_b):
    Mt = Nt = Kt = size // 32
    rng = np.random.default_rng(0x9E3779B9)
    tile = formats.tile_size(fmt)
    stored = []
    bufs = []
    for _ in range(2):
        m = rng.uniform(-1, 1, (size, size)).astype(np.float32)
        packed = formats.to_bytes(formats.tilize(m), fmt)
        stored.append(formats.untilize(formats.from_bytes(packed, fmt), size, size))
        buf = tessel.Buffer(device, packed.size, tile)
        buf.write(packed)
        bufs.append(buf)
    c_buf = tessel.Buffer(device, Mt * Nt * tile, tile)
    blocking = choose_blocking(device.grid, Mt, Nt, Kt, fmt)
    program = make_program(device, bufs[0], bufs[1], c_buf, Mt, Nt, Kt, fmt, blocking)
    device.command_queue.enqueue_program(program)
    c = formats.untilize(formats.from_bytes(c_buf.read(), fmt), size, size)
    return check(stored[0], stored[1], c, fmt, blocking[2])


if __name__ == "__main__":
    with tessel.Device.open() as device:
        pcc, outside, worst = run(device)
    ok = pcc >= 0.999 and outside == 0
    print(f"matmul_multicore_reuse_mcast: PCC {pcc:.6f} (>= 0.999), "
          f"{outside} values outside their bound (worst err/bound {worst:.2f})")
    print("matmul_multicore_reuse_mcast:", "PASSED" if ok else "FAILED")
    sys.exit(0 if ok else 1)
