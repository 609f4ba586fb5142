# A block used after pop(): the compute kernel reads a_blk, pops it, then
# reads it again for a second output tile.
# expect: error (?i)(pop|released|out of scope|not a valid)
# line: 27
# tt-lang-sim: nothing: it runs the program to the end (reading a popped block is not
#   checked; writing a pushed one is, see use_after_push.py).
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        a_blk = a_dfb.wait()
        b_blk = b_dfb.wait()
        y_blk = y_dfb.reserve()
        y_blk.store(a_blk + b_blk)
        y_blk.push()
        a_blk.pop()
        y2_blk = y_dfb.reserve()
        y2_blk.store(a_blk * b_blk)  # <- error
        y2_blk.push()
        b_blk.pop()

    @ttl.datamovement()
    def read():
        with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
            tx_a = ttl.copy(a[0, 0], a_blk)
            tx_b = ttl.copy(b[0, 0], b_blk)
            tx_a.wait()
            tx_b.wait()

    @ttl.datamovement()
    def write():
        for t in range(2):
            with y_dfb.wait() as y_blk:
                ttl.copy(y_blk, y[0, t]).wait()


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
