# Row-major tensors: the DFB unit is an element, not a tile, and tensor slices
# index elements. Each step copies a (4, 16)-element patch of a (16, 48) float32
# tensor (so a row of the patch is not a whole tensor row), adds the matching
# patch of b and writes it back.
# expect: pass
# tessel: not yet (compute on row-major blocks needs tilize/untilize, which the compute engine lacks)
# needs: torch
import torch
import ttnn

import ttl

PATCH_ROWS = 4
PATCH_COLS = 16


@ttl.operation(grid=(1, 1))
def add(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    row_steps = a.shape[0] // PATCH_ROWS
    col_steps = a.shape[1] // PATCH_COLS
    shape = (PATCH_ROWS, PATCH_COLS)
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=shape, block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=shape, block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=shape, block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(row_steps * col_steps):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        for r in range(row_steps):
            r0 = r * PATCH_ROWS
            for c in range(col_steps):
                c0 = c * PATCH_COLS
                with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                    tx_a = ttl.copy(a[r0 : r0 + PATCH_ROWS, c0 : c0 + PATCH_COLS], a_blk)
                    tx_b = ttl.copy(b[r0 : r0 + PATCH_ROWS, c0 : c0 + PATCH_COLS], b_blk)
                    tx_a.wait()
                    tx_b.wait()

    @ttl.datamovement()
    def write():
        for r in range(row_steps):
            r0 = r * PATCH_ROWS
            for c in range(col_steps):
                c0 = c * PATCH_COLS
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[r0 : r0 + PATCH_ROWS, c0 : c0 + PATCH_COLS]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(61)
device = ttnn.open_device(device_id=0)
try:
    shape = (16, 48)
    a = torch.randn(shape, dtype=torch.float32)
    b = torch.randn(shape, dtype=torch.float32)
    y = to_device(torch.zeros(shape, dtype=torch.float32))
    add(to_device(a), to_device(b), y)
    assert torch.allclose(ttnn.to_torch(y).float(), a + b, rtol=1e-6, atol=1e-6), "a + b does not match"
finally:
    ttnn.close_device(device)
