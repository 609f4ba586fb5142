# ttl.block.broadcast over an outer (non-tile) dimension of a 3-D block: for
# tiled blocks broadcast works in two steps (spec Appendix B, broadcast):
# (1) values inside tiles are broadcast only if dims names one of the two
# innermost dimensions, (2) whole tiles are repeated along dims whose extent in
# shape is > 1. With b unsqueezed to (1, 1, 1) and dims=[0] (the batch
# dimension), step (1) does nothing and, for shape (1, 1, 1), neither does step
# (2): the result is b unchanged. The spec's signpost and batched-matmul examples
# (examples/spec/performance_and_debugging/signpost.py) do exactly this before a
# matmul.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(b: ttnn.Tensor, y: ttnn.Tensor):
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.block.broadcast(ttl.block.unsqueeze(b_blk, dims=[0]), dims=[0], shape=(1, 1, 1)))  # <- feature

    @ttl.datamovement()
    def read():
        with b_dfb.reserve() as blk:
            ttl.copy(b[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0, 0]).wait()


torch.manual_seed(13)
device = ttnn.open_device(device_id=0)
try:
    b = torch.rand((32, 32), dtype=torch.float32)
    b_t = ttnn.from_torch(b, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    y_t = ttnn.from_torch(torch.zeros((1, 32, 32)), dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    op(b_t, y_t)
    assert torch.allclose(ttnn.to_torch(y_t)[0], b, rtol=1e-3, atol=1e-3), "broadcast over the batch dimension leaves the tile unchanged"
finally:
    ttnn.close_device(device)
