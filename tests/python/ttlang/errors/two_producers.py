# Two producers on one DFB: both data-movement kernels reserve and push a_dfb.
# expect: error (?i)(producer|more than one|two)
# line: 32
# tt-lang-sim: nothing: it runs the program to the end (two producers are accepted).
import ttnn

import ttl


@ttl.operation(grid=(1, 1))
def program(a: ttnn.Tensor, b: ttnn.Tensor, y: ttnn.Tensor):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as a_blk, b_dfb.wait() as b_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk + b_blk)

    @ttl.datamovement()
    def read():
        for t in range(2):
            with b_dfb.reserve() as b_blk:
                ttl.copy(b[0, t], b_blk).wait()
        with a_dfb.reserve() as a_blk:
            ttl.copy(a[0, 0], a_blk).wait()

    @ttl.datamovement()
    def write():
        with a_dfb.reserve() as a_blk:  # <- error
            ttl.copy(a[0, 1], a_blk).wait()
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
