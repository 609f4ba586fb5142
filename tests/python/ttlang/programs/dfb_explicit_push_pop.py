# Explicit acquire/release with no `with`: reserve() ... push() and
# wait() ... pop() in every kernel, over a column of 4 tiles: y = a + b + b.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def add(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    tiles = a.shape[0] // TILE_SIZE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(tiles):
            a_blk = a_dfb.wait()
            b_blk = b_dfb.wait()
            y_blk = y_dfb.reserve()
            y_blk.store(a_blk + b_blk + b_blk)
            y_blk.push()
            a_blk.pop()
            b_blk.pop()

    @ttl.datamovement()
    def read():
        for t in range(tiles):
            a_blk = a_dfb.reserve()
            tx = ttl.copy(a[t, 0], a_blk)
            tx.wait()
            a_blk.push()
            b_blk = b_dfb.reserve()
            tx = ttl.copy(b[t, 0], b_blk)
            tx.wait()
            b_blk.push()

    @ttl.datamovement()
    def write():
        for t in range(tiles):
            y_blk = y_dfb.wait()
            tx = ttl.copy(y_blk, y[t, 0])
            tx.wait()
            y_blk.pop()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(50)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * TILE_SIZE, TILE_SIZE)
    a = torch.rand(shape, dtype=torch.bfloat16)
    b = torch.rand(shape, dtype=torch.bfloat16)
    y = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    add(to_device(a), to_device(b), y)
    expected = a.float() + 2 * b.float()
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=2e-2, atol=2e-2), "a + b + b does not match"
finally:
    ttnn.close_device(device)
