# Ring forwarding on a 1x4 grid: node i sends to node (i + 1) % 4 through one
# PipeNet of four unicast pipes. Each node starts from its own tile; for three
# steps it forwards the last tile it holds and receives the previous node's,
# adding every tile it sees. Every node ends with the sum of all four tiles
# (a ring all-reduce) and writes it to its own tile row of y.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

NODES = 4


@ttl.operation(grid=(1, NODES))
def ring_sum(x: ttnn.Tensor, y: ttnn.Tensor):
    held_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    fwd_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe((0, i), (0, (i + 1) % NODES)) for i in range(NODES)])

    @ttl.compute()
    def compute():
        with acc_dfb.reserve() as acc:
            acc.store(ttl.block.fill(0.0, shape=acc.shape))
        for step in range(NODES):
            with held_dfb.wait() as held, acc_dfb.wait() as prev, acc_dfb.reserve() as acc:
                acc.store(prev + held)
                if step < NODES - 1:
                    with fwd_dfb.reserve() as fwd:
                        fwd.store(held)
        with acc_dfb.wait() as acc, y_dfb.reserve() as y_blk:
            y_blk.store(acc)

    @ttl.datamovement()
    def read():
        _, i = ttl.node(dims=2)
        with held_dfb.reserve() as held:
            ttl.copy(x[i, 0], held).wait()

        def receive(pipe):
            with held_dfb.reserve() as held:
                ttl.copy(pipe, held).wait()

        for _ in range(NODES - 1):
            net.if_dst(receive)

    @ttl.datamovement()
    def write():
        _, i = ttl.node(dims=2)

        def send(pipe):
            with fwd_dfb.wait() as fwd:
                ttl.copy(fwd, pipe).wait()

        for _ in range(NODES - 1):
            net.if_src(send)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[i, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(74)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((NODES * 32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((NODES * 32, 32), dtype=torch.float32))
    ring_sum(to_device(x), y)
    total = x.reshape(NODES, 32, 32).sum(dim=0)
    expected = total.repeat(NODES, 1)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "ring sum does not match"
finally:
    ttnn.close_device(device)
