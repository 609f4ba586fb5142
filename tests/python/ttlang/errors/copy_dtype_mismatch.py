# A copy from a float32 block into a bfloat16 tensor: the block's pages (4096
# bytes a tile) and the tensor's (2048) differ, and a NoC copy converts
# nothing, so on silicon the tensor would hold garbage (the spec's
# scatter-gather example makes its output with ttnn.zeros, bfloat16 by
# default, while its input and DFB are float32).
# expect: error a copy moves bytes and converts nothing, and a Float16_b tile is 2048 bytes, a Float32 one 4096
# line: 32
# needs: torch
# tt-lang-sim: stops earlier (its ttnn has no ttnn.zeros)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def copy_out(x: ttnn.Tensor, y: ttnn.Tensor):
    dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def read():
        with dfb.reserve() as blk:
            ttl.copy(x[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()  # <- error


device = ttnn.open_device(device_id=0)
try:
    x = torch.full((32, 32), 2.0, dtype=torch.float32)
    x_t = ttnn.from_torch(x, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device)
    y_t = ttnn.zeros(ttnn.Shape([32, 32]), layout=ttnn.TILE_LAYOUT, device=device)  # bfloat16
    copy_out(x_t, y_t)
    assert torch.equal(ttnn.to_torch(y_t).float(), x), "float32 block copied into a bfloat16 tensor"
finally:
    ttnn.close_device(device)
