# Two unicast pipes in one PipeNet on a 1x2 grid: the nodes swap tiles. Each
# reader sends its own tile with net.if_src; each writer first receives the
# other node's tile with net.if_dst; compute stores y_i = x_i - x_other.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 2))
def exchange(x: ttnn.Tensor, y: ttnn.Tensor):
    mine_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    other_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, 1)), ttl.Pipe((0, 1), (0, 0))])

    @ttl.compute()
    def compute():
        with mine_dfb.wait() as mine, other_dfb.wait() as other, y_dfb.reserve() as y_blk:
            y_blk.store(mine - other)

    @ttl.datamovement()
    def read():
        _, n = ttl.node(dims=2)
        with mine_dfb.reserve() as mine:
            ttl.copy(x[n, 0], mine).wait()

            def send(pipe):
                ttl.copy(mine, pipe).wait()

            net.if_src(send)

    @ttl.datamovement()
    def write():
        _, n = ttl.node(dims=2)
        with other_dfb.reserve() as other:

            def receive(pipe):
                ttl.copy(pipe, other).wait()

            net.if_dst(receive)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[n, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(70)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((64, 32), dtype=torch.float32)
    y = to_device(torch.zeros((64, 32), dtype=torch.float32))
    exchange(to_device(x), y)
    x0, x1 = x[:32], x[32:]
    expected = torch.cat([x0 - x1, x1 - x0])
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-6, atol=1e-6), "exchange does not match"
finally:
    ttnn.close_device(device)
