# ttl.GroupTransfer: the reader starts the copies of a and b into their blocks,
# adds both handles to one group and waits them together with wait_all(); the
# writer copies the one result block to two output tensors (two copies read
# the block at once) and waits both through a group. y = y2 = a + b.
# tt-lang lists GroupTransfer as simulator-only; tessel runs it.
# sim: no (tt-lang-sim 1.1.6 needs Python 3.12 to inject the waits of handles
#   it cannot see waited, which GroupTransfer handles are; the venv has 3.11)
# expect: pass
# needs: torch
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def add(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor, y2: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            group = ttl.GroupTransfer()
            tx_a = ttl.copy(a[0:2, 0:2], a_blk)
            group.add(tx_a)
            tx_b = ttl.copy(b[0:2, 0:2], b_blk)
            group.add(tx_b)
            group.wait_all()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            group = ttl.GroupTransfer()
            tx = ttl.copy(y_blk, y[0:2, 0:2])
            group.add(tx)
            tx2 = ttl.copy(y_blk, y2[0:2, 0:2])
            group.add(tx2)
            group.wait_all()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(63)
device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((64, 64), dtype=torch.bfloat16)
    b = torch.rand((64, 64), dtype=torch.bfloat16)
    y = to_device(torch.zeros((64, 64), dtype=torch.bfloat16))
    y2 = to_device(torch.zeros((64, 64), dtype=torch.bfloat16))
    add(to_device(a), to_device(b), y, y2)
    expected = a.float() + b.float()
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=2e-2, atol=2e-2), "y = a + b does not match"
    assert torch.allclose(ttnn.to_torch(y2).float(), expected, rtol=2e-2, atol=2e-2), "y2 = a + b does not match"
finally:
    ttnn.close_device(device)
