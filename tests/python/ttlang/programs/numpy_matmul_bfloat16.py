# numpy only (no torch import): float32 numpy inputs stored on the device as
# bfloat16; a (64, 128) @ (128, 64) matmul with K accumulated through a DFB,
# one output tile at a time. Checked with numpy against the bf16-rounded inputs.
# expect: pass
# sim: no (tt-lang-sim 1.1.6 ttnn.from_torch takes torch tensors only; the same
#   program with torch.from_numpy around each array passes there)
import numpy as np
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def matmul(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    mt = a.shape[0] // TILE_SIZE
    kt = a.shape[1] // TILE_SIZE
    nt = b.shape[1] // TILE_SIZE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(mt * nt):
            with acc_dfb.reserve() as acc:
                acc.store(ttl.block.fill(0.0, shape=acc.shape))
            for _ in range(kt):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, acc_dfb.wait() as prev:
                    with acc_dfb.reserve() as acc:
                        acc.store(prev + a_blk @ b_blk)
            with acc_dfb.wait() as acc, y_dfb.reserve() as y_blk:
                y_blk.store(acc)

    @ttl.datamovement()
    def read():
        for m in range(mt):
            for n in range(nt):
                for k in range(kt):
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        tx_a = ttl.copy(a[m, k], a_blk)
                        tx_b = ttl.copy(b[k, n], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.datamovement()
    def write():
        for m in range(mt):
            for n in range(nt):
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m, n]).wait()


def to_device(array, dtype):
    return ttnn.from_torch(
        array, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


def round_to_bfloat16(array):
    bits = array.astype(np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


rng = np.random.default_rng(111)
device = ttnn.open_device(device_id=0)
try:
    a = rng.standard_normal((64, 128), dtype=np.float32)
    b = rng.standard_normal((128, 64), dtype=np.float32)
    y = to_device(np.zeros((64, 64), dtype=np.float32), ttnn.float32)
    matmul(to_device(a, ttnn.bfloat16), to_device(b, ttnn.bfloat16), y)
    expected = round_to_bfloat16(a).astype(np.float64) @ round_to_bfloat16(b).astype(np.float64)
    result = np.asarray(ttnn.to_torch(y), dtype=np.float64)
    pcc = np.corrcoef(result.ravel(), expected.ravel())[0, 1]
    assert pcc > 0.9999, f"PCC {pcc:.6f}"
    np.testing.assert_allclose(result, expected, rtol=2e-2, atol=0.1)
finally:
    ttnn.close_device(device)
