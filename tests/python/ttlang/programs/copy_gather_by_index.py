# Index-driven copies: row-tiles of x gathered by an int32 row-major index tensor
# (ttl.read_index inside a tensor slice), on two nodes. The index DFB (16-byte
# rows) is made first: the tiled DFB after it still starts DRAM-aligned, as
# Metalium places circular buffers.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.read_index)
import torch
import ttl
import ttnn


@ttl.operation(grid=(2, 1))
def gather(idx: ttnn.Tensor, x: ttnn.Tensor, y: ttnn.Tensor):
    i_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 4), block_count=1)
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def read():
        n, _ = ttl.node(dims=2)
        with i_dfb.reserve() as ib:
            ttl.copy(idx[n:n + 1, 0:4], ib).wait()
            for j in range(4):
                with x_dfb.reserve() as xb:
                    ttl.copy(x[ttl.read_index(ib, 0, j), 0], xb).wait()

    @ttl.datamovement()
    def write():
        n, _ = ttl.node(dims=2)
        for j in range(4):
            with x_dfb.wait() as xb:
                ttl.copy(xb, y[n * 4 + j, 0]).wait()


device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((8 * 32, 32), dtype=torch.bfloat16)
    order = [[7, 3, 3, 0], [1, 6, 2, 5]]
    idx = ttnn.from_torch(torch.tensor(order, dtype=torch.int32), dtype=ttnn.int32, layout=ttnn.ROW_MAJOR_LAYOUT, device=device)
    to = lambda t: ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    y = to(torch.zeros((8 * 32, 32), dtype=torch.bfloat16))
    gather(idx, to(x), y)
    got = ttnn.to_torch(y).float()
    flat = order[0] + order[1]
    want = torch.cat([x[32 * k:32 * k + 32] for k in flat]).float()
    assert torch.equal(got, want), "gather wrong"

finally:
    ttnn.close_device(device)
