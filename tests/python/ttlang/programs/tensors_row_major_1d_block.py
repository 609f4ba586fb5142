# A one-dimensional block of a row-major tensor: make_dataflow_buffer_like(t,
# shape=(C,)) on an (N, H, W, C) row-major tensor, copies of t[n, h, w, :] into
# it and out of it (spec "Dataflow buffer": for a row-major tensor the shape unit
# is an element and a block may have any rank; the spec's GroupTransfer
# nearest-neighbour upsample, examples/spec/copy/group_transfer.py and
# examples/group_transfer_upsample.py).
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 stops inside the operation, and its error report fails to load)
import torch
import ttnn

import ttl

H, W, C = 2, 2, 32


@ttl.operation(grid=(1, 1))
def upsample_w(x: ttnn.Tensor, y: ttnn.Tensor):
    io_dfb = ttl.make_dataflow_buffer_like(x, shape=(C,), block_count=2)  # <- feature

    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def read():
        for h in range(H):
            for w in range(W):
                with io_dfb.reserve() as blk:
                    ttl.copy(x[0, h, w, :], blk).wait()

    @ttl.datamovement()
    def write():
        for h in range(H):
            for w in range(W):
                with io_dfb.wait() as blk:
                    group = ttl.GroupTransfer()
                    group.add(ttl.copy(blk, y[0, h, 2 * w, :]))
                    group.add(ttl.copy(blk, y[0, h, 2 * w + 1, :]))
                    group.wait_all()


torch.manual_seed(5)
device = ttnn.open_device(device_id=0)
try:
    x = torch.rand((1, H, W, C), dtype=torch.float32)
    x_t = ttnn.from_torch(x, dtype=ttnn.float32, layout=ttnn.ROW_MAJOR_LAYOUT, device=device)
    y_t = ttnn.from_torch(torch.zeros((1, H, 2 * W, C)), dtype=ttnn.float32,
                          layout=ttnn.ROW_MAJOR_LAYOUT, device=device)
    upsample_w(x_t, y_t)
    assert torch.equal(ttnn.to_torch(y_t), x.repeat_interleave(2, dim=2)), "upsample along W does not match"
finally:
    ttnn.close_device(device)
