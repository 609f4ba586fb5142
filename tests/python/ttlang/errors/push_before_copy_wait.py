# Pushing a block while the copy into it is still in flight: push() comes
# before tx.wait().
# expect: error (?i)(in flight|still (being )?written|before .*wait|not (yet )?waited)
# line: 28
# tt-lang-sim: RuntimeError: Cannot perform push(): not a valid next dataflow step for
#   this block. A copy may still be in flight (NAW) ... requested at
#   push_before_copy_wait.py:27. (line 28)
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
        a_blk = a_dfb.reserve()
        tx_a = ttl.copy(a[0, 0], a_blk)
        a_blk.push()  # <- error
        tx_a.wait()
        with b_dfb.reserve() as b_blk:
            ttl.copy(b[0, 0], b_blk).wait()

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
