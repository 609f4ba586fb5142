# squeeze of a 3-D block expression (ab * 2.0, shape (1, 2, 2)) into @; plus reduce_sum over a squeezed 3-D block, unsqueezed into a 3-D block.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 takes no number operand in a 3-D block expression)
import torch
import ttl
import ttnn


@ttl.operation(grid=(1, 1))
def op(a: ttnn.Tensor, b: ttnn.Tensor, z: ttnn.Tensor, r: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2, 2), block_count=1)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 2), block_count=1)
    z_dfb = ttl.make_dataflow_buffer_like(z, shape=(2, 2), block_count=1)
    r_dfb = ttl.make_dataflow_buffer_like(r, shape=(1, 2, 1), block_count=1)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as ab, b_dfb.wait() as bb:
            with z_dfb.reserve() as zb:
                zb.store(ttl.block.squeeze(ab * 2.0, dims=[0]) @ bb)
            with r_dfb.reserve() as rb:
                rb.store(ttl.block.unsqueeze(ttl.math.reduce_sum(ttl.block.squeeze(ab, dims=[0]), dims=[1]), dims=[0]))

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as ab, b_dfb.reserve() as bb:
            ttl.copy(a[0:1, 0:2, 0:2], ab).wait()
            ttl.copy(b[0:2, 0:2], bb).wait()

    @ttl.datamovement()
    def write():
        with z_dfb.wait() as zb:
            ttl.copy(zb, z[0:2, 0:2]).wait()
        with r_dfb.wait() as rb:
            ttl.copy(rb, r[0:1, 0:2, 0:1]).wait()


device = ttnn.open_device(device_id=0)
try:
    a = torch.rand((1, 64, 64), dtype=torch.bfloat16) - 0.5
    b = torch.rand((64, 64), dtype=torch.bfloat16) - 0.5
    to = lambda t: ttnn.from_torch(t, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device)
    z = to(torch.zeros((64, 64), dtype=torch.bfloat16))
    r = to(torch.zeros((1, 64, 32), dtype=torch.bfloat16))
    op(to(a), to(b), z, r)
    gz = ttnn.to_torch(z).float(); wz = (a[0].float() * 2) @ b.float()
    gr = ttnn.to_torch(r).float()[0, :, 0]; wr = a[0].float().sum(dim=1)
    print("z err", (gz - wz).abs().max().item(), "r err", (gr - wr).abs().max().item())
    assert torch.allclose(gz, wz, atol=1e-1) and torch.allclose(gr, wr, atol=2e-1), "combo wrong"

finally:
    ttnn.close_device(device)
