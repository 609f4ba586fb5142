# ttl.block.broadcast along rows, columns and both, into a 2x2-tile block:
# y = bcast(col, dims=[-1]) * bcast(row, dims=[0]) + bcast(s, dims=[-2, -1]),
# where col is a (64, 1) column vector, row a (1, 64) row vector and s a 1x1
# scalar (each padded to whole tiles by the TILE layout).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def outer(col: ttnn.Tensor, row: ttnn.Tensor, s: ttnn.Tensor, y: ttnn.Tensor):
    col_dfb = ttl.make_dataflow_buffer_like(col, shape=(2, 1), block_count=1)
    row_dfb = ttl.make_dataflow_buffer_like(row, shape=(1, 2), block_count=1)
    s_dfb = ttl.make_dataflow_buffer_like(s, shape=(1, 1), block_count=1)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2), block_count=1)

    @ttl.compute()
    def compute():
        with (
            col_dfb.wait() as col_blk,
            row_dfb.wait() as row_blk,
            s_dfb.wait() as s_blk,
            y_dfb.reserve() as y_blk,
        ):
            col_b = ttl.block.broadcast(col_blk, dims=[-1], shape=y_blk.shape)
            row_b = ttl.block.broadcast(row_blk, dims=[0], shape=y_blk.shape)
            s_b = ttl.block.broadcast(s_blk, dims=[-2, -1], shape=y_blk.shape)
            y_blk.store(col_b * row_b + s_b)

    @ttl.datamovement()
    def read():
        with col_dfb.reserve() as col_blk, row_dfb.reserve() as row_blk, s_dfb.reserve() as s_blk:
            tx_col = ttl.copy(col[0:2, 0], col_blk)
            tx_row = ttl.copy(row[0, 0:2], row_blk)
            tx_s = ttl.copy(s[0, 0], s_blk)
            tx_col.wait()
            tx_row.wait()
            tx_s.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0:2, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(31)
device = ttnn.open_device(device_id=0)
try:
    col = torch.rand((64, 1), dtype=torch.bfloat16)
    row = torch.rand((1, 64), dtype=torch.bfloat16)
    s = torch.rand((1, 1), dtype=torch.bfloat16)
    y = to_device(torch.zeros((64, 64), dtype=torch.bfloat16))
    outer(to_device(col), to_device(row), to_device(s), y)
    expected = col.float() * row.float() + s.float()
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=2e-2), "broadcast outer product does not match"
finally:
    ttnn.close_device(device)
