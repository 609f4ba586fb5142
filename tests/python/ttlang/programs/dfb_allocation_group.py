# ttl.make_dfb_allocation_group() and make_dataflow_buffer_like(...,
# allocation_group=g): DFBs of one group may share one L1 allocation when the
# compiler proves their lifetimes disjoint (examples/spec/dataflow_buffer/
# allocation_group.py; implementation-status: compiler 1.0.0). Results are
# those of separate DFBs.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no allocation groups)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, y: ttnn.Tensor):
    group = ttl.make_dfb_allocation_group()  # <- feature
    first = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=1, allocation_group=group)
    second = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2, allocation_group=group)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with first.wait():
            pass
        with second.wait() as s_blk, y_dfb.reserve() as y_blk:
            y_blk.store(s_blk)

    @ttl.datamovement()
    def read():
        with first.reserve() as f_blk:
            ttl.copy(a[0:1, 0:2], f_blk).wait()
        with second.reserve() as s_blk:
            ttl.copy(a[0, 0], s_blk).wait()

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
    assert torch.allclose(ttnn.to_torch(y).float(), a[:, 0:32].float(), rtol=1e-2, atol=1e-2), "dfb_allocation_group: result does not match"
finally:
    ttnn.close_device(device)
