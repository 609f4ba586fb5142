# The compiler's top-level ttl.transpose (tt-lang-sim spells it
# ttl.block.transpose): y = transpose(x) @ w, a 1x2-tile x turned 2x1.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.transpose)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def t_matmul(x: ttnn.Tensor, w: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=2)
    xt_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 1), block_count=2)
    w_dfb = ttl.make_dataflow_buffer_like(w, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 1), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, xt_dfb.reserve() as xt:
            xt.store(ttl.transpose(x_blk))
        with xt_dfb.wait() as xt, w_dfb.wait() as w_blk, y_dfb.reserve() as y_blk:
            y_blk.store(xt @ w_blk)

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:1, 0:2], blk).wait()
        with w_dfb.reserve() as blk:
            ttl.copy(w[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:2, 0:1]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(91)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((32, 64), dtype=torch.float32)
    w = torch.randn((32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((64, 32), dtype=torch.float32))
    t_matmul(to_device(x), to_device(w), y)
    expected = x.T @ w
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=0.1), "transpose(x) @ w does not match"
finally:
    ttnn.close_device(device)
