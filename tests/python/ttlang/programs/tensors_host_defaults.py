# Host tensors made the way programs written for TT-Lang's simulator make them:
# ttnn.rand/ttnn.empty/ttnn.from_torch with no layout and no device, then
# ttnn arithmetic on host tensors for the golden (tt-lang-sim's ttnn defaults
# every creation function to TILE_LAYOUT, ttl/sim/ttnnsim.py rand/empty/from_torch,
# and computes ttnn ops on host tensors). Real ttnn defaults empty/from_torch to
# ROW_MAJOR; tessel follows ttnn on a device and the simulator on the host
# (docs/ttnn.md). examples/eltwise_pipe_node3.py, single/multinode_matmul.py and the
# errors/ examples rely on the simulator's defaults.
# expect: pass
# needs: torch
import ttl
import ttnn


@ttl.operation(grid=(1, 1))
def double(a: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + a_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


a = ttnn.rand((32, 32), dtype=ttnn.float32)
y = ttnn.empty((32, 32), dtype=ttnn.float32)  # <- feature: no layout
double(a, y)
golden = a + a  # <- feature: ttnn op on host tensors
assert (ttnn.to_torch(golden) - ttnn.to_torch(y)).abs().max().item() < 1e-5, "y = a + a"
