# ttl.block.transpose of a 2x3-tile block into a 3x2-tile block (tile grid and
# each tile's elements swap), then an add with a second, already-transposed input.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def transpose_add(x: ttnn.Tensor, z: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 3), block_count=2)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(3, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(3, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, z_dfb.wait() as z_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.block.transpose(x_blk) + z_blk)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk, z_dfb.reserve() as z_blk:
            tx_x = ttl.copy(x[0:2, 0:3], x_blk)
            tx_z = ttl.copy(z[0:3, 0:2], z_blk)
            tx_x.wait()
            tx_z.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:3, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(32)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((64, 96), dtype=torch.float32)
    z = torch.randn((96, 64), dtype=torch.float32)
    y = to_device(torch.zeros((96, 64), dtype=torch.float32))
    transpose_add(to_device(x), to_device(z), y)
    expected = x.T + z
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "x.T + z does not match"
finally:
    ttnn.close_device(device)
