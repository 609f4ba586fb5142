# ttl.math.exp(x, scale=s) computes e^(s*x) (spec 0.20, Appendix B: 'When scale is
# provided, computes e^(scale * x)'; approx/skip_clamp_check/iterations are
# hardware flags).
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no exp keywords)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.exp(a_blk, scale=0.5) + b_blk)  # <- feature

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            ttl.copy(a[0, 0], a_blk).wait()
            ttl.copy(b[0, 0], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


torch.manual_seed(7)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((32, 32), dtype=torch.float32) + 0.5
    b = torch.rand((32, 32), dtype=torch.float32) + 0.5
    y = to_device(torch.zeros((32, 32), dtype=torch.float32))
    op(to_device(a), to_device(b), y)
    expected = torch.exp(0.5 * a) + b
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=2e-2), "math_exp_scale_ignored: result does not match"
finally:
    ttnn.close_device(device)
