# squeeze, elementwise math, unsqueeze back: a (2, 1) row-sum block squeezed to (2,), doubled (r + r), unsqueezed to (2, 1).
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 reshapes the reduced block wrongly: "shape [64, 32] is invalid")
import torch
import ttl
import ttnn


@ttl.operation(grid=(1, 1))
def op(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 1), block_count=1)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as xb, y_dfb.reserve() as yb:
            r = ttl.block.squeeze(ttl.math.reduce_sum(xb, dims=[1], shape=(2, 1)), dims=[1])
            yb.store(ttl.block.unsqueeze(r + r, dims=[1]))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as xb:
            ttl.copy(x[0:2, 0:2], xb).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as yb:
            ttl.copy(yb, y[0:2, 0:1]).wait()


device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((64, 64), dtype=torch.bfloat16)
    dev = lambda t: ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    y = dev(torch.zeros((64, 32), dtype=torch.bfloat16))
    op(dev(x), y)
    got = ttnn.to_torch(y).float()[:, 0]
    want = x.float().sum(dim=1) * 2
    assert torch.allclose(got, want, rtol=3e-2, atol=1.0), "row sums wrong"

finally:
    ttnn.close_device(device)
