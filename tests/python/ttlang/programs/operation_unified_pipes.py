# Unified-body ttl.operation with pipes: two nodes swap tiles over a PipeNet (if_src
# with a lambda, if_dst with a nested def), the reader's and the writer's blocks share
# the name blk and their copy handles the name tx, and a while loop counts tiles from
# an operation-scope counter. Each node writes its own tile minus the other's.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no unified bodies)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 2))
def exchange(x: ttnn.Tensor, y: ttnn.Tensor):
    cols = x.shape[1] // 32
    mine_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    other_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    net = ttl.PipeNet([ttl.Pipe((0, 0), (0, 1)), ttl.Pipe((0, 1), (0, 0))])
    _, n = ttl.node(dims=2)
    c = 0
    while c < cols:
        with mine_dfb.reserve() as blk:  # <- feature
            tx = ttl.copy(x[n, c], blk)
            tx.wait()
            net.if_src(lambda pipe: ttl.copy(blk, pipe).wait())
        with other_dfb.reserve() as other:

            def receive(pipe):
                ttl.copy(pipe, other).wait()

            net.if_dst(receive)
        with mine_dfb.wait() as m, other_dfb.wait() as o, y_dfb.reserve() as yb:
            yb.store(m - o)
        with y_dfb.wait() as blk:
            tx = ttl.copy(blk, y[n, c])
            tx.wait()
        c += 1


def to_device(t):
    return ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


torch.manual_seed(12)
device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((64, 64), dtype=torch.bfloat16)
    y = to_device(torch.zeros((64, 64), dtype=torch.bfloat16))
    exchange(to_device(x), y)
    swapped = torch.cat([x[32:64], x[0:32]])
    want = x.float() - swapped.float()
    assert torch.allclose(ttnn.to_torch(y).float(), want, rtol=2e-2, atol=2e-2), "operation_unified_pipes: result does not match"
finally:
    ttnn.close_device(device)
