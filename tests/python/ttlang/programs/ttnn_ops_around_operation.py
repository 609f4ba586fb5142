# A TT-Lang operation between TT-NN calls, as the elementwise tutorial mixes
# them: the fused a * b + c runs in TT-Lang, then ttnn.multiply by d and
# ttnn.relu run on the device tensors it produced. Tile sizes come from
# ttl.TILE_SHAPE inside the operation and ttnn.TILE_SIZE on the host.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(2, 2))
def fma(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    rows = a.shape[0] // ttl.TILE_SHAPE[0]
    cols = a.shape[1] // ttl.TILE_SHAPE[1]
    grid_cols, grid_rows = ttl.grid_size(dims=2)
    rows_per_node = rows // grid_rows
    cols_per_node = cols // grid_cols
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(rows_per_node, cols_per_node), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(rows_per_node, cols_per_node), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(rows_per_node, cols_per_node), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(rows_per_node, cols_per_node), block_count=2)

    @ttl.compute()
    def compute():
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
        r0 = node_row * rows_per_node
        c0 = node_col * cols_per_node
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk, c_dfb.reserve() as c_blk:
            tx_a = ttl.copy(a[r0 : r0 + rows_per_node, c0 : c0 + cols_per_node], a_blk)
            tx_b = ttl.copy(b[r0 : r0 + rows_per_node, c0 : c0 + cols_per_node], b_blk)
            tx_c = ttl.copy(c[r0 : r0 + rows_per_node, c0 : c0 + cols_per_node], c_blk)
            tx_a.wait()
            tx_b.wait()
            tx_c.wait()

    @ttl.datamovement()
    def write():
        node_col, node_row = ttl.node(dims=2)
        r0 = node_row * rows_per_node
        c0 = node_col * cols_per_node
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[r0 : r0 + rows_per_node, c0 : c0 + cols_per_node]).wait()


def from_torch(tensor):
    return ttnn.from_torch(
        tensor, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(120)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * ttnn.TILE_SIZE, 4 * ttnn.TILE_SIZE)
    a = torch.randn(shape, dtype=torch.bfloat16)
    b = torch.randn(shape, dtype=torch.bfloat16)
    c = torch.randn(shape, dtype=torch.bfloat16)
    d = torch.rand(shape, dtype=torch.bfloat16)
    y = from_torch(torch.zeros(shape, dtype=torch.bfloat16))
    fma(from_torch(a), from_torch(b), from_torch(c), y)
    result = ttnn.to_torch(ttnn.relu(ttnn.multiply(y, from_torch(d)))).float()
    expected = torch.relu((a.float() * b.float() + c.float()) * d.float())
    assert torch.allclose(result, expected, rtol=3e-2, atol=3e-2), "relu((a * b + c) * d) does not match"
finally:
    ttnn.close_device(device)
