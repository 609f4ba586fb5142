"""IRON's single-core matrix multiplication on tessel: bf16 A and B (as bit
patterns, tessel.formats.bf16_bits), float32 C, tiles fed by TensorTiler2D
taps, and the double-buffered task groups of the runtime-sequence pattern:
each half-block of output rows is one TaskGroup (fills of A's tile rows and
of the whole of B, then one awaited drain of C), and the previous group is
finished only after the next one is issued. Checked against numpy."""

import sys

import numpy as np

import tessel.iron as iron
from tessel import formats
from tessel.iron import ObjectFifo, Program, Runtime, TaskGroup, TensorTiler2D, Worker, range_

KERNELS = r"""
static inline float bf16_to_f32(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
extern "C" void zero_f32(float* c, int32_t count) {
  for (int32_t i = 0; i < count; ++i) c[i] = 0.0f;
}
extern "C" void matmul_bf16_f32(uint16_t* a, uint16_t* b, float* c, int32_t m, int32_t k, int32_t n) {
  for (int32_t i = 0; i < m; ++i)
    for (int32_t kk = 0; kk < k; ++kk) {
      const float av = bf16_to_f32(a[i * k + kk]);
      for (int32_t j = 0; j < n; ++j) c[i * n + j] += av * bf16_to_f32(b[kk * n + j]);
    }
}
"""


def build(M=128, K=128, N=128, m=32, k=32, n=32, rows_per_block=4, device=None):
    a_ty = np.ndarray[(M * K,), np.dtype[np.uint16]]
    b_ty = np.ndarray[(K * N,), np.dtype[np.uint16]]
    c_ty = np.ndarray[(M * N,), np.dtype[np.float32]]
    a_tile = np.ndarray[(m * k,), np.dtype[np.uint16]]
    b_tile = np.ndarray[(k * n,), np.dtype[np.uint16]]
    c_tile = np.ndarray[(m * n,), np.dtype[np.float32]]
    of_a = ObjectFifo(a_tile, name="A")
    of_b = ObjectFifo(b_tile, name="B")
    of_c = ObjectFifo(c_tile, name="C")
    zero = iron.ExternalFunction("zero_f32", source_string=KERNELS, arg_types=[c_tile, np.int32])
    matmul = iron.ExternalFunction("matmul_bf16_f32", source_string=KERNELS,
                                   arg_types=[a_tile, b_tile, c_tile, np.int32, np.int32, np.int32])
    tiles = (M // m) * (N // n)

    def core_fn(of_a, of_b, of_c, zero, matmul):
        for _ in range_(tiles):
            elem_c = of_c.acquire(1)
            zero(elem_c, m * n)
            for _ in range_(K // k):
                elem_a = of_a.acquire(1)
                elem_b = of_b.acquire(1)
                matmul(elem_a, elem_b, elem_c, m, k, n)
                of_a.release(1)
                of_b.release(1)
            of_c.release(1)

    worker = Worker(core_fn, [of_a.cons(), of_b.cons(), of_c.prod(), zero, matmul])

    half = rows_per_block // 2
    a_taps = TensorTiler2D.group_tiler((M, K), (m, k), (1, K // k), pattern_repeat=N // n)
    b_tap = TensorTiler2D.group_tiler((K, N), (k, n), (K // k, N // n), tile_group_col_major=True)[0]
    c_taps = TensorTiler2D.group_tiler((M, N), (m, n), (half, N // n))

    def sequence(A, B, C, a_h, b_h, c_h):
        previous = None
        for row0 in range(0, M // m, half):
            tg = TaskGroup()
            for row in range(row0, min(row0 + half, M // m)):
                a_h.fill(A, tap=a_taps[row], group=tg)
                b_h.fill(B, tap=b_tap, group=tg)
            c_h.drain(C, tap=c_taps[row0 // half], group=tg, wait=True)
            if previous is not None:
                previous.finish()
            previous = tg
        previous.finish()

    rt = Runtime(sequence, [a_ty, b_ty, c_ty, of_a.prod(), of_b.prod(), of_c.cons()])
    return Program(device, rt, workers=[worker]).resolve_program()


def reference(a_bits, b_bits, M, K, N):
    a = formats.bf16_values(a_bits).reshape(M, K)
    b = formats.bf16_values(b_bits).reshape(K, N)
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def run(M=128, K=128, N=128, m=32, k=32, n=32, seed=3, device=None):
    rng = np.random.default_rng(seed)
    a_bits = formats.bf16_bits(rng.uniform(-1, 1, (M, K)).astype(np.float32)).reshape(-1)
    b_bits = formats.bf16_bits(rng.uniform(-1, 1, (K, N)).astype(np.float32)).reshape(-1)
    c = np.zeros(M * N, dtype=np.float32)
    design = build(M, K, N, m, k, n, device=device)
    design(a_bits, b_bits, c)
    return c.reshape(M, N), reference(a_bits, b_bits, M, K, N), design


def main():
    c, ref, _ = run()
    err = float(np.max(np.abs(c - ref)))
    ok = np.allclose(c, ref, rtol=1e-5, atol=1e-4)
    print(f"matmul_single_core 128^3 bf16 -> f32: {'PASS' if ok else 'FAIL'} (max abs error {err:.2e})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
