# Batched matmul with a broadcast right operand, the spec's "Batched matrix
# multiplication with bias" example (examples/spec/block/batched_matmul_bias.py,
# also performance_and_debugging/signpost.py): a (L, M, K) block @ a (K, N) block
# unsqueezed to (1, K, N) and broadcast over dim 0 to (L, K, N) gives (L, M, N)
# (spec Appendix B: `@` on [I0, ..., M, K] x [I0, ..., K, N]; ttl.block.unsqueeze;
# ttl.block.broadcast with dims=[0]).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

L = 2


@ttl.operation(grid=(1, 1))
def bmm(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(L, 1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(L, 1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            b_bcast = ttl.block.broadcast(ttl.block.unsqueeze(b_blk, dims=[0]), dims=[0], shape=(L, 1, 1))
            y_blk.store(a_blk @ b_bcast)  # <- feature

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            ttl.copy(a[0:L, 0:1, 0:1], a_blk).wait()
            ttl.copy(b[0, 0], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:L, 0:1, 0:1]).wait()


def to_device(t):
    return ttnn.from_torch(t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


torch.manual_seed(3)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((L, 32, 32), dtype=torch.float32)
    b = torch.rand((32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((L, 32, 32), dtype=torch.float32))
    bmm(to_device(a), to_device(b), y)
    assert torch.allclose(ttnn.to_torch(y).float(), a @ b, rtol=2e-2, atol=2e-2), "batched a @ broadcast(b) does not match"
finally:
    ttnn.close_device(device)
