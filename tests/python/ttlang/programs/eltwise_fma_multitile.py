# Fused a * b + c over 2x2-tile blocks on a single node (the tutorial's step 2
# shape): tensor slices with tile ranges, a 4x4-tile tensor walked block by block.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32
GRANULARITY = 2


@ttl.operation(grid=(1, 1))
def fma(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    rows = a.shape[0] // TILE_SIZE // GRANULARITY
    cols = a.shape[1] // TILE_SIZE // GRANULARITY
    shape = (GRANULARITY, GRANULARITY)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=shape, block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=shape, block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=shape, block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=shape, block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows):
            for _ in range(cols):
                with (
                    a_dfb.wait() as a_blk,
                    b_dfb.wait() as b_blk,
                    c_dfb.wait() as c_blk,
                    y_dfb.reserve() as y_blk,
                ):
                    y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        for row in range(rows):
            r0 = row * GRANULARITY
            r1 = r0 + GRANULARITY
            for col in range(cols):
                c0 = col * GRANULARITY
                c1 = c0 + GRANULARITY
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[r0:r1, c0:c1], a_blk)
                    tx_b = ttl.copy(b[r0:r1, c0:c1], b_blk)
                    tx_c = ttl.copy(c[r0:r1, c0:c1], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.datamovement()
    def write():
        for row in range(rows):
            r0 = row * GRANULARITY
            r1 = r0 + GRANULARITY
            for col in range(cols):
                c0 = col * GRANULARITY
                c1 = c0 + GRANULARITY
                with y_dfb.wait() as y_blk:
                    tx = ttl.copy(y_blk, y[r0:r1, c0:c1])
                    tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(1)
device = ttnn.open_device(device_id=0)
try:
    shape = (128, 128)
    a = torch.rand(shape, dtype=torch.bfloat16)
    b = torch.rand(shape, dtype=torch.bfloat16)
    c = torch.rand(shape, dtype=torch.bfloat16)
    y = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    fma(to_device(a), to_device(b), to_device(c), y)
    expected = a.float() * b.float() + c.float()
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=2e-2), "a * b + c does not match"
finally:
    ttnn.close_device(device)
