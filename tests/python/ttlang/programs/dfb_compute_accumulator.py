# A DFB that the compute kernel both produces and consumes: a running column
# sum. The accumulator starts as a fill(0) block; for each of 5 input tiles the
# kernel waits the previous accumulator and reserves the next one from the
# same DFB (block_count=2), then writes the total. Also a second output with
# the running maximum, through its own accumulator DFB.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def running(x: ttnn.Tensor, total: ttnn.Tensor, peak: ttnn.Tensor):
    tiles = x.shape[0] // TILE_SIZE
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    sum_dfb = ttl.make_dataflow_buffer_like(total, shape=(1, 1), block_count=2)
    max_dfb = ttl.make_dataflow_buffer_like(peak, shape=(1, 1), block_count=2)
    total_dfb = ttl.make_dataflow_buffer_like(total, shape=(1, 1), block_count=2)
    peak_dfb = ttl.make_dataflow_buffer_like(peak, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with sum_dfb.reserve() as s:
            s.store(ttl.block.fill(0.0, shape=s.shape))
        with x_dfb.wait() as x_blk, max_dfb.reserve() as m:
            m.store(x_blk)
        for i in range(tiles):
            if i > 0:
                with x_dfb.wait() as x_blk, max_dfb.wait() as prev_m, max_dfb.reserve() as m:
                    m.store(ttl.math.max(prev_m, x_blk))
        # Each input tile is read twice: once above for the maximum, once here.
        for _ in range(tiles):
            with x_dfb.wait() as x_blk, sum_dfb.wait() as prev_s, sum_dfb.reserve() as s:
                s.store(prev_s + x_blk)
        with sum_dfb.wait() as s, total_dfb.reserve() as out:
            out.store(s)
        with max_dfb.wait() as m, peak_dfb.reserve() as out:
            out.store(m)

    @ttl.datamovement()
    def read():
        for _ in range(2):
            for t in range(tiles):
                with x_dfb.reserve() as x_blk:
                    ttl.copy(x[t, 0], x_blk).wait()

    @ttl.datamovement()
    def write():
        with total_dfb.wait() as blk:
            ttl.copy(blk, total[0, 0]).wait()
        with peak_dfb.wait() as blk:
            ttl.copy(blk, peak[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(54)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((5 * TILE_SIZE, TILE_SIZE), dtype=torch.float32)
    total = to_device(torch.zeros((TILE_SIZE, TILE_SIZE), dtype=torch.float32))
    peak = to_device(torch.zeros((TILE_SIZE, TILE_SIZE), dtype=torch.float32))
    running(to_device(x), total, peak)
    tiles = x.reshape(5, TILE_SIZE, TILE_SIZE)
    assert torch.allclose(ttnn.to_torch(total).float(), tiles.sum(dim=0), rtol=1e-5, atol=1e-5), "running sum does not match"
    assert torch.equal(ttnn.to_torch(peak).float(), tiles.amax(dim=0)), "running max does not match"
finally:
    ttnn.close_device(device)
