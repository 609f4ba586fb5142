# A one-to-many ttl.Semaphore barrier (spec section Semaphore): node (0, 0)
# computes c * c into a shared DRAM tile, then sets every other node's
# semaphore to 1 at once through get_remote_multicast((0, slice(1, 4))).set(1);
# nodes (0, 1..3) wait_eq(1) before reading the shared tile and compute
# y_i = x_i + c * c.
# expect: pass
# needs: torch
# sim: no (tt-lang-sim 1.1.6 has no ttl.Semaphore; tt-lang's functionality
#   matrix lists it as not yet supported in the simulator and the compiler;
#   with a stand-in semaphore the program passes there, and with no-op waits
#   it fails its check)
import torch
import ttnn

import ttl

WORKERS = 3


@ttl.operation(grid=(1, WORKERS + 1))
def broadcast_square(c: ttnn.Tensor, shared: ttnn.Tensor, x: ttnn.Tensor, y: ttnn.Tensor):
    ready = ttl.Semaphore()
    workers_ready = ready.get_remote_multicast((0, slice(1, WORKERS + 1)))
    c_dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)
    sq_dfb = ttl.make_dataflow_buffer_like(shared, shape=(1, 1), block_count=2)
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        if ttl.node(dims=1) == 0:
            with c_dfb.wait() as c_blk, sq_dfb.reserve() as sq:
                sq.store(c_blk * c_blk)
        else:
            with x_dfb.wait() as x_blk, sq_dfb.wait() as sq, y_dfb.reserve() as y_blk:
                y_blk.store(x_blk + sq)

    @ttl.datamovement()
    def read():
        n = ttl.node(dims=1)
        if n == 0:
            with c_dfb.reserve() as blk:
                ttl.copy(c[0, 0], blk).wait()
        else:
            with x_dfb.reserve() as blk:
                ttl.copy(x[n - 1, 0], blk).wait()
            ready.wait_eq(1)
            with sq_dfb.reserve() as blk:
                ttl.copy(shared[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        n = ttl.node(dims=1)
        if n == 0:
            with sq_dfb.wait() as blk:
                ttl.copy(blk, shared[0, 0]).wait()
            workers_ready.set(1)
        else:
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[n - 1, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(131)
device = ttnn.open_device(device_id=0)
try:
    c = torch.randn((32, 32), dtype=torch.float32)
    x = torch.randn((WORKERS * 32, 32), dtype=torch.float32)
    shared = to_device(torch.zeros((32, 32), dtype=torch.float32))
    y = to_device(torch.zeros((WORKERS * 32, 32), dtype=torch.float32))
    broadcast_square(to_device(c), shared, to_device(x), y)
    expected = x + (c * c).repeat(WORKERS, 1)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "x + c * c does not match"
finally:
    ttnn.close_device(device)
