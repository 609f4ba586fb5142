# ttl.block.where with a comparison mask: y = where(a > b, a - b, c), the mask
# from ttl.math.gt (1.0 where true, 0.0 where false). tt-lang lists where as
# simulator-only; tessel runs it.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def select(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    blocks = a.shape[0] // TILE_SIZE // 2
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(2, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(blocks):
            with (
                a_dfb.wait() as a_blk,
                b_dfb.wait() as b_blk,
                c_dfb.wait() as c_blk,
                y_dfb.reserve() as y_blk,
            ):
                y_blk.store(ttl.block.where(ttl.math.gt(a_blk, b_blk), a_blk - b_blk, c_blk))

    @ttl.datamovement()
    def read():
        for i in range(blocks):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                tx_a = ttl.copy(a[2 * i : 2 * i + 2, 0:2], a_blk)
                tx_b = ttl.copy(b[2 * i : 2 * i + 2, 0:2], b_blk)
                tx_c = ttl.copy(c[2 * i : 2 * i + 2, 0:2], c_blk)
                tx_a.wait()
                tx_b.wait()
                tx_c.wait()

    @ttl.datamovement()
    def write():
        for i in range(blocks):
            with y_dfb.wait() as y_blk:
                tx = ttl.copy(y_blk, y[2 * i : 2 * i + 2, 0:2])
                tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(23)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * TILE_SIZE, 2 * TILE_SIZE)
    a = torch.rand(shape, dtype=torch.float32)
    b = torch.rand(shape, dtype=torch.float32)
    c = torch.rand(shape, dtype=torch.float32) + 1.0
    y = to_device(torch.zeros(shape, dtype=torch.float32))
    select(to_device(a), to_device(b), to_device(c), y)
    a, b, c = a.float(), b.float(), c.float()
    expected = torch.where(a > b, a - b, c)
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=1e-5, atol=1e-5), "where(a > b, a - b, c) does not match"
finally:
    ttnn.close_device(device)
