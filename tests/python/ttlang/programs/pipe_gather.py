# Gather: nodes (0, 1..3) each compute 2 * x_i and send it to node (0, 0)
# through their own unicast pipe; the root's if_dst callback runs once per pipe,
# receiving three blocks, and its compute sums them through an accumulator DFB.
# y = 2 * (x_1 + x_2 + x_3).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

SENDERS = 3


@ttl.operation(grid=(1, 4))
def gather(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    send_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    recv_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe((0, i), (0, 0)) for i in range(1, SENDERS + 1)])

    @ttl.compute()
    def compute():
        if net.is_dst():
            with acc_dfb.reserve() as acc:
                acc.store(ttl.block.fill(0.0, shape=acc.shape))
            for _ in range(SENDERS):
                with recv_dfb.wait() as r, acc_dfb.wait() as prev, acc_dfb.reserve() as acc:
                    acc.store(prev + r)
            with acc_dfb.wait() as acc, y_dfb.reserve() as y_blk:
                y_blk.store(acc)
        else:
            with x_dfb.wait() as x_blk, send_dfb.reserve() as s:
                s.store(x_blk + x_blk)

    @ttl.datamovement()
    def read():
        _, row = ttl.node(dims=2)

        def receive(pipe):
            with recv_dfb.reserve() as r:
                ttl.copy(pipe, r).wait()

        if net.is_dst():
            net.if_dst(receive)
        else:
            with x_dfb.reserve() as x_blk:
                ttl.copy(x[row, 0], x_blk).wait()

    @ttl.datamovement()
    def write():
        def send(pipe):
            with send_dfb.wait() as s:
                ttl.copy(s, pipe).wait()

        net.if_src(send)
        if net.is_dst():
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(72)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((4 * 32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((32, 32), dtype=torch.float32))
    gather(to_device(x), y)
    expected = 2 * (x[32:64] + x[64:96] + x[96:128])
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "gathered sum does not match"
finally:
    ttnn.close_device(device)
