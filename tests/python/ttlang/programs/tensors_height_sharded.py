# A height-sharded L1 input (ttnn.create_sharded_memory_config, HEIGHT, one
# 32x64 shard per core on a 1-column x 4-row core grid) read by an operation
# on the matching grid=(1, 4): node r copies tile row r (its own shard) and the
# result goes to an interleaved DRAM tensor. y = x * x.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 4))
def square(x: ttnn.Tensor, y: ttnn.Tensor):
    cols = x.shape[1] // TILE_SIZE
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, cols), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, cols), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
            y_blk.store(x_blk * x_blk)

    @ttl.datamovement()
    def read():
        _, row = ttl.node(dims=2)
        with x_dfb.reserve() as x_blk:
            ttl.copy(x[row, 0:cols], x_blk).wait()

    @ttl.datamovement()
    def write():
        _, row = ttl.node(dims=2)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[row, 0:cols]).wait()


torch.manual_seed(62)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * TILE_SIZE, 2 * TILE_SIZE)
    x = torch.randn(shape, dtype=torch.bfloat16)
    sharded = ttnn.create_sharded_memory_config(
        shape, core_grid=ttnn.CoreGrid(y=4, x=1), strategy=ttnn.ShardStrategy.HEIGHT
    )
    x_dev = ttnn.from_torch(x, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=sharded)
    y = ttnn.from_torch(
        torch.zeros(shape, dtype=torch.bfloat16), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )
    square(x_dev, y)
    expected = x.float() * x.float()
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=2e-2, atol=2e-2), "x * x does not match"
finally:
    ttnn.close_device(device)
