# A copy out of a block acquired inline, in a loop: ttl.copy(y_dfb.wait(),
# y[0, c]).wait(); the block is popped after the statement that uses it, as
# TT-Lang's compiler releases blocks after their last use.
# expect: pass
# needs: torch
import torch
import ttl
import ttnn


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, y: ttnn.Tensor):
    n = a.shape[1] // 32
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(n):
            with a_dfb.wait() as x, y_dfb.reserve() as o:
                o.store(x + x)

    @ttl.datamovement()
    def read():
        for c in range(n):
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, c], blk).wait()

    @ttl.datamovement()
    def write():
        for c in range(n):
            ttl.copy(y_dfb.wait(), y[0, c]).wait()


device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((32, 96), dtype=torch.bfloat16)
    y = ttnn.from_torch(torch.zeros((32, 96), dtype=torch.bfloat16), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    op(ttnn.from_torch(a, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device), y)
    assert torch.allclose(ttnn.to_torch(y).float(), a.float() * 2, rtol=1e-2, atol=1e-2), "inline wait loop wrong"

finally:
    ttnn.close_device(device)
