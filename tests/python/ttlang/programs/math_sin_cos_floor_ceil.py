# ttl.math.sin, cos, floor and ceil on float32 tiles.
# One input tile block (2x2 tiles) on a single node; the compute kernel applies
# 4 functions to the same waited block and stores each into its own output.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def unary(x: ttnn.Tensor, y_sin: ttnn.Tensor, y_cos: ttnn.Tensor, y_floor: ttnn.Tensor, y_ceil: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=2)
    y_sin_dfb = ttl.make_dataflow_buffer_like(y_sin, shape=(2, 2), block_count=2)
    y_cos_dfb = ttl.make_dataflow_buffer_like(y_cos, shape=(2, 2), block_count=2)
    y_floor_dfb = ttl.make_dataflow_buffer_like(y_floor, shape=(2, 2), block_count=2)
    y_ceil_dfb = ttl.make_dataflow_buffer_like(y_ceil, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with y_sin_dfb.reserve() as y_sin_blk:
                y_sin_blk.store(ttl.math.sin(x_blk))
            with y_cos_dfb.reserve() as y_cos_blk:
                y_cos_blk.store(ttl.math.cos(x_blk))
            with y_floor_dfb.reserve() as y_floor_blk:
                y_floor_blk.store(ttl.math.floor(x_blk))
            with y_ceil_dfb.reserve() as y_ceil_blk:
                y_ceil_blk.store(ttl.math.ceil(x_blk))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            tx = ttl.copy(x[0:2, 0:2], x_blk)
            tx.wait()

    @ttl.datamovement()
    def write():
        with y_sin_dfb.wait() as y_sin_blk:
            tx = ttl.copy(y_sin_blk, y_sin[0:2, 0:2])
            tx.wait()
        with y_cos_dfb.wait() as y_cos_blk:
            tx = ttl.copy(y_cos_blk, y_cos[0:2, 0:2])
            tx.wait()
        with y_floor_dfb.wait() as y_floor_blk:
            tx = ttl.copy(y_floor_blk, y_floor[0:2, 0:2])
            tx.wait()
        with y_ceil_dfb.wait() as y_ceil_blk:
            tx = ttl.copy(y_ceil_blk, y_ceil[0:2, 0:2])
            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(13)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 2 * TILE_SIZE)
    x = (torch.rand(shape) - 0.5) * 6.0 + 0.1
    outputs = [to_device(torch.zeros(shape, dtype=torch.float32)) for _ in range(4)]
    unary(to_device(x), *outputs)
    goldens = {
        "sin": torch.sin(x),
        "cos": torch.cos(x),
        "floor": torch.floor(x),
        "ceil": torch.ceil(x),
    }
    for (name, golden), out in zip(goldens.items(), outputs):
        result = ttnn.to_torch(out).float()
        assert torch.allclose(result, golden, rtol=1e-2, atol=1e-2), f"ttl.math.{name} does not match"
finally:
    ttnn.close_device(device)
