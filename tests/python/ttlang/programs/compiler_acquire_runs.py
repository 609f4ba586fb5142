# A run of acquires on one DFB, as programs written for the compiler use them:
# first = x_dfb.wait(); second = x_dfb.wait() keeps both blocks live as
# consecutive FIFO entries (the compiler pops each after its last use), and the
# reader's two reserves likewise hold two slots before either is pushed.
# y_i = x_{2i} - x_{2i+1} over 3 pairs of tiles.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 releases the first block at the second wait())
import torch
import ttnn

import ttl

PAIRS = 3


@ttl.operation(grid=(1, 1))
def pair_diff(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(PAIRS):
            first = x_dfb.wait()
            second = x_dfb.wait()
            out = y_dfb.reserve()
            out.store(first - second)
            out.push()
            first.pop()
            second.pop()

    @ttl.datamovement()
    def read():
        for p in range(PAIRS):
            first = x_dfb.reserve()
            second = x_dfb.reserve()
            tx_first = ttl.copy(x[2 * p, 0], first)
            tx_second = ttl.copy(x[2 * p + 1, 0], second)
            tx_first.wait()
            tx_second.wait()
            first.push()
            second.push()

    @ttl.datamovement()
    def write():
        for p in range(PAIRS):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[p, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(95)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((2 * PAIRS * 32, 32), dtype=torch.float32)
    y = to_device(torch.zeros((PAIRS * 32, 32), dtype=torch.float32))
    pair_diff(to_device(x), y)
    tiles = x.reshape(PAIRS, 2, 32, 32)
    expected = (tiles[:, 0] - tiles[:, 1]).reshape(PAIRS * 32, 32)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-6, atol=1e-6), "pairwise difference does not match"
finally:
    ttnn.close_device(device)
