# Multicast through a pipe to a node range: node (0, 0) reads the scale tile
# c and sends it to (0, 1..3) with one Pipe((0, 0), (0, slice(1, 4))); every
# node then computes y_i = x_i * c on its own tile row (the root uses the c it
# read). Pipe copies sit in if_src / if_dst callbacks.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 4))
def scale(x: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    cols = x.shape[1] // TILE_SIZE
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=1)
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, slice(1, 4)))])

    @ttl.compute()
    def compute():
        with c_dfb.wait() as c_blk:
            for _ in range(cols):
                with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
                    y_blk.store(x_blk * c_blk)

    @ttl.datamovement()
    def read():
        _, row = ttl.node(dims=2)
        with c_dfb.reserve() as c_blk:

            def send(pipe):
                ttl.copy(c[0, 0], c_blk).wait()
                ttl.copy(c_blk, pipe).wait()

            def receive(pipe):
                ttl.copy(pipe, c_blk).wait()

            net.if_src(send)
            net.if_dst(receive)
        for col in range(cols):
            with x_dfb.reserve() as x_blk:
                ttl.copy(x[row, col], x_blk).wait()

    @ttl.datamovement()
    def write():
        _, row = ttl.node(dims=2)
        for col in range(cols):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[row, col]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(71)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((4 * TILE_SIZE, 2 * TILE_SIZE), dtype=torch.float32)
    c = torch.randn((TILE_SIZE, TILE_SIZE), dtype=torch.float32)
    y = to_device(torch.zeros(x.shape, dtype=torch.float32))
    scale(to_device(x), to_device(c), y)
    expected = x * c.repeat(4, 2)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-6, atol=1e-6), "x * c does not match"
finally:
    ttnn.close_device(device)
