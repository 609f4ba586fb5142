# ttl.block.fill: a constant block stored on its own (y0 = 3.5 everywhere, no
# input at all) and one used in an expression (y1 = x * -2 + 1).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def fills(x: ttnn.Tensor, y0: ttnn.Tensor, y1: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 3), block_count=2)
    y0_dfb = ttl.make_dataflow_buffer_like(y0, shape=(2, 2), block_count=2)
    y1_dfb = ttl.make_dataflow_buffer_like(y1, shape=(1, 3), block_count=2)

    @ttl.compute()
    def compute():
        with y0_dfb.reserve() as y0_blk:
            y0_blk.store(ttl.block.fill(3.5, shape=y0_blk.shape))
        with x_dfb.wait() as x_blk, y1_dfb.reserve() as y1_blk:
            y1_blk.store(x_blk * ttl.block.fill(-2.0, shape=(1, 3)) + ttl.block.fill(1.0, shape=(1, 3)))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            ttl.copy(x[0:1, 0:3], x_blk).wait()

    @ttl.datamovement()
    def write():
        with y0_dfb.wait() as y0_blk:
            ttl.copy(y0_blk, y0[0:2, 0:2]).wait()
        with y1_dfb.wait() as y1_blk:
            ttl.copy(y1_blk, y1[0:1, 0:3]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(30)
device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((TILE_SIZE, 3 * TILE_SIZE), dtype=torch.bfloat16)
    y0 = to_device(torch.zeros((2 * TILE_SIZE, 2 * TILE_SIZE), dtype=torch.bfloat16))
    y1 = to_device(torch.zeros((TILE_SIZE, 3 * TILE_SIZE), dtype=torch.bfloat16))
    fills(to_device(x), y0, y1)
    assert torch.equal(ttnn.to_torch(y0).float(), torch.full((64, 64), 3.5)), "fill(3.5) does not match"
    expected = x.float() * -2.0 + 1.0
    assert torch.allclose(ttnn.to_torch(y1).float(), expected, rtol=2e-2, atol=2e-2), "x * -2 + 1 does not match"
finally:
    ttnn.close_device(device)
