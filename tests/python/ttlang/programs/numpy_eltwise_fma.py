# numpy only (no torch import): the host builds float32 numpy arrays, hands them
# to ttnn.from_torch and reads the result back with ttnn.to_torch as an array.
# y = a * b + c on a 2x2 grid, one 1x2-tile block per node.
# expect: pass
# sim: no (tt-lang-sim 1.1.6 ttnn.from_torch takes torch tensors only; the same
#   program with torch.from_numpy around each array passes there)
import numpy as np
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(2, 2))
def fma(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 2), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, c_dfb.wait() as c_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        col, row = ttl.node(dims=2)
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
            tx_a = ttl.copy(a[row, 2 * col : 2 * col + 2], a_blk)
            tx_b = ttl.copy(b[row, 2 * col : 2 * col + 2], b_blk)
            tx_c = ttl.copy(c[row, 2 * col : 2 * col + 2], c_blk)
            tx_a.wait()
            tx_b.wait()
            tx_c.wait()

    @ttl.datamovement()
    def write():
        col, row = ttl.node(dims=2)
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[row, 2 * col : 2 * col + 2]).wait()


def to_device(array):
    return ttnn.from_torch(
        array, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


rng = np.random.default_rng(110)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 4 * TILE_SIZE)
    a = rng.standard_normal(shape, dtype=np.float32)
    b = rng.standard_normal(shape, dtype=np.float32)
    c = rng.standard_normal(shape, dtype=np.float32)
    y = to_device(np.zeros(shape, dtype=np.float32))
    fma(to_device(a), to_device(b), to_device(c), y)
    result = np.asarray(ttnn.to_torch(y), dtype=np.float32)
    np.testing.assert_allclose(result, a * b + c, rtol=1e-5, atol=1e-5)
finally:
    ttnn.close_device(device)
