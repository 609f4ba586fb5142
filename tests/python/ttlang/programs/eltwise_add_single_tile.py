# Elementwise add of one 32x32 tile on a single node: one reader, one compute,
# one writer kernel, `with` acquires on every dataflow buffer.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def add_tile(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0, 0], a_blk)
            tx_b = ttl.copy(b[0, 0], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            tx = ttl.copy(y_blk, y[0, 0])
            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(0)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((32, 32), dtype=torch.bfloat16)
    b = torch.rand((32, 32), dtype=torch.bfloat16)
    y = to_device(torch.zeros((32, 32), dtype=torch.bfloat16))
    add_tile(to_device(a), to_device(b), y)
    result = ttnn.to_torch(y)
    expected = a + b
    assert torch.allclose(result.float(), expected.float(), rtol=1e-2, atol=1e-2), "a + b does not match"
finally:
    ttnn.close_device(device)
