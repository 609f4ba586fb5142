# Operation flags the compiler reads: fp32_dest_acc_en and dst_full_sync_en on
# @ttl.operation. A float32 matmul with 8 K tiles accumulated through a DFB;
# with float32 accumulation the result matches a float32 host matmul closely.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True, dst_full_sync_en=True)
def matmul(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    kt = a.shape[1] // TILE_SIZE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
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
        for k in range(kt):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                tx_a = ttl.copy(a[0, k], a_blk)
                tx_b = ttl.copy(b[k, 0], b_blk)
                tx_a.wait()
                tx_b.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(121)
device = ttnn.open_device(device_id=0)
try:
    a = torch.randn((32, 8 * 32), dtype=torch.float32)
    b = torch.randn((8 * 32, 32), dtype=torch.float32) / 16
    y = to_device(torch.zeros((32, 32), dtype=torch.float32))
    matmul(to_device(a), to_device(b), y)
    expected = a.double() @ b.double()
    result = ttnn.to_torch(y).double()
    assert torch.allclose(result, expected, rtol=1e-2, atol=2e-2), "float32 a @ b does not match"
finally:
    ttnn.close_device(device)
