# ttl.block.squeeze and ttl.block.unsqueeze: a batch block of shape (1, 2, 2)
# squeezed to (2, 2), added to a 2-D block, and the sum unsqueezed back to
# (1, 2, 2) for a 3-D output: z[i] = a[i] + b for every batch i.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def batch_add(a: ttnn.Tensor, b: ttnn.Tensor, z: ttnn.Tensor):
    batches = a.shape[0]
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=1)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(1, 2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with b_dfb.wait() as b_blk:
            for _ in range(batches):
                with a_dfb.wait() as a_blk, z_dfb.reserve() as z_blk:
                    total = ttl.block.squeeze(a_blk, dims=[0]) + b_blk
                    z_blk.store(ttl.block.unsqueeze(total, dims=[0]))

    @ttl.datamovement()
    def read():
        with b_dfb.reserve() as b_blk:
            ttl.copy(b[0:2, 0:2], b_blk).wait()
        for i in range(batches):
            with a_dfb.reserve() as a_blk:
                ttl.copy(a[i : i + 1, 0:2, 0:2], a_blk).wait()

    @ttl.datamovement()
    def write():
        for i in range(batches):
            with z_dfb.wait() as z_blk:
                ttl.copy(z_blk, z[i : i + 1, 0:2, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(31)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((3, 2 * TILE_SIZE, 2 * TILE_SIZE), dtype=torch.bfloat16)
    b = torch.rand((2 * TILE_SIZE, 2 * TILE_SIZE), dtype=torch.bfloat16)
    z = to_device(torch.zeros(a.shape, dtype=torch.bfloat16))
    batch_add(to_device(a), to_device(b), z)
    expected = a.float() + b.float()
    result = ttnn.to_torch(z).float()
    assert torch.allclose(result, expected, rtol=1e-2, atol=1e-2), "squeeze/unsqueeze batch add does not match"
finally:
    ttnn.close_device(device)
