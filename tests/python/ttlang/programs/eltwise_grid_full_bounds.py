# grid="full": the node count is whatever the device offers. Work is split by
# ceil-division and every kernel checks bounds, over a 5x7-tile tensor that no
# grid divides evenly, in 2x1-tile blocks (so the last block row is partial
# work for some nodes and none for others).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32
ROW_TILES = 2


@ttl.operation(grid="full")
def sub_mul(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    grid_cols, grid_rows = ttl.grid_size(dims=2)
    rows = a.shape[0] // TILE_SIZE // ROW_TILES
    cols = a.shape[1] // TILE_SIZE
    rows_per_node = -(-rows // grid_rows)
    cols_per_node = -(-cols // grid_cols)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(ROW_TILES, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(ROW_TILES, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(ROW_TILES, 1), block_count=2)

    @ttl.compute()
    def compute():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
                            y_blk.store((a_blk - b_blk) * b_blk)

    @ttl.datamovement()
    def read():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        r0 = row * ROW_TILES
                        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                            tx_a = ttl.copy(a[r0 : r0 + ROW_TILES, col : col + 1], a_blk)
                            tx_b = ttl.copy(b[r0 : r0 + ROW_TILES, col : col + 1], b_blk)
                            tx_a.wait()
                            tx_b.wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            if row < rows:
                for local_col in range(cols_per_node):
                    col = node_col * cols_per_node + local_col
                    if col < cols:
                        r0 = row * ROW_TILES
                        with y_dfb.wait() as y_blk:
                            tx = ttl.copy(y_blk, y[r0 : r0 + ROW_TILES, col : col + 1])
                            tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(3)
device = ttnn.open_device(device_id=0)
try:
    shape = (10 * TILE_SIZE, 7 * TILE_SIZE)
    a = torch.rand(shape, dtype=torch.bfloat16)
    b = torch.rand(shape, dtype=torch.bfloat16)
    # A sentinel in y shows any tile the operation failed to write.
    y = to_device(torch.full(shape, -100.0, dtype=torch.bfloat16))
    sub_mul(to_device(a), to_device(b), y)
    expected = (a.float() - b.float()) * b.float()
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=2e-2), "(a - b) * b does not match"
finally:
    ttnn.close_device(device)
