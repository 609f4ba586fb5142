# PipeNet predicates: a multicast from (0, 0) to (0, 1..2) on a 1x4 grid leaves
# node (0, 3) outside the net. Every kernel returns at once when
# net.is_active() is false, so node 3 never touches y (its sentinel survives);
# the others compute y_i = x_i + c, the root with its own copy of c.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 4))
def add_c(x: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=1)
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, slice(1, 3)))])

    @ttl.compute()
    def compute():
        if not net.is_active():
            return
        with c_dfb.wait() as c_blk, x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
            y_blk.store(x_blk + c_blk)

    @ttl.datamovement()
    def read():
        if not net.is_active():
            return
        _, row = ttl.node(dims=2)
        with c_dfb.reserve() as c_blk:
            if net.is_src():
                ttl.copy(c[0, 0], c_blk).wait()

            def send(pipe):
                ttl.copy(c_blk, pipe).wait()

            def receive(pipe):
                ttl.copy(pipe, c_blk).wait()

            net.if_src(send)
            net.if_dst(receive)
        with x_dfb.reserve() as x_blk:
            ttl.copy(x[row, 0], x_blk).wait()

    @ttl.datamovement()
    def write():
        if not net.is_active():
            return
        _, row = ttl.node(dims=2)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[row, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(75)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((4 * 32, 32), dtype=torch.float32)
    c = torch.randn((32, 32), dtype=torch.float32)
    y = to_device(torch.full((4 * 32, 32), 123.0, dtype=torch.float32))
    add_c(to_device(x), to_device(c), y)
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result[:96], x[:96] + c.repeat(3, 1), rtol=1e-6, atol=1e-6), "x + c does not match"
    assert torch.all(result[96:] == 123.0), "the node outside the PipeNet wrote its tile"
finally:
    ttnn.close_device(device)
