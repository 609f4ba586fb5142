# ttl.math.reduce_sum over the columns of a 2x3-tile block (result in column 0
# of a 2x1-tile block) and ttl.math.reduce_max over the whole block (result at
# element (0, 0) of one tile). Everything else in a reduced tile is zero.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def reduce(x: ttnn.Tensor, row_sums: ttnn.Tensor, peak: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 3), block_count=2)
    sum_dfb = ttl.make_dataflow_buffer_like(row_sums, shape=(2, 1), block_count=2)
    max_dfb = ttl.make_dataflow_buffer_like(peak, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with sum_dfb.reserve() as sum_blk:
                sum_blk.store(ttl.math.reduce_sum(x_blk, dims=[-1], shape=(2, 1)))
            with max_dfb.reserve() as max_blk:
                max_blk.store(ttl.math.reduce_max(x_blk, dims=[-2, -1], shape=(1, 1)))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as x_blk:
            ttl.copy(x[0:2, 0:3], x_blk).wait()

    @ttl.datamovement()
    def write():
        with sum_dfb.wait() as sum_blk:
            ttl.copy(sum_blk, row_sums[0:2, 0:1]).wait()
        with max_dfb.wait() as max_blk:
            ttl.copy(max_blk, peak[0:1, 0:1]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(33)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((64, 96), dtype=torch.float32)
    row_sums = to_device(torch.full((64, 32), 7.0, dtype=torch.float32))
    peak = to_device(torch.full((32, 32), 7.0, dtype=torch.float32))
    reduce(to_device(x), row_sums, peak)
    sums = ttnn.to_torch(row_sums).float()
    # A reduce reads its operand through the FPU's 19-bit source registers (10 mantissa bits of a
    # float32 value), as on silicon: each element carries a relative error below 2**-10.
    assert torch.allclose(sums[:, 0], x.sum(dim=1), rtol=2e-3, atol=2e-2), "reduce_sum does not match"
    assert torch.all(sums[:, 1:] == 0), "reduce_sum leaves non-zero values outside column 0"
    top = ttnn.to_torch(peak).float()
    assert abs(top[0, 0] - x.max()) <= 2**-10 * abs(x.max()), "reduce_max does not match"
    top[0, 0] = 0
    assert torch.all(top == 0), "reduce_max leaves non-zero values outside (0, 0)"
finally:
    ttnn.close_device(device)
