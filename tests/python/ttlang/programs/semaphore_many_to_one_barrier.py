# A many-to-one ttl.Semaphore barrier (spec section Semaphore): nodes (0, 1..3)
# each write 2 * x_i to their tile of a DRAM scratch tensor, then increment
# node (0, 0)'s semaphore through get_remote((0, 0)).inc(1); node (0, 0)'s
# reader waits with wait_eq(3) before it reads the scratch tiles back and sums
# them. Without the barrier node 0 could read tiles not yet written.
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
def barrier_sum(x: ttnn.Tensor, scratch: ttnn.Tensor, y: ttnn.Tensor):
    barrier = ttl.Semaphore()
    node_0_barrier = barrier.get_remote((0, 0))
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 1), block_count=2)
    part_dfb = ttl.make_dataflow_buffer_like(scratch, shape=(1, 1), block_count=2)
    acc_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        if ttl.node(dims=1) != 0:
            with x_dfb.wait() as x_blk, part_dfb.reserve() as p:
                p.store(x_blk + x_blk)
        else:
            with acc_dfb.reserve() as acc:
                acc.store(ttl.block.fill(0.0, shape=acc.shape))
            for _ in range(WORKERS):
                with part_dfb.wait() as p, acc_dfb.wait() as prev, acc_dfb.reserve() as acc:
                    acc.store(prev + p)
            with acc_dfb.wait() as acc, y_dfb.reserve() as y_blk:
                y_blk.store(acc)

    @ttl.datamovement()
    def read():
        n = ttl.node(dims=1)
        if n != 0:
            with x_dfb.reserve() as blk:
                ttl.copy(x[n, 0], blk).wait()
        else:
            barrier.wait_eq(WORKERS)
            for i in range(1, WORKERS + 1):
                with part_dfb.reserve() as blk:
                    ttl.copy(scratch[i, 0], blk).wait()

    @ttl.datamovement()
    def write():
        n = ttl.node(dims=1)
        if n != 0:
            with part_dfb.wait() as blk:
                ttl.copy(blk, scratch[n, 0]).wait()
            node_0_barrier.inc(1)
        else:
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()


def to_device(t):
    return ttnn.from_torch(
        t, dtype=ttnn.float32, layout=ttnn.TILE_LAYOUT, device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


torch.manual_seed(130)
device = ttnn.open_device(device_id=0)
try:
    x = torch.randn(((WORKERS + 1) * 32, 32), dtype=torch.float32)
    scratch = to_device(torch.zeros(((WORKERS + 1) * 32, 32), dtype=torch.float32))
    y = to_device(torch.zeros((32, 32), dtype=torch.float32))
    barrier_sum(to_device(x), scratch, y)
    expected = 2 * x[32:].reshape(WORKERS, 32, 32).sum(dim=0)
    assert torch.allclose(ttnn.to_torch(y).float(), expected, rtol=1e-5, atol=1e-5), "sum after the barrier does not match"
finally:
    ttnn.close_device(device)
