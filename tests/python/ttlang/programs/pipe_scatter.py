# Scatter: node (0, 0) reads three tiles, squares each in its compute kernel and
# sends tile i to node (0, i + 1), one unicast pipe each (its if_src callback
# runs once per pipe, in net order); each receiver adds 1 and writes its tile.
# y_i = x_i * x_i + 1.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

RECEIVERS = 3


@ttl.operation(grid=(1, 4))
def scatter(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    send_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    recv_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, i + 1)) for i in range(RECEIVERS)])

    @ttl.compute()
    def compute():
        if net.is_src():
            for _ in range(RECEIVERS):
                with x_dfb.wait() as x_blk, send_dfb.reserve() as s:
                    s.store(x_blk * x_blk)
        else:
            with recv_dfb.wait() as r, y_dfb.reserve() as y_blk:
                y_blk.store(r + ttl.block.fill(1.0, shape=y_blk.shape))

    @ttl.datamovement()
    def read():
        def receive(pipe):
            with recv_dfb.reserve() as r:
                ttl.copy(pipe, r).wait()

        if net.is_src():
            for i in range(RECEIVERS):
                with x_dfb.reserve() as x_blk:
                    ttl.copy(x[i, 0], x_blk).wait()
        net.if_dst(receive)

    @ttl.datamovement()
    def write():
        _, row = ttl.node(dims=2)

        def send(pipe):
            with send_dfb.wait() as s:
                ttl.copy(s, pipe).wait()

        net.if_src(send)
        if net.is_dst():
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[row - 1, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(73)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((3 * 32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((3 * 32, 32), dtype=torch.float32))
    scatter(to_device(x), y)
    expected = x * x + 1
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "scattered x * x + 1 does not match"
finally:
    ttnn.close_device(device)
