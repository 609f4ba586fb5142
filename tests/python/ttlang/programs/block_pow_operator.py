# The ** operator on a block with a non-negative integer exponent (spec 0.14:
# BlockExpr.__pow__(exponent: NaturalInt), e.g. a ** 2), as the spec's
# elementwise_broadcast_reduce example uses it.
# expect: pass
# needs: torch
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
            y_blk.store(a_blk ** 2 + b_blk ** 3)  # <- feature

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
    expected = a ** 2 + b ** 3
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=1e-3, atol=1e-3), "block_pow_operator: result does not match"
finally:
    ttnn.close_device(device)
