# ttl.make_dfb(dtype, shape, block_count=2, tile=(32, 32)) makes a dataflow
# buffer from a data format ("bf16", "float32", a ttnn or torch dtype) with no
# likeness tensor (tt-lang ttl/dataflow_buffer.py make_dfb; implementation-status:
# compiler 1.0.0). Here a compute-local DFB carries an intermediate.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no make_dfb)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    t_dfb = ttl.make_dfb("bf16", shape=(1, 1), block_count=2)  # <- feature
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, t_dfb.reserve() as t_blk:
            t_blk.store(a_blk + a_blk)
        with t_dfb.wait() as t_blk, y_dfb.reserve() as y_blk:
            y_blk.store(t_blk + t_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


torch.manual_seed(11)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((32, 64), dtype=torch.bfloat16)
    y = to_device(torch.zeros((32, 32), dtype=torch.bfloat16))
    op(to_device(a), y)
    assert torch.allclose(ttnn.to_torch(y).float(), a[:, 0:32].float() * 4, rtol=1e-2, atol=1e-2), "dfb_make_dfb: result does not match"
finally:
    ttnn.close_device(device)
