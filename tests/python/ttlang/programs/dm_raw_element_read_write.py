# ttl.raw_element_read(blk, *coords) -> float and ttl.raw_element_write(blk,
# *coords, value) (spec 0.18, Appendix B "Scalar element access functions"):
# read/write one scalar of a block at flat element coordinates (one per block
# dimension), in data-movement kernels only, for FLOAT32 and BFLOAT16 blocks; a
# written value comes from a raw_element_read or a Python float. ttl.read_index
# (blk, *coords) reads a non-negative element as an integer index usable in a
# tensor slice (implementation-status: compiler 1.0.0). Here: y = x with row 0
# of x's tile replaced by row r of x, where r is read from an index tile.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.read_index)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def patch_row(idx: ttnn.Tensor, x: ttnn.Tensor, y: ttnn.Tensor):
    i_dfb = ttl.make_dataflow_buffer_like(idx, shape=(1, 1), block_count=1)
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=1)

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def read():
        with i_dfb.reserve() as blk:
            ttl.copy(idx[0, 0], blk).wait()
        with x_dfb.reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with i_dfb.wait() as i_blk, x_dfb.wait() as x_blk:
            r = ttl.read_index(i_blk, 0, 0)  # <- feature
            for c in range(32):
                v = ttl.raw_element_read(x_blk, r, c)
                ttl.raw_element_write(x_blk, 0, c, v)
            ttl.copy(x_blk, y[0, 0]).wait()


device = ttnn.open_device(device_id=0)
try:
    x = torch.arange(32 * 32, dtype=torch.float32).reshape(32, 32)
    idx = torch.full((32, 32), 5.0)
    to = lambda t: ttnn.from_torch(t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    y_t = to(torch.zeros((32, 32)))
    patch_row(to(idx), to(x), y_t)
    expected = x.clone()
    expected[0] = x[5]
    assert torch.equal(ttnn.to_torch(y_t), expected), "row 0 replaced by row 5"
finally:
    ttnn.close_device(device)
