# Matmul with K accumulation in a block-expression temporary with `+=`:
# acc = a0 @ b0, then acc += ak @ bk for the other K tiles, then one store.
# One output tile at a time, K = 4 tiles, M = 64, N = 96.
# expect: pass
# needs: torch
import torch
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
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(mt):
            for _ in range(nt):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    acc = a_blk @ b_blk
                for _ in range(kt - 1):
                    with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                        acc += a_blk @ b_blk
                with y_dfb.reserve() as y_blk:
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


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(42)
device = ttnn.open_device(device_id=0)
try:
    M, K, N = 64, 128, 96
    a = torch.randn((M, K), dtype=torch.bfloat16)
    b = torch.randn((K, N), dtype=torch.bfloat16)
    y = to_device(torch.zeros((M, N), dtype=torch.bfloat16))
    matmul(to_device(a), to_device(b), y)
    expected = a.float() @ b.float()
    result = ttnn.to_torch(y).float()
    pcc = torch.corrcoef(torch.stack([result.flatten(), expected.flatten()]))[0, 1].item()
    assert pcc > 0.999, f"PCC {pcc:.6f}"
finally:
    ttnn.close_device(device)
