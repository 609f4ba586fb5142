# The ttl.math comparisons (eq, ne, lt; 1.0 where true, 0.0 where false)
# and the selecting activations threshold (value where x > threshold) and
# prelu (alpha * x where x < 0), on blocks with ties between the operands.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def compare(a: ttnn.Tensor, b: ttnn.Tensor, eq: ttnn.Tensor, ne: ttnn.Tensor, lt: ttnn.Tensor,
            act: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=1)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=1)
    eq_dfb = ttl.make_dataflow_buffer_like(eq, shape=(2, 2), block_count=1)
    ne_dfb = ttl.make_dataflow_buffer_like(ne, shape=(2, 2), block_count=1)
    lt_dfb = ttl.make_dataflow_buffer_like(lt, shape=(2, 2), block_count=1)
    act_dfb = ttl.make_dataflow_buffer_like(act, shape=(2, 2), block_count=1)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
            with eq_dfb.reserve() as o:
                o.store(ttl.math.eq(a_blk, b_blk))
            with ne_dfb.reserve() as o:
                o.store(ttl.math.ne(a_blk, b_blk))
            with lt_dfb.reserve() as o:
                o.store(ttl.math.lt(a_blk, b_blk))
            with act_dfb.reserve() as o:
                o.store(ttl.math.threshold(a_blk, 1.0, 5.0) + ttl.math.prelu(b_blk, 0.25))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0:2, 0:2], a_blk)
            tx_b = ttl.copy(b[0:2, 0:2], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        with eq_dfb.wait() as o:
            ttl.copy(o, eq[0:2, 0:2]).wait()
        with ne_dfb.wait() as o:
            ttl.copy(o, ne[0:2, 0:2]).wait()
        with lt_dfb.wait() as o:
            ttl.copy(o, lt[0:2, 0:2]).wait()
        with act_dfb.wait() as o:
            ttl.copy(o, act[0:2, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(43)
device = ttnn.open_device(device_id=0)
try:
    shape = (2 * TILE_SIZE, 2 * TILE_SIZE)
    a = (torch.randint(-4, 5, shape) * 0.5).to(torch.bfloat16)
    b = (torch.randint(-4, 5, shape) * 0.5).to(torch.bfloat16)
    outs = [to_device(torch.zeros(shape, dtype=torch.bfloat16)) for _ in range(4)]
    compare(to_device(a), to_device(b), *outs)
    eq, ne, lt, act = (ttnn.to_torch(t).float() for t in outs)
    a, b = a.float(), b.float()
    assert torch.equal(eq, (a == b).float()), "eq does not match"
    assert torch.equal(ne, (a != b).float()), "ne does not match"
    assert torch.equal(lt, (a < b).float()), "lt does not match"
    expected = torch.where(a > 1.0, torch.full_like(a, 5.0), a) + torch.where(b < 0, 0.25 * b, b)
    assert torch.allclose(act, expected, rtol=1e-2, atol=1e-2), "threshold + prelu does not match"
finally:
    ttnn.close_device(device)
