# Dataflow buffers with block_count=1: a ring of 1 slot(s) between reader,
# compute and writer, over 6 tiles (y = a * 2 + 1). With block_count=1 every
# transfer waits for the consumer to free the only slot; with 3 the reader
# can run up to three tiles ahead.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def scale(a: ttnn.Tensor, y: ttnn.Tensor):
    tiles = a.shape[1] // TILE_SIZE
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

    @ttl.compute()
    def compute():
        two = ttl.block.fill(2.0, shape=(1, 1))
        one = ttl.block.fill(1.0, shape=(1, 1))
        for _ in range(tiles):
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk * two + one)

    @ttl.datamovement()
    def read():
        for t in range(tiles):
            with a_dfb.reserve() as a_blk:
                ttl.copy(a[0, t], a_blk).wait()

    @ttl.datamovement()
    def write():
        for t in range(tiles):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[0, t]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(51)
device = ttnn.open_device(device_id=0)
try:
    shape = (TILE_SIZE, 6 * TILE_SIZE)
    a = torch.rand(shape, dtype=torch.bfloat16)
    y = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    scale(to_device(a), y)
    expected = a.float() * 2 + 1
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=2e-2, atol=2e-2), "a * 2 + 1 does not match"
finally:
    ttnn.close_device(device)
