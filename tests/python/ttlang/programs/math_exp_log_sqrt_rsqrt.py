# ttl.math.exp, log, sqrt and rsqrt on float32 tiles (positive inputs).
# One input tile block (2x2 tiles) on a single node; the compute kernel applies
# 4 functions to the same waited block and stores each into its own output.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def unary(x: ttnn.Tensor, y_exp: ttnn.Tensor, y_log: ttnn.Tensor, y_sqrt: ttnn.Tensor, y_rsqrt: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=2)
    y_exp_dfb = ttl.make_dataflow_buffer_like(y_exp, shape=(2, 2), block_count=2)
    y_log_dfb = ttl.make_dataflow_buffer_like(y_log, shape=(2, 2), block_count=2)
    y_sqrt_dfb = ttl.make_dataflow_buffer_like(y_sqrt, shape=(2, 2), block_count=2)
    y_rsqrt_dfb = ttl.make_dataflow_buffer_like(y_rsqrt, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with y_exp_dfb.reserve() as y_exp_blk:
                y_exp_blk.store(ttl.math.exp(x_blk))
            with y_log_dfb.reserve() as y_log_blk:
                y_log_blk.store(ttl.math.log(x_blk))
            with y_sqrt_dfb.reserve() as y_sqrt_blk:
                y_sqrt_blk.store(ttl.math.sqrt(x_blk))
            with y_rsqrt_dfb.reserve() as y_rsqrt_blk:
                y_rsqrt_blk.store(ttl.math.rsqrt(x_blk))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            tx = ttl.copy(x[0:2, 0:2], x_blk)
            tx.wait()

    @ttl.datamovement()
    def write():
        with y_exp_dfb.wait() as y_exp_blk:
            tx = ttl.copy(y_exp_blk, y_exp[0:2, 0:2])
            tx.wait()
        with y_log_dfb.wait() as y_log_blk:
            tx = ttl.copy(y_log_blk, y_log[0:2, 0:2])
            tx.wait()
        with y_sqrt_dfb.wait() as y_sqrt_blk:
            tx = ttl.copy(y_sqrt_blk, y_sqrt[0:2, 0:2])
            tx.wait()
        with y_rsqrt_dfb.wait() as y_rsqrt_blk:
            tx = ttl.copy(y_rsqrt_blk, y_rsqrt[0:2, 0:2])
            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(10)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 2 * TILE_SIZE)
    x = torch.rand(shape) * 3.0 + 0.25
    outputs = [to_device(torch.zeros(shape, dtype=torch.float32)) for _ in range(4)]
    unary(to_device(x), *outputs)
    goldens = {
        "exp": torch.exp(x),
        "log": torch.log(x),
        "sqrt": torch.sqrt(x),
        "rsqrt": torch.rsqrt(x),
    }
    for (name, golden), out in zip(goldens.items(), outputs):
        result = ttnn.to_torch(out).float()
        assert torch.allclose(result, golden, rtol=1e-2, atol=1e-2), f"ttl.math.{name} does not match"
finally:
    ttnn.close_device(device)
