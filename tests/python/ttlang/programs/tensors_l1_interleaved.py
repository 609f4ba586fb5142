# Inputs and output in L1 (ttnn.L1_MEMORY_CONFIG) instead of DRAM, on a 2x1
# grid: each node adds its own 2x2-tile block. The result then goes through a
# host ttnn.to_memory_config into DRAM before it is read back.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(2, 1))
def add(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        n = ttl.node(dims=1)
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0:2, 2 * n : 2 * n + 2], a_blk)
            tx_b = ttl.copy(b[0:2, 2 * n : 2 * n + 2], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        n = ttl.node(dims=1)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:2, 2 * n : 2 * n + 2]).wait()


def to_l1(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.L1_MEMORY_CONFIG,
    )


torch.manual_seed(60)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 4 * TILE_SIZE)
    a = torch.rand(shape, dtype=torch.bfloat16)
    b = torch.rand(shape, dtype=torch.bfloat16)
    y = to_l1(torch.zeros(shape, dtype=torch.bfloat16))
    add(to_l1(a), to_l1(b), y)
    y_dram = ttnn.to_memory_config(y, ttnn.DRAM_MEMORY_CONFIG)
    expected = a.float() + b.float()
    assert torch.allclose(ttnn.to_torch(y_dram).float(), expected, rtol=2e-2, atol=2e-2), "a + b does not match"
finally:
    ttnn.close_device(device)
