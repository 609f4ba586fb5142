# The compiler's reduce signature, dims only (no shape=): a row softmax over a
# 1x2-tile block. reduce_max and reduce_sum over dims=[1] give a 1x1 column
# block that ttl.block.broadcast spreads back over the row.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 requires reduce_*(..., shape=))
import torch
import ttnn

import ttl

T_TILES = 2


@ttl.operation(grid=(1, 1))
def softmax(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, T_TILES), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, T_TILES), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
            row_max = ttl.math.reduce_max(x_blk, dims=[1])
            shifted = x_blk - ttl.block.broadcast(row_max, dims=[1], shape=(1, T_TILES))
            e = ttl.math.exp(shifted)
            row_sum = ttl.math.reduce_sum(e, dims=[1])
            y_blk.store(e * ttl.math.recip(ttl.block.broadcast(row_sum, dims=[1], shape=(1, T_TILES))))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:1, 0:T_TILES], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:T_TILES]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(93)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((32, 64), dtype=torch.float32)
    y = to_device(torch.zeros((32, 64), dtype=torch.float32))
    softmax(to_device(x), y)
    expected = torch.softmax(x, dim=1)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=2e-2, atol=2e-3), "row softmax does not match"
finally:
    ttnn.close_device(device)
