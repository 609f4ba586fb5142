# Shape mismatch between the operands of a block expression: 1x2 tiles + 1x1 tile
# with no broadcast.
# expect: error (?i)shape
# line: 21
# tt-lang-sim: ValueError: Shape mismatch in binary operation: left shape (1, 2) does not
#   match right shape (1, 1). Use broadcast() to expand operands first. (line 21)
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 2), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 2), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)  # <- error

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0, 0:2], a_blk)
            tx_b = ttl.copy(b[0, 0], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            ttl.copy(y_blk, y[0, 0:2]).wait()


def on_device(make, shape):
    return make(shape, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)


device = ttnn.open_device(device_id=0)
try:
    a = on_device(ttnn.rand, (32, 64))
    b = on_device(ttnn.rand, (32, 64))
    y = on_device(ttnn.empty, (32, 64))
    program(a, b, y)
    raise SystemExit("the program ran to the end: the error above was not reported")
finally:
    ttnn.close_device(device)
