# The compiler's top-level spellings of unary functions: ttl.exp and ttl.silu
# (tt-lang-sim only has ttl.math.exp / ttl.math.silu). y0 = exp(x), y1 = silu(x).
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.exp / ttl.silu)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def unary(x: ttnn.Tensor, y0: ttnn.Tensor, y1: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=2)
    y0_dfb = ttl.make_dataflow_buffer_like(y0, shape=(1, 2), block_count=2)
    y1_dfb = ttl.make_dataflow_buffer_like(y1, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with y0_dfb.reserve() as y0_blk:
                y0_blk.store(ttl.exp(x_blk))
            with y1_dfb.reserve() as y1_blk:
                y1_blk.store(ttl.silu(x_blk))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            ttl.copy(x[0:1, 0:2], x_blk).wait()

    @ttl.datamovement()
    def write():
        with y0_dfb.wait() as blk:
            ttl.copy(blk, y0[0:1, 0:2]).wait()
        with y1_dfb.wait() as blk:
            ttl.copy(blk, y1[0:1, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(90)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((32, 64), dtype=torch.float32)
    y0 = to_device(torch.zeros((32, 64), dtype=torch.float32))
    y1 = to_device(torch.zeros((32, 64), dtype=torch.float32))
    unary(to_device(x), y0, y1)
    assert torch.allclose(ttnn.to_torch(y0).float(), torch.exp(x), rtol=1e-2, atol=1e-2), "ttl.exp does not match"
    assert torch.allclose(ttnn.to_torch(y1).float(), torch.nn.functional.silu(x), rtol=1e-2, atol=1e-2), "ttl.silu does not match"
finally:
    ttnn.close_device(device)
