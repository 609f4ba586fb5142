# Multi-tile matmul with K accumulation through a dataflow buffer, as the
# matmul tutorial does: acc starts as fill(0), each K step waits the previous
# acc and reserves the next (the compute kernel is both producer and consumer of
# acc_dfb), then y = relu(c + acc). 2x2-tile blocks, M=N=128, K=192 (3 K blocks).
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32
G = 2


@ttl.operation(grid=(1, 1))
def matmul_bias_relu(a: ttnn.Tensor, b: ttnn.Tensor, c: ttnn.Tensor, y: ttnn.Tensor):
    m_blocks = a.shape[0] // TILE_SIZE // G
    n_blocks = b.shape[1] // TILE_SIZE // G
    k_blocks = a.shape[1] // TILE_SIZE // G
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(G, G), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(G, G), block_count=2)
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(G, G), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(G, G), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(G, G), block_count=2)

    @ttl.datamovement()
    def read():
        for mb in range(m_blocks):
            m0 = mb * G
            for nb in range(n_blocks):
                n0 = nb * G
                with c_dfb.reserve() as c_blk:
                    ttl.copy(c[m0 : m0 + G, n0 : n0 + G], c_blk).wait()
                for kb in range(k_blocks):
                    k0 = kb * G
                    with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                        tx_a = ttl.copy(a[m0 : m0 + G, k0 : k0 + G], a_blk)
                        tx_b = ttl.copy(b[k0 : k0 + G, n0 : n0 + G], b_blk)
                        tx_a.wait()
                        tx_b.wait()

    @ttl.compute()
    def compute():
        for _ in range(m_blocks):
            for _ in range(n_blocks):
                with acc_dfb.reserve() as acc_blk:
                    acc_blk.store(ttl.block.fill(0, shape=acc_blk.shape))
                for _ in range(k_blocks):
                    with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, acc_dfb.wait() as pre_acc_blk:
                        with acc_dfb.reserve() as acc_blk:
                            acc_blk.store(pre_acc_blk + a_blk @ b_blk)
                with c_dfb.wait() as c_blk, acc_dfb.wait() as acc_blk:
                    with y_dfb.reserve() as y_blk:
                        y_blk.store(ttl.math.relu(c_blk + acc_blk))

    @ttl.datamovement()
    def write():
        for mb in range(m_blocks):
            m0 = mb * G
            for nb in range(n_blocks):
                n0 = nb * G
                with y_dfb.wait() as y_blk:
                    ttl.copy(y_blk, y[m0 : m0 + G, n0 : n0 + G]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(41)
device = ttnn.open_device(device_id=0)
try:
    M, K, N = 128, 192, 128
    a = torch.randn((M, K), dtype=torch.bfloat16)
    b = torch.randn((K, N), dtype=torch.bfloat16)
    c = torch.randn((M, N), dtype=torch.bfloat16)
    y = to_device(torch.zeros((M, N), dtype=torch.bfloat16))
    matmul_bias_relu(to_device(a), to_device(b), to_device(c), y)
    expected = torch.relu(a.float() @ b.float() + c.float())
    result = ttnn.to_torch(y).float()
    pcc = torch.corrcoef(torch.stack([result.flatten(), expected.flatten()]))[0, 1].item()
    assert pcc > 0.999, f"PCC {pcc:.6f}"
finally:
    ttnn.close_device(device)
