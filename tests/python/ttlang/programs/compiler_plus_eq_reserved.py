# `+=` into a reserved output block (the compiler's L1 accumulation): the
# output block is reserved once, stored with a fill(0.0, dtype=...) block, and
# every K step adds typecast(a @ b) into it in place; the block is pushed when
# its `with` ends. fp32_dest_acc_en on the operation. K = 4 blocks of 2 tiles.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.math.typecast nor fill(dtype=), and its
#   `+=` makes a temporary instead of writing the reserved block)
import torch
import ttnn

import ttl

K_BLOCK = 2
K_BLOCKS = 4


@ttl.operation(grid=(1, 1), fp32_dest_acc_en=True)
def matmul(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, K_BLOCK), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(K_BLOCK, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with y_dfb.reserve() as y_blk:
            y_blk.store(ttl.block.fill(0.0, shape=y_blk.shape, dtype=y_blk.dtype))
            for _ in range(K_BLOCKS):
                with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk:
                    y_blk += ttl.math.typecast(a_blk @ b_blk, y_blk.dtype)

    @ttl.datamovement()
    def read():
        for kb in range(K_BLOCKS):
            k0 = kb * K_BLOCK
            with a_dfb.reserve() as a_blk:
                ttl.copy(a[0:1, k0 : k0 + K_BLOCK], a_blk).wait()
            with b_dfb.reserve() as b_blk:
                ttl.copy(b[k0 : k0 + K_BLOCK, 0:1], b_blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0:1, 0:1]).wait()


def to_device(t, dtype):
    return ttnn.from_torch(
        t, dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(96)
device = ttnn.open_device(device_id=0)
try:
    K = K_BLOCK * K_BLOCKS * 32
    a = torch.randn((32, K), dtype=torch.bfloat16)
    b = torch.randn((K, 32), dtype=torch.bfloat16) / K**0.5
    y = to_device(torch.zeros((32, 32), dtype=torch.float32), ttnn.float32)
    matmul(to_device(a, ttnn.bfloat16), to_device(b, ttnn.bfloat16), y)
    expected = a.float() @ b.float()
    result = ttnn.to_torch(y).float()
    assert torch.allclose(result, expected, rtol=5e-3, atol=5e-3), "accumulated a @ b does not match"
finally:
    ttnn.close_device(device)
