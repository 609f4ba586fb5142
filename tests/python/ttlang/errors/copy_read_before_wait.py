# Reading a block before its copy's wait: the reader copies a_blk out to y
# while the copy into a_blk is still in flight.
# expect: error (?i)(lock|in flight|still (being )?(written|read)|before .*wait|not (yet )?waited)
# line: 28
# tt-lang-sim: RuntimeError: Cannot perform copy (as source): not a valid next dataflow
#   step for this block. A copy may still be in flight (NAW) ... requested at
#   copy_read_before_wait.py:27. (line 28)
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
            y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0, 0], a_blk)
            tx_peek = ttl.copy(a_blk, y[0, 1])  # <- error
            tx_a.wait()
            tx_peek.wait()
            tx_b = ttl.copy(b[0, 0], b_blk)
            tx_b.wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as y_blk:
            tx = ttl.copy(y_blk, y[0, 0])
            tx.wait()


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
