# print() inside kernels: the compute and both data-movement kernels print
# their node, loop index and a string; the operation still computes y = x + 1
# over a 2x1 grid with two tiles per node.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(2, 1))
def add_one(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        n = ttl.node(dims=1)
        for t in range(2):
            print("compute: node", n, "tile", t)
            with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
                y_blk.store(x_blk + ttl.block.fill(1.0, shape=y_blk.shape))

    @ttl.datamovement()
    def read():
        n = ttl.node(dims=1)
        for t in range(2):
            print(f"read: node={n} tile={t}")
            with x_dfb.reserve() as x_blk:
                ttl.copy(x[n, t], x_blk).wait()

    @ttl.datamovement()
    def write():
        n = ttl.node(dims=1)
        for t in range(2):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[n, t]).wait()
            print("write: done", t)


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(80)
device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((64, 64), dtype=torch.bfloat16)
    y = to_device(torch.zeros((64, 64), dtype=torch.bfloat16))
    add_one(to_device(x), y)
    assert torch.allclose(ttnn.to_torch(y).float(), x.float() + 1, rtol=2e-2, atol=2e-2), "x + 1 does not match"
finally:
    ttnn.close_device(device)
