# The helper module tt-lang's device tests import for their checks:
# ttl.utils.correctness (assert_allclose, assert_pcc). y = a @ b + a @ b over
# a 2x2-tile block.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 replaces `ttl` with an object, so ttl.utils does not import)
import torch
import ttnn

import ttl
from ttl.utils.correctness import assert_allclose, assert_pcc


@ttl.operation(grid=(1, 1))
def double_matmul(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            product = a_blk @ b_blk
            y_blk.store(product + product)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0:2, 0:2], a_blk)
            tx_b = ttl.copy(b[0:2, 0:2], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:2, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(94)
device = ttnn.open_device(device_id=0)
try:
    a = torch.randn((64, 64), dtype=torch.float32)
    b = torch.randn((64, 64), dtype=torch.float32)
    y = to_device(torch.zeros((64, 64), dtype=torch.float32))
    double_matmul(to_device(a), to_device(b), y)
    expected = 2 * (a @ b)
    result = ttnn.to_torch(y).float()
    assert_pcc(expected, result, threshold=0.999)
    assert_allclose(result, expected, rtol=2e-2, atol=0.25)
finally:
    ttnn.close_device(device)
