# `with ttl.signpost(name):` marks a profiling region in a kernel (spec 0.9,
# 'Profiling signpost'; tt-lang-sim ignores it; a profiler zone on silicon and in
# tessel, shown by --profile).
# It has no effect on results.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with ttl.signpost("add"):  # <- feature
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk + a_blk)

    @ttl.datamovement()
    def read():
        with ttl.signpost("read a"):
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
    assert torch.allclose(ttnn.to_torch(y).float(), a[:, 0:32].float() * 2, rtol=1e-2, atol=1e-2), "signpost: result does not match"
finally:
    ttnn.close_device(device)
