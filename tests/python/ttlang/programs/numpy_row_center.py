# numpy only (no torch import): subtract each row's mean. reduce_sum over the
# columns of a 1x3-tile block gives the row sums in column 0; broadcast along
# dims=[-1] spreads them back over the 1x3 block; y = x - sums * (1 / width).
# expect: pass
# sim: no (tt-lang-sim 1.1.6 ttnn.from_torch takes torch tensors only; the same
#   program with torch.from_numpy around each array passes there)
import numpy as np
import ttnn

import ttl

WIDTH_TILES = 3


@ttl.operation(grid=(1, 2))
def center(x: ttnn.Tensor, y: ttnn.Tensor):
    inv_width = 1.0 / x.shape[1]
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, WIDTH_TILES), block_count=2)
    sum_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, WIDTH_TILES), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk:
            with sum_dfb.reserve() as s:
                s.store(ttl.math.reduce_sum(x_blk, dims=[-1], shape=(1, 1)))
            with sum_dfb.wait() as s, y_dfb.reserve() as y_blk:
                mean = ttl.block.broadcast(s, dims=[-1], shape=y_blk.shape) * ttl.block.fill(inv_width, shape=y_blk.shape)
                y_blk.store(x_blk - mean)

    @ttl.datamovement()
    def read():
        _, row = ttl.node(dims=2)
        with x_dfb.reserve() as blk:
            ttl.copy(x[row, 0:WIDTH_TILES], blk).wait()

    @ttl.datamovement()
    def write():
        _, row = ttl.node(dims=2)
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[row, 0:WIDTH_TILES]).wait()


def to_device(array):
    return ttnn.from_torch(
        array, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


rng = np.random.default_rng(112)
device = ttnn.open_device(device_id=0)
try:
    x = rng.standard_normal((64, 96), dtype=np.float32) + 3.0
    y = to_device(np.zeros((64, 96), dtype=np.float32))
    center(to_device(x), y)
    result = np.asarray(ttnn.to_torch(y), dtype=np.float32)
    # The row sums go through the FPU's 19-bit source registers (a reduce reads 10 mantissa bits of
    # each float32 value, as on silicon): the mean carries a relative error of about 2**-10.
    np.testing.assert_allclose(result, x - x.mean(axis=1, keepdims=True), rtol=1e-3, atol=1e-2)
finally:
    ttnn.close_device(device)
