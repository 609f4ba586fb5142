# a * b + c on a fixed 2x3 grid of nodes: each node takes a band of tile rows and
# tile columns found from ttl.node(dims=2) and ttl.grid_size(dims=2).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(3, 2))
def fma(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    grid_cols, grid_rows = ttl.grid_size(dims=2)
    rows = a.shape[0] // TILE_SIZE
    cols = a.shape[1] // TILE_SIZE
    rows_per_node = rows // grid_rows
    cols_per_node = cols // grid_cols
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(rows_per_node):
            for _ in range(cols_per_node):
                with (
                    a_dfb.wait() as a_blk,
                    b_dfb.wait() as b_blk,
                    c_dfb.wait() as c_blk,
                    y_dfb.reserve() as y_blk,
                ):
                    y_blk.store(a_blk * b_blk + c_blk)

    @ttl.datamovement()
    def read():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            for local_col in range(cols_per_node):
                col = node_col * cols_per_node + local_col
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
                    tx_a = ttl.copy(a[row, col], a_blk)
                    tx_b = ttl.copy(b[row, col], b_blk)
                    tx_c = ttl.copy(c[row, col], c_blk)
                    tx_a.wait()
                    tx_b.wait()
                    tx_c.wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        for local_row in range(rows_per_node):
            row = node_row * rows_per_node + local_row
            for local_col in range(cols_per_node):
                col = node_col * cols_per_node + local_col
                with y_dfb.wait() as y_blk:
                    tx = ttl.copy(y_blk, y[row, col])
                    tx.wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(2)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * TILE_SIZE, 6 * TILE_SIZE)
    a = torch.rand(shape, dtype=torch.bfloat16)
    b = torch.rand(shape, dtype=torch.bfloat16)
    c = torch.rand(shape, dtype=torch.bfloat16)
    y = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    fma(to_device(a), to_device(b), to_device(c), y)
    expected = a.float() * b.float() + c.float()
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=2e-2, atol=2e-2), "a * b + c does not match"
finally:
    ttnn.close_device(device)
