"""IRON's single-core matrix multiplication as IRON writes it, on tessel:
bfloat16 A and B, float32 C, through the kernel library's mm kernel
(iron.kernels.mm, aie_kernels/<arch>/mm.cc over the AIE API). The mem-tile
forwards lay A, B and C out in the kernel's r x s x t blocks with
dims_to_stream (mm.stream_dims), TensorTiler2D taps feed one row of output
tiles per TaskGroup, and the result is checked against numpy."""

import sys

import ml_dtypes
import numpy as np

import tessel.iron as iron
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, TensorTiler2D, Worker, range_

bf16 = ml_dtypes.bfloat16


def build(M=256, K=256, N=256, m=64, k=64, n=64, device=None):
    mm = iron.kernels.mm(m, k, n, input_dtype=bf16, output_dtype=np.float32)
    a_ty, b_ty, c_ty = (np.ndarray[s, np.dtype[t]] for s, t in (((m, k), bf16), ((k, n), bf16), ((m, n), np.float32)))
    in_a = ObjectFifo(a_ty, name="inA")
    mem_a = in_a.cons().forward(name="memA", dims_to_stream=mm.stream_dims["A"])
    in_b = ObjectFifo(b_ty, name="inB")
    mem_b = in_b.cons().forward(name="memB", dims_to_stream=mm.stream_dims["B"])
    mem_c = ObjectFifo(c_ty, name="memC")
    out_c = mem_c.cons().forward(name="outC", dims_to_stream=mm.stream_dims["C"])
    tiles = (M // m) * (N // n)

    def core_fn(of_a, of_b, of_c, zero, matmul):
        for _ in range_(tiles):
            elem_c = of_c.acquire(1)
            zero(elem_c)
            for _ in range_(K // k):
                elem_a = of_a.acquire(1)
                elem_b = of_b.acquire(1)
                matmul(elem_a, elem_b, elem_c)
                of_a.release(1)
                of_b.release(1)
            of_c.release(1)

    worker = Worker(core_fn, [mem_a.cons(), mem_b.cons(), mem_c.prod(), mm.zero, mm])
    a_taps = TensorTiler2D.group_tiler((M, K), (m, k), (1, K // k), pattern_repeat=N // n)
    b_tap = TensorTiler2D.group_tiler((K, N), (k, n), (K // k, N // n), tile_group_col_major=True)[0]
    c_taps = TensorTiler2D.group_tiler((M, N), (m, n), (1, N // n))

    def sequence(A, B, C, a_h, b_h, c_h):
        for row in range(M // m):
            tg = TaskGroup()
            a_h.fill(A, tap=a_taps[row], group=tg)
            b_h.fill(B, tap=b_tap, group=tg)
            c_h.drain(C, tap=c_taps[row], group=tg, wait=True)
            tg.finish()

    flat = [np.ndarray[(x * y,), np.dtype[t]] for x, y, t in ((M, K, bf16), (K, N, bf16), (M, N, np.float32))]
    rt = Runtime(sequence, [*flat, in_a.prod(), in_b.prod(), out_c.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


def run(M=256, K=256, N=256, m=64, k=64, n=64, seed=5, device=None):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (M, K)).astype(bf16)
    b = rng.uniform(-1, 1, (K, N)).astype(bf16)
    c = np.zeros(M * N, dtype=np.float32)
    design = build(M, K, N, m, k, n, device=device)
    design(a.reshape(-1), b.reshape(-1), c)
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return c.reshape(M, N), ref, design, (a, b)


def main():
    c, ref, _, _ = run()
    err = float(np.max(np.abs(c - ref)))
    ok = np.allclose(c, ref, rtol=1e-4, atol=1e-3)
    print(f"matmul_mm_kernel 256^3 bf16 -> f32 through iron.kernels.mm: {'PASS' if ok else 'FAIL'} "
          f"(max abs error {err:.2e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
