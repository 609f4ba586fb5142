# ttl.math.abs, neg, recip and square on float32 tiles (inputs away from 0).
# One input tile block (2x2 tiles) on a single node; the compute kernel applies
# 4 functions to the same waited block and stores each into its own output.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def unary(x: ttnn.Tensor, y_abs: ttnn.Tensor, y_neg: ttnn.Tensor, y_recip: ttnn.Tensor, y_square: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=2)
    y_abs_dfb = ttl.make_dataflow_buffer_like(y_abs, shape=(2, 2), block_count=2)
    y_neg_dfb = ttl.make_dataflow_buffer_like(y_neg, shape=(2, 2), block_count=2)
    y_recip_dfb = ttl.make_dataflow_buffer_like(y_recip, shape=(2, 2), block_count=2)
    y_square_dfb = ttl.make_dataflow_buffer_like(y_square, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with y_abs_dfb.reserve() as y_abs_blk:
                y_abs_blk.store(ttl.math.abs(x_blk))
            with y_neg_dfb.reserve() as y_neg_blk:
                y_neg_blk.store(ttl.math.neg(x_blk))
            with y_recip_dfb.reserve() as y_recip_blk:
                y_recip_blk.store(ttl.math.recip(x_blk))
            with y_square_dfb.reserve() as y_square_blk:
                y_square_blk.store(ttl.math.square(x_blk))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            tx = ttl.copy(x[0:2, 0:2], x_blk)
            tx.wait()

    @ttl.datamovement()
    def write():
        with y_abs_dfb.wait() as y_abs_blk:
            tx = ttl.copy(y_abs_blk, y_abs[0:2, 0:2])
            tx.wait()
        with y_neg_dfb.wait() as y_neg_blk:
            tx = ttl.copy(y_neg_blk, y_neg[0:2, 0:2])
            tx.wait()
        with y_recip_dfb.wait() as y_recip_blk:
            tx = ttl.copy(y_recip_blk, y_recip[0:2, 0:2])
            tx.wait()
        with y_square_dfb.wait() as y_square_blk:
            tx = ttl.copy(y_square_blk, y_square[0:2, 0:2])
            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(12)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 2 * TILE_SIZE)
    x = (torch.rand(shape) + 0.5) * torch.where(torch.rand(shape) < 0.5, -1.0, 1.0)
    outputs = [to_device(torch.zeros(shape, dtype=torch.float32)) for _ in range(4)]
    unary(to_device(x), *outputs)
    goldens = {
        "abs": torch.abs(x),
        "neg": -x,
        "recip": 1.0 / x,
        "square": x * x,
    }
    for (name, golden), out in zip(goldens.items(), outputs):
        result = ttnn.to_torch(out).float()
        assert torch.allclose(result, golden, rtol=1e-2, atol=1e-2), f"ttl.math.{name} does not match"
finally:
    ttnn.close_device(device)
