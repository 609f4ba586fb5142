# Dataflow buffers larger than a node's L1: one 24x24-tile bfloat16 block,
# double-buffered, is 2.25 MiB against about 1.4 MiB of L1 per core.
# expect: error (?i)(L1|memory)
# line: 17
# tt-lang-sim: only a warning, then runs to the end: UserWarning: Total DataflowBuffer
#   capacity per node (2363392 bytes) exceeds the L1 memory limit of 1466368 bytes. ...
#   (no line)
import ttnn

import ttl

TILES = 24


@ttl.operation(grid=(1, 1))
def big(x: ttnn.Tensor, y: ttnn.Tensor):
    x_dfb = ttl.make_dataflow_buffer_like(x, shape=(TILES, TILES), block_count=2)  # <- error
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.compute()
    def compute():
        with x_dfb.wait() as x_blk, y_dfb.reserve() as y_blk:
            y_blk.store(ttl.math.reduce_sum(x_blk, dims=[0, 1], shape=(1, 1)))

    @ttl.datamovement()
    def read():
        with x_dfb.reserve() as blk:
            ttl.copy(x[0:TILES, 0:TILES], blk).wait()

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            ttl.copy(blk, y[0, 0]).wait()


def on_device(make, shape):
    return make(shape, dtype=ttnn.bfloat16, layout=ttnn.TILE_LAYOUT, device=device, memory_config=ttnn.DRAM_MEMORY_CONFIG)


device = ttnn.open_device(device_id=0)
try:
    x = on_device(ttnn.rand, (TILES * 32, TILES * 32))
    y = on_device(ttnn.empty, (32, 32))
    big(x, y)
    raise SystemExit("the program ran to the end: the error above was not reported")
finally:
    ttnn.close_device(device)
