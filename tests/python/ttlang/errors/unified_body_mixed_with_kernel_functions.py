# An operation body that holds a kernel statement itself (a unified body) and also
# declares kernel functions: an operation is either one or the other.
# expect: error (?i)declares the kernel function 'compute'.*either holds its kernel statements itself
# needs: torch
# line: 23
# tt-lang-sim: not compared (tt-lang-sim 1.1.6 has no unified bodies)
import torch
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as x, y_dfb.reserve() as o:
            o.store(x + 1.0)

    with a_dfb.reserve() as blk:  # <- error
        ttl.copy(a[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as done:
            ttl.copy(done, y[0, 0]).wait()


device = ttnn.open_device(device_id=0)
try:
    a = ttnn.from_torch(torch.rand((32, 32), dtype=torch.bfloat16), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                        device=device)
    y = ttnn.from_torch(torch.zeros((32, 32), dtype=torch.bfloat16), dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT,
                        device=device)
    program(a, y)
finally:
    ttnn.close_device(device)
