# ttl.block.mask and ttl.block.mask_posinf: elements where the mask block
# holds 1.0 become 0 (mask) or +inf (mask_posinf), the others keep their
# value, as an attention mask is applied before a softmax.
# expect: pass
# needs: torch
import torch
import ttnn

import ttl

TILE_SIZE = 32


@ttl.operation(grid=(1, 1))
def apply_masks(x: ttnn.Tensor, m: ttnn.Tensor, zeroed: ttnn.Tensor, raised: ttnn.Tensor):
    blocks = x.shape[0] // TILE_SIZE // 2
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(2, 2), block_count=2)
    m_dfb = ttl.make_dataflow_buffer_like(m, shape=(2, 2), block_count=2)
    zeroed_dfb = ttl.make_dataflow_buffer_like(zeroed, shape=(2, 2), block_count=2)
    raised_dfb = ttl.make_dataflow_buffer_like(raised, shape=(2, 2), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(blocks):
            with x_dfb.wait() as x_blk, m_dfb.wait() as m_blk:
                with zeroed_dfb.reserve() as z_blk:
                    z_blk.store(ttl.block.mask(x_blk, m_blk))
                with raised_dfb.reserve() as r_blk:
                    r_blk.store(ttl.block.mask_posinf(x_blk, m_blk))

    @ttl.datamovement()
    def read():
        for i in range(blocks):
            with x_dfb.reserve() as x_blk, m_dfb.reserve() as m_blk:
                tx_x = ttl.copy(x[2 * i : 2 * i + 2, 0:2], x_blk)
                tx_m = ttl.copy(m[2 * i : 2 * i + 2, 0:2], m_blk)
                tx_x.wait()
                tx_m.wait()

    @ttl.datamovement()
    def write():
        for i in range(blocks):
            with zeroed_dfb.wait() as z_blk:
                ttl.copy(z_blk, zeroed[2 * i : 2 * i + 2, 0:2]).wait()
            with raised_dfb.wait() as r_blk:
                ttl.copy(r_blk, raised[2 * i : 2 * i + 2, 0:2]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(41)
device = ttnn.open_device(device_id=0)
try:
    shape = (4 * TILE_SIZE, 2 * TILE_SIZE)
    x = torch.randn(shape, dtype=torch.bfloat16)
    m = (torch.rand(shape) < 0.3).to(torch.bfloat16)
    zeroed = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    raised = to_device(torch.zeros(shape, dtype=torch.bfloat16))
    apply_masks(to_device(x), to_device(m), zeroed, raised)
    keep = m == 0
    expected_zeroed = torch.where(keep, x, torch.zeros_like(x)).float()
    expected_raised = torch.where(keep, x, torch.full_like(x, float("inf"))).float()
    assert torch.equal(ttnn.to_torch(zeroed).float(), expected_zeroed), "mask does not match"
    assert torch.equal(ttnn.to_torch(raised).float(), expected_raised), "mask_posinf does not match"
finally:
    ttnn.close_device(device)
