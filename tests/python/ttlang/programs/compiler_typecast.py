# ttl.math.typecast (compiler 1.1.1): a float32 input cast to bfloat16 into a
# bfloat16 DFB, then widened back to float32 for the output; every result is
# the input rounded to bfloat16 (to nearest or toward zero). The target dtype
# comes from the destination block (blk.dtype) and from a ttnn dtype.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.math.typecast)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def round_trip(x: ttnn.Tensor, mid: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=2)
    mid_dfb = ttl.make_dataflow_buffer_like(mid, shape=(1, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, mid_dfb.reserve() as m:
            m.store(ttl.math.typecast(x_blk, m.dtype))
        with mid_dfb.wait() as m, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.typecast(m, ttnn.float32))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:1, 0:2], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:2]).wait()


def to_device(t, dtype):
    return ttnn.from_torch(
        t, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(92)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn((32, 64), dtype=torch.float32) * 3
    mid = to_device(torch.zeros((32, 64), dtype=torch.bfloat16), ttnn.bfloat16)
    y = to_device(torch.zeros((32, 64), dtype=torch.float32), ttnn.float32)
    round_trip(to_device(x, ttnn.float32), mid, y)
    nearest = x.to(torch.bfloat16).float()
    truncated = (x.view(torch.int32) & -65536).view(torch.float32)
    result = ttnn.to_torch(y).float()
    assert not torch.equal(nearest, x), "the input should need rounding"
    assert torch.all((result.view(torch.int32) & 0xFFFF) == 0), "the result is not a bfloat16 value widened"
    assert torch.all((result == nearest) | (result == truncated)), "typecast is not x rounded to bfloat16"
    assert (result - x).abs().max() <= x.abs().max() * 2.0**-7, "typecast moved values by more than a bfloat16 ulp"
finally:
    ttnn.close_device(device)
